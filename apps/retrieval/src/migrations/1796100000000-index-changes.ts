import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every write to an index gives it a new version (from a sequence, so a key dropped and written again never repeats
 * one) and records the items it changed, so that each replica's memory index can tell it is behind and catch up.
 * Indexes written before have no changes recorded: a memory index loads them whole.
 */
export class IndexChanges1796100000000 implements MigrationInterface {
  name = 'IndexChanges1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."stats" ADD "version" bigint NOT NULL DEFAULT '0'`);
    await queryRunner.query(`CREATE SEQUENCE "retrieval"."index_version_seq" AS bigint START WITH 1`);
    // Indexes written before get a version of their own (0 stays "no index"), and a write that leaves the version
    // as it was (a replica of the release before, during a rolling upgrade) gets a new one: with no change recorded
    // for it, memory indexes load the index again instead of missing the write.
    await queryRunner.query(`UPDATE "retrieval"."stats" SET "version" = nextval('"retrieval"."index_version_seq"')`);
    await queryRunner.query(`
      CREATE FUNCTION "retrieval"."new_index_version"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (TG_OP = 'INSERT' AND NEW.version = 0) OR (TG_OP = 'UPDATE' AND NEW.version = OLD.version) THEN
          NEW.version := nextval('"retrieval"."index_version_seq"');
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "stats_version" BEFORE INSERT OR UPDATE ON "retrieval"."stats" FOR EACH ROW EXECUTE FUNCTION "retrieval"."new_index_version"()`);
    await queryRunner.query(
      `CREATE TABLE "retrieval"."index_changes" ("project_id" uuid NOT NULL, "version" bigint NOT NULL, "previous" bigint NOT NULL, "item_ids" uuid array NOT NULL, CONSTRAINT "PK_index_changes" PRIMARY KEY ("project_id", "version"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "stats_version" ON "retrieval"."stats"`);
    await queryRunner.query(`DROP FUNCTION "retrieval"."new_index_version"()`);
    await queryRunner.query(`DROP TABLE "retrieval"."index_changes"`);
    await queryRunner.query(`DROP SEQUENCE "retrieval"."index_version_seq"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."stats" DROP COLUMN "version"`);
  }
}
