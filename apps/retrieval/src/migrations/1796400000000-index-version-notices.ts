import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every new version of an index, and every dropped index, is announced to the replicas of retrieval as it commits
 * (NOTIFY on `askdata_retrieval_versions`, `MemoryIndexes`), whichever release of retrieval wrote it: a replica that
 * hears them all searches its memory without asking the database for the index's version.
 */
export class IndexVersionNotices1796400000000 implements MigrationInterface {
  name = 'IndexVersionNotices1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "retrieval"."announce_index_version"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM pg_notify('askdata_retrieval_versions', OLD.project_id::text || ' ' || OLD.version::text || ' dropped');
        ELSIF TG_OP = 'INSERT' OR NEW.version <> OLD.version THEN
          PERFORM pg_notify('askdata_retrieval_versions', NEW.project_id::text || ' ' || NEW.version::text);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "stats_version_announced" AFTER INSERT OR UPDATE OR DELETE ON "retrieval"."stats" FOR EACH ROW EXECUTE FUNCTION "retrieval"."announce_index_version"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "stats_version_announced" ON "retrieval"."stats"`);
    await queryRunner.query(`DROP FUNCTION "retrieval"."announce_index_version"()`);
  }
}
