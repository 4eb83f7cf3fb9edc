import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An accepted batch is kept as the JSON text it was sent as, stored out of line without compression: it is written
 * once and read back once, whole, by the worker that claims it, so parsing it into jsonb on the way in, printing it
 * back on the way out and compressing it cost the database's time for nothing. Batches already stored keep their
 * content (jsonb printed as text is JSON).
 */
export class BatchPayloadText1795600000000 implements MigrationInterface {
  name = 'BatchPayloadText1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ingestion"."upsert_batches" ALTER COLUMN "payload" TYPE text USING "payload"::text`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upsert_batches" ALTER COLUMN "payload" SET STORAGE EXTERNAL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ingestion"."upsert_batches" ALTER COLUMN "payload" SET STORAGE EXTENDED`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upsert_batches" ALTER COLUMN "payload" TYPE jsonb USING "payload"::jsonb`);
  }
}
