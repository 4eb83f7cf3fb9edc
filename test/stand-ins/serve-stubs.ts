import { startEmbeddingStub } from './embedding-stubs';
import { startQdrantStub } from './qdrant-stub';

/**
 * Runs the Qdrant stand-in (and, with --embeddings, an embeddings stand-in) so that the service can be tried
 * against them by hand (docs/deploy.md, "Qdrant and embeddings"):
 *
 *   npm run build:stand-ins && node dist-test/test/stand-ins/serve-stubs.js [--qdrant-port 6333] [--embeddings openai|voyage] [--embeddings-port 8089]
 *
 * Everything is in memory and gone when it stops. It prints the settings to start the service with, and every
 * request the stand-ins refuse.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const kind = arg('embeddings');
  if (kind !== undefined && kind !== 'openai' && kind !== 'voyage') throw new Error('--embeddings takes openai or voyage');
  const onProblem = (p: string) => console.error(`refused: ${p}`);
  const qdrant = await startQdrantStub({ port: Number(arg('qdrant-port') ?? 6333), keepRequests: false, onProblem });
  const env = [`SEARCH_BACKEND=qdrant`, `QDRANT_URL=${qdrant.url}`];
  if (kind) {
    const embeddings = await startEmbeddingStub(kind, { port: Number(arg('embeddings-port') ?? 8089), keepRequests: false, onProblem });
    env.push(`EMBEDDING_PROVIDER=${kind}`, `EMBEDDING_URL=${embeddings.url}`, 'EMBEDDING_MODEL=stand-in');
    if (kind === 'voyage') env.push('EMBEDDING_API_KEY=stand-in');
  }
  console.log(`Qdrant stand-in on ${qdrant.url}${kind ? `, ${kind} embeddings stand-in` : ''}. Start the service with:\n\n  ${env.join(' ')} npm start\n`);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
