import { Initial1795362735131 } from './1795362735131-initial';
import { Languages1795900000000 } from './1795900000000-languages';
import { TenantItems1796000000000 } from './1796000000000-tenant-items';
import { CurrentLanguageCodes1796200000000 } from './1796200000000-current-language-codes';
import { PackedItemData1796700000000 } from './1796700000000-packed-item-data';
import { ItemUpsertsKey1796900000000 } from './1796900000000-item-upserts-key';

/** In order of application. */
export const MIGRATIONS = [
  Initial1795362735131,
  Languages1795900000000,
  TenantItems1796000000000,
  CurrentLanguageCodes1796200000000,
  PackedItemData1796700000000,
  ItemUpsertsKey1796900000000,
];
