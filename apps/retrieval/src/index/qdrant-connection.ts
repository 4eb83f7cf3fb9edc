import { DynamicModule, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { QdrantClient } from '@qdrant/js-client-rest';
import { ReadinessCheck, ServiceError } from '@askdata/common';
import { RETRIEVAL_CONFIG, RetrievalConfig } from '../retrieval.config';

/**
 * The one adapter of the Qdrant SDK in this service. Every call goes through {@link QdrantConnection.call}, which
 * turns whatever fails (Qdrant unreachable, a timeout, an error status) into UNAVAILABLE, so the API answers 503.
 */
@Injectable()
export class QdrantConnection {
  readonly client: QdrantClient;
  readonly url: string;

  constructor(@Inject(RETRIEVAL_CONFIG) config: RetrievalConfig) {
    this.url = config.QDRANT_URL ?? 'http://127.0.0.1:6333';
    const key = config.QDRANT_API_KEY;
    // The key goes as the api-key header, as the SDK would send it, minus the SDK's console warning about plain HTTP.
    this.client = new QdrantClient({
      url: this.url,
      headers: key ? { 'api-key': key } : {},
      timeout: config.QDRANT_TIMEOUT_MS,
      checkCompatibility: false,
    });
    if (key && this.url.startsWith('http:')) new Logger('Qdrant').warn(`QDRANT_API_KEY is sent to ${this.url} over plain HTTP`);
  }

  async call<T>(what: string, run: (client: QdrantClient) => Promise<T>): Promise<T> {
    try {
      return await run(this.client);
    } catch (e) {
      throw this.failure(what, e);
    }
  }

  /** The UNAVAILABLE error for a failed call (a ServiceError passes through). */
  failure(what: string, e: unknown): ServiceError {
    if (e instanceof ServiceError) return e;
    return ServiceError.unavailable(`The search index (Qdrant at ${this.url}) failed to ${what}: ${describe(e)}.`);
  }

  /** Reachable and the key is accepted: lists the collections. */
  async ping(): Promise<void> {
    await this.call('list collections', (c) => c.getCollections());
  }
}

/** HTTP status of a failed Qdrant call, or null when there was no answer. */
export function qdrantStatus(e: unknown): number | null {
  const status = (e as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : null;
}

function describe(e: unknown): string {
  const err = e as Error & { status?: number; data?: { status?: { error?: string } }; cause?: { code?: string } };
  if (typeof err.status === 'number') return `${err.status}${err.data?.status?.error ? ` ${err.data.status.error}` : ''}`;
  if (err.name === 'QdrantClientTimeoutError') return 'no answer in time';
  return err.cause?.code ?? err.message ?? String(e);
}

/** Readiness of the retrieval service when the index is in Qdrant. */
@Injectable()
export class QdrantReadiness implements ReadinessCheck {
  readonly name = 'qdrant';
  constructor(private readonly qdrant: QdrantConnection) {}
  check(): Promise<void> {
    return this.qdrant.ping();
  }
}

/** Global, so that the health module's readiness check can reach the connection. */
@Module({})
export class QdrantModule {
  static forRoot(config: RetrievalConfig): DynamicModule {
    return {
      module: QdrantModule,
      global: true,
      providers: [{ provide: RETRIEVAL_CONFIG, useValue: config }, QdrantConnection],
      exports: [QdrantConnection],
    };
  }
}
