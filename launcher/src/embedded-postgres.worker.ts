import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler, PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { parentPort, workerData } from 'node:worker_threads';
import { bufferWholeMessages } from './whole-messages';

/**
 * The embedded PostgreSQL on a thread of its own: PGlite runs the database engine synchronously in WebAssembly,
 * so on the main thread it would take turns with the services' own work. Here it has a core to itself.
 * With `initOnly`, the thread creates the database directory and closes it: initdb leaves hundreds of MB of
 * WebAssembly memory behind that only the end of the thread frees for certain.
 */
export interface EmbeddedPostgresWorkerData {
  pgDir: string;
  socketPath: string;
  maxConnections: number;
  initOnly?: boolean;
}

/** What the thread answers `memory` with: the size of the engine's WebAssembly memory, which never shrinks. */
export interface EmbeddedPostgresMemory {
  memoryBytes: number;
}

async function main(): Promise<void> {
  const { pgDir, socketPath, maxConnections, initOnly } = workerData as EmbeddedPostgresWorkerData;
  // The embedded engine has no checkpointer: WAL is removed only at the checkpoints the main thread asks for
  // (`EMBEDDED_CHECKPOINT_MS`; a load of 100k items left 3 GB of it before). A checkpoint removes the segments it no
  // longer needs rather than keeping up to `max_wal_size` of them for reuse (`wal_recycle`): after a load, one or two
  // segments of 16 MB stay instead of 64 MB.
  // The engine's WebAssembly memory never shrinks, and shared buffers are most of it: 16 MB of them rather than 128
  // (and as much for maintenance's sorts), since searches are scored in retrieval's memory and the pages of a
  // statement that misses the buffers come from the operating system's cache (docs/benchmarks.md).
  const memory = ['shared_buffers=16MB', 'maintenance_work_mem=16MB'];
  const params = ['max_wal_size=64MB', 'min_wal_size=32MB', 'wal_recycle=off', ...memory].flatMap((p) => ['-c', p]);
  const db = await PGlite.create({ dataDir: pgDir, startParams: [...PGlite.defaultStartParams, ...params] });
  if (initOnly) {
    await db.close();
    parentPort!.postMessage('ready');
    return;
  }
  bufferWholeMessages(PGLiteSocketHandler);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
  await server.start();
  parentPort!.on('message', (message) => {
    if (message === 'memory') {
      // The module's type names Emscripten's, which is not installed here.
      const { wasmMemory } = db.Module as unknown as { wasmMemory: { buffer: ArrayBuffer } };
      const memory: EmbeddedPostgresMemory = { memoryBytes: wasmMemory.buffer.byteLength };
      parentPort!.postMessage(memory);
    }
    if (message !== 'stop') return;
    void (async () => {
      // A clean shutdown of the database, so the next start has nothing to recover. The socket server is not
      // stopped first: its stop rolls back through the database and can leave close() waiting for ever. Its
      // sockets go with the thread.
      await db.close().catch(() => undefined);
      parentPort!.postMessage('stopped');
    })();
  });
  parentPort!.postMessage('ready');
}

main().catch((e: Error) => parentPort!.postMessage({ error: e.stack ?? e.message }));
