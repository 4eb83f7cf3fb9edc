import { serveThreadCalls } from '@askdata/common/async/thread-calls';
import { prepareBatch } from './batch-preparation';
import type { PreparationRequest } from './batch-preparer';

/** The thread that prepares the PostgreSQL backend's index batches for `BatchPreparer` (at nice 10: bulk work). */
serveThreadCalls(({ items, meta, bm25 }: PreparationRequest) => prepareBatch(items, meta, bm25));
