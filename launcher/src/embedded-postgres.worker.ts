import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler, PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { parentPort, workerData } from 'node:worker_threads';
import { bufferWholeMessages } from './whole-messages';

/**
 * The embedded PostgreSQL on a thread of its own: PGlite runs the database engine synchronously in WebAssembly,
 * so on the main thread it would take turns with the services' own work. Here it has a core to itself.
 */
export interface EmbeddedPostgresWorkerData {
  pgDir: string;
  socketPath: string;
  maxConnections: number;
}

async function main(): Promise<void> {
  const { pgDir, socketPath, maxConnections } = workerData as EmbeddedPostgresWorkerData;
  // The embedded engine has no checkpointer: WAL is recycled only at the checkpoints the main thread asks for
  // (`EMBEDDED_CHECKPOINT_MS`), down to what these sizes allow (a load of 100k items left 3 GB of it before).
  const db = await PGlite.create({ dataDir: pgDir, startParams: [...PGlite.defaultStartParams, '-c', 'max_wal_size=64MB', '-c', 'min_wal_size=32MB'] });
  bufferWholeMessages(PGLiteSocketHandler);
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections });
  await server.start();
  parentPort!.on('message', (message) => {
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
