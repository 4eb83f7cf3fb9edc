import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BusRequest, HealthReport, Out, Subjects } from '@askdata/contracts';
import { databaseHealth } from '@askdata/common';
import { DataSource } from 'typeorm';
import { CollectionsService } from './collections/collections.service';
import { ItemsService } from './items/items.service';
import { DeletesService } from './items/deletes.service';

const S = Subjects.catalog;

@Controller()
export class CatalogController {
  constructor(
    private readonly items: ItemsService,
    private readonly collections: CollectionsService,
    private readonly deletes: DeletesService,
    private readonly ds: DataSource,
  ) {}

  @MessagePattern(S.batchApply)
  applyBatch(@Payload() req: BusRequest<typeof S.batchApply>): Out<typeof S.batchApply> {
    return this.items.applyBatch(req);
  }

  @MessagePattern(S.itemsList)
  listItems(@Payload() req: BusRequest<typeof S.itemsList>): Out<typeof S.itemsList> {
    return this.items.list(req);
  }

  @MessagePattern(S.itemsGet)
  getItem(@Payload() req: BusRequest<typeof S.itemsGet>): Out<typeof S.itemsGet> {
    return this.items.get(req.scope, req.id);
  }

  @MessagePattern(S.collectionsList)
  listCollections(@Payload() req: BusRequest<typeof S.collectionsList>): Out<typeof S.collectionsList> {
    return this.collections.list(req);
  }

  @MessagePattern(S.collectionsGet)
  getCollection(@Payload() req: BusRequest<typeof S.collectionsGet>): Out<typeof S.collectionsGet> {
    return this.collections.get(req.scope, req.id);
  }

  @MessagePattern(S.collectionsResolve)
  resolveCollections(@Payload() req: BusRequest<typeof S.collectionsResolve>): Out<typeof S.collectionsResolve> {
    return this.collections.resolve(req);
  }

  @MessagePattern(S.fieldsCheck)
  checkFields(@Payload() req: BusRequest<typeof S.fieldsCheck>): Out<typeof S.fieldsCheck> {
    return this.collections.checkFields(req);
  }

  @MessagePattern(S.deletesSelect)
  selectDeleted(@Payload() req: BusRequest<typeof S.deletesSelect>): Out<typeof S.deletesSelect> {
    return this.deletes.select(req);
  }

  @MessagePattern(S.deletesApply)
  applyDelete(@Payload() req: BusRequest<typeof S.deletesApply>): Out<typeof S.deletesApply> {
    return this.deletes.apply(req);
  }

  @MessagePattern(S.health)
  health(): Promise<HealthReport> {
    return databaseHealth('catalog', this.ds);
  }
}
