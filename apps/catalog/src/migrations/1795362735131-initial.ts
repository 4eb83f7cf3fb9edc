import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795362735131 implements MigrationInterface {
  name = 'Initial1795362735131';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "catalog"."collections" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "slug" character varying(64) NOT NULL, "name" character varying(255) NOT NULL, "source" character varying(255) NOT NULL, "declared_fields" jsonb NOT NULL DEFAULT '{}'::jsonb, "inferred_fields" jsonb NOT NULL DEFAULT '{}'::jsonb, "items_count" integer NOT NULL DEFAULT '0', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_21c00b1ebbd41ba1354242c5c4e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "collections_project_slug_uq" ON "catalog"."collections" ("project_id", "slug") `);
    await queryRunner.query(
      `CREATE TABLE "catalog"."items" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "collection_id" uuid NOT NULL, "item_id" character varying(255) NOT NULL, "tenant" integer, "url" text, "data" jsonb NOT NULL, "metadata" jsonb NOT NULL DEFAULT '{}'::jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_ba5885359424c15ca6b9e79bcf6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "items_collection_idx" ON "catalog"."items" ("collection_id", "id") `);
    await queryRunner.query(`CREATE INDEX "items_project_item_id_idx" ON "catalog"."items" ("project_id", "item_id") `);
    await queryRunner.query(`CREATE INDEX "items_project_id_idx" ON "catalog"."items" ("project_id", "id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "items_project_collection_item_uq" ON "catalog"."items" ("project_id", "collection_id", "item_id") `);
    await queryRunner.query(
      `CREATE TABLE "catalog"."item_upserts" ("item_id" uuid NOT NULL, "upsert_id" uuid NOT NULL, "project_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_62d6366c8a5da764a21359bdbfd" PRIMARY KEY ("item_id", "upsert_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "item_upserts_item_idx" ON "catalog"."item_upserts" ("item_id", "created_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "catalog"."item_upserts_item_idx"`);
    await queryRunner.query(`DROP TABLE "catalog"."item_upserts"`);
    await queryRunner.query(`DROP INDEX "catalog"."items_project_collection_item_uq"`);
    await queryRunner.query(`DROP INDEX "catalog"."items_project_id_idx"`);
    await queryRunner.query(`DROP INDEX "catalog"."items_project_item_id_idx"`);
    await queryRunner.query(`DROP INDEX "catalog"."items_collection_idx"`);
    await queryRunner.query(`DROP TABLE "catalog"."items"`);
    await queryRunner.query(`DROP INDEX "catalog"."collections_project_slug_uq"`);
    await queryRunner.query(`DROP TABLE "catalog"."collections"`);
  }
}
