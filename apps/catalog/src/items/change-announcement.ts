import { ErrorCode, Subjects } from '@askdata/contracts';
import { BusClient, ServiceError } from '@askdata/common';

/**
 * Tells every gateway that the project's lists changed, once a change is committed and before the caller is
 * answered; if that cannot be said, the caller is answered UNAVAILABLE and makes the (idempotent) change again.
 */
export async function announceChange(bus: BusClient, projectId: string): Promise<void> {
  await bus.publish(Subjects.catalog.changed, { projectId }, { confirm: true }).catch((e: unknown) => {
    throw new ServiceError(ErrorCode.Unavailable, `The change could not be announced: ${e instanceof Error ? e.message : String(e)}`);
  });
}
