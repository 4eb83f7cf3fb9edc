import { Initial1795362732772 } from './1795362732772-initial';
import { IdempotencyKeys1795662836260 } from './1795662836260-idempotency-keys';

/** In order of application. */
export const MIGRATIONS = [Initial1795362732772, IdempotencyKeys1795662836260];
