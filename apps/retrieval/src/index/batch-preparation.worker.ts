import { parentPort } from 'node:worker_threads';
import { prepareBatch } from './batch-preparation';
import type { PreparationRequest } from './batch-preparer';

/** The thread that prepares the PostgreSQL backend's index batches for `BatchPreparer`: requests answered by id. */
parentPort!.on('message', ({ id, items, meta, bm25 }: PreparationRequest) => {
  prepareBatch(items, meta, bm25).then(
    (result) => parentPort!.postMessage({ id, result }),
    (e: unknown) => parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) }),
  );
});
