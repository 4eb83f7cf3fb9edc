import { MigrationInterface, QueryRunner } from 'typeorm';
import { BAND_FLOORS } from '../index/bands';

/**
 * Postings in blocks: one row per (term, impact band, index batch, collection) holding the batch's postings of that
 * term and band as parallel arrays (chunk ids, impacts, tenants), in place of one row per (term, chunk). An item then
 * brings a fifth as many rows and B-tree entries. Existing postings are converted in place into one block per
 * (term, band, collection), numbered 0; each chunk records the block its postings are in, so nothing needs
 * re-ingesting. A posting's band is `width_bucket(impact, BAND_FLOORS)`, as the service computes it.
 */
export class PostingBlocks1795500000000 implements MigrationInterface {
  name = 'PostingBlocks1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SEQUENCE "retrieval"."posting_block_seq" AS bigint START WITH 1`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "block" bigint NOT NULL DEFAULT 0`);
    await queryRunner.query(`
      CREATE TABLE "retrieval"."posting_blocks" (
        "project_id" uuid NOT NULL,
        "term" character varying(64) NOT NULL,
        "band" smallint NOT NULL,
        "block" bigint NOT NULL,
        "collection" character varying(64) NOT NULL,
        "chunk_ids" uuid array NOT NULL,
        "impacts" integer array NOT NULL,
        "tenants" integer array NOT NULL,
        CONSTRAINT "PK_posting_blocks" PRIMARY KEY ("project_id", "term", "band", "block", "collection")
      )`);
    await queryRunner.query(
      `
      INSERT INTO "retrieval"."posting_blocks" (project_id, term, band, block, collection, chunk_ids, impacts, tenants)
      SELECT project_id, term, width_bucket(impact, $1::int[])::smallint, 0, collection,
             array_agg(chunk_id ORDER BY impact DESC, chunk_id), array_agg(impact ORDER BY impact DESC, chunk_id),
             array_agg(tenant ORDER BY impact DESC, chunk_id)
      FROM "retrieval"."postings" GROUP BY 1, 2, 3, 5`,
      [BAND_FLOORS],
    );
    await queryRunner.query(`DROP TABLE "retrieval"."postings"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "retrieval"."postings" (
        "project_id" uuid NOT NULL,
        "term" character varying(64) NOT NULL,
        "impact" integer NOT NULL,
        "chunk_id" uuid NOT NULL,
        "tenant" integer,
        "collection" character varying(64) NOT NULL,
        CONSTRAINT "PK_4a3df5b551b8cfac99ea9a4468c" PRIMARY KEY ("project_id", "term", "impact", "chunk_id")
      )`);
    await queryRunner.query(`
      INSERT INTO "retrieval"."postings" (project_id, term, impact, chunk_id, tenant, collection)
      SELECT b.project_id, b.term, p.impact, p.chunk_id, p.tenant, b.collection
      FROM "retrieval"."posting_blocks" b, unnest(b.chunk_ids, b.impacts, b.tenants) AS p(chunk_id, impact, tenant)`);
    await queryRunner.query(`DROP TABLE "retrieval"."posting_blocks"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP COLUMN "block"`);
    await queryRunner.query(`DROP SEQUENCE "retrieval"."posting_block_seq"`);
  }
}
