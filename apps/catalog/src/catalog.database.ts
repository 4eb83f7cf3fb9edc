import { ServiceDatabase } from '@askdata/common';
import { CollectionEntity } from './collections/collection.entity';
import { ItemEntity, ItemUpsertEntity } from './items/item.entity';
import { MIGRATIONS } from './migrations';

export const catalogDatabase: ServiceDatabase = {
  schema: 'catalog',
  entities: [CollectionEntity, ItemEntity, ItemUpsertEntity],
  migrations: MIGRATIONS,
};
