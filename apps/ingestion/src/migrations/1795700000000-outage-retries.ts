import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Attempts that found a service unavailable are retried for UPSERT_OUTAGE_RETRY_MS without counting against
 * UPSERT_MAX_ATTEMPTS: how many there were and since when; and whether a failed attempt had its items stored in catalog.
 */
export class OutageRetries1795700000000 implements MigrationInterface {
  name = 'OutageRetries1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" ADD "outage_attempts" integer NOT NULL DEFAULT '0'`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" ADD "outage_since" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" ADD "items_stored" boolean NOT NULL DEFAULT false`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" DROP COLUMN "items_stored"`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" DROP COLUMN "outage_since"`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" DROP COLUMN "outage_attempts"`);
  }
}
