import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Impact-ordered postings and a forward index per chunk. Existing postings are converted in place: each gets
 * its impact (BM25 term-frequency part with the defaults k1 = 0.9, b = 0.4 and the project's current average
 * length), and each chunk's forward index is built from its postings, so nothing needs re-ingesting.
 */
export class ImpactOrderedPostings1795385738237 implements MigrationInterface {
  name = 'ImpactOrderedPostings1795385738237';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "terms" jsonb NOT NULL DEFAULT '{}'`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ADD "impact" integer`);
    await queryRunner.query(`
      UPDATE "retrieval"."postings" p
      SET impact = GREATEST(1, round(10000 * p.tf * 1.9 / (p.tf + 0.9 * (0.6 + 0.4 * p.length / GREATEST(s.total_length::float8 / NULLIF(s.chunk_count, 0), 1)))))
      FROM "retrieval"."stats" s WHERE s.project_id = p.project_id`);
    await queryRunner.query(`UPDATE "retrieval"."postings" SET impact = 1 WHERE impact IS NULL`);
    await queryRunner.query(`
      UPDATE "retrieval"."chunks" c SET terms = f.terms
      FROM (SELECT chunk_id, jsonb_object_agg(term, jsonb_build_array(tf, impact)) AS terms FROM "retrieval"."postings" GROUP BY chunk_id) f
      WHERE f.chunk_id = c.id`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" DROP CONSTRAINT "PK_6b0048e92e01a8c161f159fa0e0"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" DROP COLUMN "tf"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" DROP COLUMN "length"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ALTER COLUMN "impact" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ADD CONSTRAINT "PK_4a3df5b551b8cfac99ea9a4468c" PRIMARY KEY ("project_id", "term", "impact", "chunk_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" DROP CONSTRAINT "PK_4a3df5b551b8cfac99ea9a4468c"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ADD "tf" smallint`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ADD "length" integer`);
    await queryRunner.query(`
      UPDATE "retrieval"."postings" p SET tf = (c.terms->p.term->>0)::int, length = c.length
      FROM "retrieval"."chunks" c WHERE c.id = p.chunk_id`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ALTER COLUMN "tf" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ALTER COLUMN "length" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" DROP COLUMN "impact"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."postings" ADD CONSTRAINT "PK_6b0048e92e01a8c161f159fa0e0" PRIMARY KEY ("project_id", "term", "chunk_id")`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP COLUMN "terms"`);
  }
}
