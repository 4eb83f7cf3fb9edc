import { ErrorCode, Subjects } from '@askdata/contracts';
import { BusClient } from './bus-client';
import { ServiceError } from './service-error';

/**
 * Tells every gateway that the project's lists changed (`ListCache`), and waits until the bus has taken it: catalog
 * once a change for upserts in progress is committed and before it answers (with the upsert it `applied`, when it
 * knows it); ingestion, with the upserts' ids in `settled`, before it commits them `completed` or `failed`. If that
 * cannot be said, this throws UNAVAILABLE and the (idempotent) work is done again.
 */
export async function announceListChange(bus: BusClient, projectId: string, change: { applied?: string[]; settled?: string[] } = {}): Promise<void> {
  await bus.publish(Subjects.catalog.changed, { projectId, ...change }, { confirm: true }).catch((e: unknown) => {
    throw new ServiceError(ErrorCode.Unavailable, `The change could not be announced: ${e instanceof Error ? e.message : String(e)}`);
  });
}
