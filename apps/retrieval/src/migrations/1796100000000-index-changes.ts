import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every write to an index gives it a new version (from a sequence, so a key dropped and written again never repeats
 * one) and records the items it changed, so that each replica's memory index can tell it is behind and catch up.
 * Indexes written before have version 0 and no changes: a memory index loads them whole.
 */
export class IndexChanges1796100000000 implements MigrationInterface {
  name = 'IndexChanges1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."stats" ADD "version" bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`CREATE SEQUENCE "retrieval"."index_version_seq" AS bigint START WITH 1`);
    await queryRunner.query(
      `CREATE TABLE "retrieval"."index_changes" ("project_id" uuid NOT NULL, "version" bigint NOT NULL, "previous" bigint NOT NULL, "item_ids" uuid array NOT NULL, CONSTRAINT "PK_index_changes" PRIMARY KEY ("project_id", "version"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "retrieval"."index_changes"`);
    await queryRunner.query(`DROP SEQUENCE "retrieval"."index_version_seq"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."stats" DROP COLUMN "version"`);
  }
}
