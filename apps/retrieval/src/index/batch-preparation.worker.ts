import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { prepareBatch } from './batch-preparation';
import type { PreparationRequest } from './batch-preparer';

// Bulk work: this thread (on Linux the nice value is a thread's, so the service's event loop keeps its own) yields
// the processor to searches and the bus when both want it. Where that cannot be set, it runs as it is.
try {
  setPriority(10);
} catch {
  /* not permitted here */
}

/** The thread that prepares the PostgreSQL backend's index batches for `BatchPreparer`: requests answered by id. */
parentPort!.on('message', ({ id, items, meta, bm25 }: PreparationRequest) => {
  prepareBatch(items, meta, bm25).then(
    (result) => parentPort!.postMessage({ id, result }),
    (e: unknown) => parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) }),
  );
});
