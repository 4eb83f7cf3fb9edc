import { MigrationInterface, QueryRunner } from 'typeorm';

/** Blocks counted by one statement of the migration. */
const SLICE = 5000;
/** The blocks' key, its columns qualified by `of`. */
const key = (of = '') => ['project_id', 'term', 'band', 'block', 'collection'].map((column) => `${of}${column}`).join(', ');

/**
 * Each block of postings counts its postings (`n`), and a term's document frequency is the sum over its blocks, so
 * an index write no longer updates a row per term of its batch in `terms`. The service no longer reads or writes
 * `terms`; the table stays for replicas of the release before during a rolling upgrade, as does a trigger that
 * counts the postings of a block they write or change without counting them. The release after this one drops both.
 *
 * Not one transaction: the blocks written before are counted a slice at a time in key order, so the index stays
 * open to reads and writes meanwhile (a slice's rows locked at a time, not the table for the whole count), and every
 * step may run again: a migration cut short counts what is left when it runs next.
 */
export class BlockCounts1796300000000 implements MigrationInterface {
  name = 'BlockCounts1796300000000';
  transaction = false;

  /** @param slice blocks counted by one statement. */
  constructor(private readonly slice = SLICE) {}

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" ADD COLUMN IF NOT EXISTS "n" integer`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "retrieval"."count_block_postings"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.n := cardinality(NEW.chunk_ids);
        RETURN NEW;
      END $$`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS "posting_blocks_counted" ON "retrieval"."posting_blocks"`);
    await queryRunner.query(
      `CREATE TRIGGER "posting_blocks_counted" BEFORE INSERT ON "retrieval"."posting_blocks" FOR EACH ROW WHEN (NEW.n IS NULL) EXECUTE FUNCTION "retrieval"."count_block_postings"()`,
    );
    await queryRunner.query(`DROP TRIGGER IF EXISTS "posting_blocks_recounted" ON "retrieval"."posting_blocks"`);
    await queryRunner.query(
      `CREATE TRIGGER "posting_blocks_recounted" BEFORE UPDATE OF "chunk_ids" ON "retrieval"."posting_blocks" FOR EACH ROW WHEN (NEW.n IS NOT DISTINCT FROM OLD.n) EXECUTE FUNCTION "retrieval"."count_block_postings"()`,
    );
    // The blocks written before, a slice of the key at a time, each slice after the last one's greatest key.
    let after: unknown[] = [];
    for (;;) {
      const [last] = (await queryRunner.query(
        `WITH s AS (
           SELECT ${key()} FROM "retrieval"."posting_blocks" WHERE ${after.length ? `(${key()}) > ($1, $2, $3, $4, $5)` : 'true'} ORDER BY ${key()} LIMIT ${this.slice}),
         counted AS (
           UPDATE "retrieval"."posting_blocks" b SET "n" = cardinality(b.chunk_ids) FROM s WHERE (${key('b.')}) = (${key('s.')}) AND b.n IS NULL)
         SELECT ${key()}, (SELECT count(*) FROM s)::int AS taken FROM s ORDER BY ${key()} DESC LIMIT 1`,
        after,
      )) as Array<Record<string, unknown> & { taken: number }>;
      if (!last || last.taken < this.slice) break;
      const { taken: _taken, ...greatest } = last;
      after = Object.values(greatest);
    }
  }

  /** In one transaction: the release before finds its document frequencies in `terms`, counted again from the blocks. */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      await queryRunner.query(`DROP TRIGGER IF EXISTS "posting_blocks_recounted" ON "retrieval"."posting_blocks"`);
      await queryRunner.query(`DROP TRIGGER IF EXISTS "posting_blocks_counted" ON "retrieval"."posting_blocks"`);
      await queryRunner.query(`DROP FUNCTION IF EXISTS "retrieval"."count_block_postings"()`);
      await queryRunner.query(`DELETE FROM "retrieval"."terms"`);
      await queryRunner.query(
        `INSERT INTO "retrieval"."terms" (project_id, term, df)
         SELECT project_id, term, sum(cardinality(chunk_ids)) FROM "retrieval"."posting_blocks" GROUP BY 1, 2 HAVING sum(cardinality(chunk_ids)) > 0`,
      );
      await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" DROP COLUMN "n"`);
      await queryRunner.commitTransaction();
    } catch (e) {
      await queryRunner.rollbackTransaction();
      throw e;
    }
  }
}
