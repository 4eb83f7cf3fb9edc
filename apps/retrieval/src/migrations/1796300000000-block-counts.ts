import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each block of postings counts its postings (`n`), and a term's document frequency is the sum over its blocks, so
 * an index write no longer updates a row per term of its batch in `terms`. The service no longer reads or writes
 * `terms`; the table stays for replicas of the release before during a rolling upgrade (which go on writing it, and
 * read it in their searches in SQL), as does a trigger that counts the postings of a block they write or change
 * without counting them. The release after this one drops both.
 */
export class BlockCounts1796300000000 implements MigrationInterface {
  name = 'BlockCounts1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" ADD "n" integer`);
    await queryRunner.query(`UPDATE "retrieval"."posting_blocks" SET "n" = cardinality("chunk_ids")`);
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" ALTER COLUMN "n" SET NOT NULL`);
    await queryRunner.query(`
      CREATE FUNCTION "retrieval"."count_block_postings"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.n := cardinality(NEW.chunk_ids);
        RETURN NEW;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "posting_blocks_counted" BEFORE INSERT ON "retrieval"."posting_blocks" FOR EACH ROW WHEN (NEW.n IS NULL) EXECUTE FUNCTION "retrieval"."count_block_postings"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "posting_blocks_recounted" BEFORE UPDATE OF "chunk_ids" ON "retrieval"."posting_blocks" FOR EACH ROW WHEN (NEW.n IS NOT DISTINCT FROM OLD.n) EXECUTE FUNCTION "retrieval"."count_block_postings"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "posting_blocks_recounted" ON "retrieval"."posting_blocks"`);
    await queryRunner.query(`DROP TRIGGER "posting_blocks_counted" ON "retrieval"."posting_blocks"`);
    await queryRunner.query(`DROP FUNCTION "retrieval"."count_block_postings"()`);
    // The release before keeps document frequencies in `terms`: they are counted again from the blocks.
    await queryRunner.query(`DELETE FROM "retrieval"."terms"`);
    await queryRunner.query(
      `INSERT INTO "retrieval"."terms" (project_id, term, df)
       SELECT project_id, term, sum(n) FROM "retrieval"."posting_blocks" GROUP BY 1, 2 HAVING sum(n) > 0`,
    );
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" DROP COLUMN "n"`);
  }
}
