import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795362734068 implements MigrationInterface {
  name = 'Initial1795362734068';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ingestion"."upserts" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "collection" character varying(64) NOT NULL, "status" character varying(16) NOT NULL, "items_count" integer NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "available_at" TIMESTAMP WITH TIME ZONE NOT NULL, "lease_until" TIMESTAMP WITH TIME ZONE, "error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_21d89d5b11828f5a0262fe07ed2" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "upserts_claim_idx" ON "ingestion"."upserts" ("status", "available_at") `);
    await queryRunner.query(`CREATE INDEX "upserts_project_id_idx" ON "ingestion"."upserts" ("project_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "ingestion"."upsert_batches" ("upsert_id" uuid NOT NULL, "payload" jsonb NOT NULL, CONSTRAINT "PK_e6feaddc1ec28a6f8f80ea1c2bb" PRIMARY KEY ("upsert_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "ingestion"."upsert_batches"`);
    await queryRunner.query(`DROP INDEX "ingestion"."upserts_project_id_idx"`);
    await queryRunner.query(`DROP INDEX "ingestion"."upserts_claim_idx"`);
    await queryRunner.query(`DROP TABLE "ingestion"."upserts"`);
  }
}
