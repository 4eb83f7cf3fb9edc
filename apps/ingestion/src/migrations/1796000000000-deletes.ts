import { MigrationInterface, QueryRunner } from 'typeorm';

/** Deletes are queued among a project's upserts: what each row is, and what a delete removes. */
export class Deletes1796000000000 implements MigrationInterface {
  name = 'Deletes1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" ADD "kind" character varying(16) NOT NULL DEFAULT 'upsert'`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" ADD "target" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" DROP COLUMN "target"`);
    await queryRunner.query(`ALTER TABLE "ingestion"."upserts" DROP COLUMN "kind"`);
  }
}
