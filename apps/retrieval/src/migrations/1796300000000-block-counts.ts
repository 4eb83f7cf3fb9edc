import { MigrationInterface, QueryRunner } from 'typeorm';

/** Blocks counted by one statement of the migration. */
const SLICE = 5000;
const KEY = 'project_id, term, band, block, collection';

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
    // The blocks written before, a slice of the key at a time: from the last key counted to the slice-th after it.
    let after: unknown[] | null = null;
    for (;;) {
      const since = after ? `(${KEY}) > ($1, $2, $3, $4, $5)` : 'true';
      const [upto] = (await queryRunner.query(
        `SELECT ${KEY} FROM "retrieval"."posting_blocks" WHERE ${since} ORDER BY ${KEY} OFFSET ${this.slice - 1} LIMIT 1`,
        after ?? [],
      )) as Array<Record<string, unknown> | undefined>;
      const params = [...(after ?? []), ...(upto ? Object.values(upto) : [])];
      const to = upto ? `(${KEY}) <= ($${params.length - 4}, $${params.length - 3}, $${params.length - 2}, $${params.length - 1}, $${params.length})` : 'true';
      await queryRunner.query(`UPDATE "retrieval"."posting_blocks" SET "n" = cardinality("chunk_ids") WHERE "n" IS NULL AND ${since} AND ${to}`, params);
      if (!upto) break;
      after = Object.values(upto);
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
