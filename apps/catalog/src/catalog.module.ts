import { DynamicModule, Module } from '@nestjs/common';
import { BusModule, DatabaseModule, OpsModule, ServiceRuntime } from '@askdata/common';
import { CatalogConfig } from './catalog.config';
import { catalogDatabase } from './catalog.database';
import { CatalogController } from './catalog.controller';
import { CollectionsService } from './collections/collections.service';
import { ItemsService } from './items/items.service';
import { DeletesService } from './items/deletes.service';

@Module({})
export class CatalogModule {
  static forRoot(runtime: ServiceRuntime<CatalogConfig>): DynamicModule {
    return {
      module: CatalogModule,
      imports: [DatabaseModule.forService(catalogDatabase, runtime.database), BusModule.forRoot(runtime.bus, 'catalog'), OpsModule.forApp()],
      controllers: [CatalogController],
      providers: [CollectionsService, ItemsService, DeletesService],
    };
  }
}
