import { Initial1795362736169 } from './1795362736169-initial';
import { FinishReason1795500000000 } from './1795500000000-finish-reason';
import { DeletedSources1796000000000 } from './1796000000000-deleted-sources';
import { Webhooks1796100000000 } from './1796100000000-webhooks';

/** In order of application. */
export const MIGRATIONS = [Initial1795362736169, FinishReason1795500000000, DeletedSources1796000000000, Webhooks1796100000000];
