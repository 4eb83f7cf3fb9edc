import { Initial1795362732772 } from './1795362732772-initial';
import { AuditLog1795659599338 } from './1795659599338-audit-log';
import { IdempotencyKeys1795662836260 } from './1795662836260-idempotency-keys';
import { KeyKinds1795684130996 } from './1795684130996-key-kinds';
import { Webhooks1796100000000 } from './1796100000000-webhooks';

/** In order of application. */
export const MIGRATIONS = [Initial1795362732772, AuditLog1795659599338, IdempotencyKeys1795662836260, KeyKinds1795684130996, Webhooks1796100000000];
