import { Initial1795362734068 } from './1795362734068-initial';
import { OrderedClaims1795408464560 } from './1795408464560-ordered-claims';
import { BatchPayloadText1795600000000 } from './1795600000000-batch-payload-text';
import { OutageRetries1795700000000 } from './1795700000000-outage-retries';
import { Deletes1796000000000 } from './1796000000000-deletes';
import { Webhooks1796100000000 } from './1796100000000-webhooks';
import { CurrentLanguageCodes1796200000000 } from './1796200000000-current-language-codes';

/** In order of application. */
export const MIGRATIONS = [
  Initial1795362734068,
  OrderedClaims1795408464560,
  BatchPayloadText1795600000000,
  OutageRetries1795700000000,
  Deletes1796000000000,
  Webhooks1796100000000,
  CurrentLanguageCodes1796200000000,
];
