import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An item's upserts are read through the primary key (item, upsert; upsert ids are time-ordered), so the index on
 * (item, created_at) served no statement: it is dropped (about 5 MB at 100,000 items, and a write less per link).
 */
export class ItemUpsertsKey1796900000000 implements MigrationInterface {
  name = 'ItemUpsertsKey1796900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "catalog"."item_upserts_item_idx"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "item_upserts_item_idx" ON "catalog"."item_upserts" ("item_id", "created_at")`);
  }
}
