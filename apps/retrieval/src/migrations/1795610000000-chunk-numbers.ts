import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chunks are numbered with 8-byte integers instead of uuids, and the posting blocks name their chunks by number: an
 * array of numbers is a third cheaper to write than one of uuids, and a block row is written for every term of every
 * index batch. A new chunk's number is its index batch's block number times 2^24 plus its place in the batch
 * (`chunkNumber`); chunks already indexed are numbered -1, -2, ... so that they never meet a new one, and every block
 * is rewritten with its chunks' numbers in the same order. Chunk rows of up to a page are kept whole and uncompressed
 * (`toast_tuple_target`): a chunk row is written once, and its forward index is read for every candidate it makes.
 */
export class ChunkNumbers1795610000000 implements MigrationInterface {
  name = 'ChunkNumbers1795610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "number" bigint`);
    await queryRunner.query(`
      UPDATE "retrieval"."chunks" c SET "number" = -r.n
      FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM "retrieval"."chunks") r WHERE c.id = r.id`);
    await this.renumberBlocks(queryRunner, 'bigint', 'id', 'number');
    await this.replaceChunkId(queryRunner, 'number');
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" SET (toast_tuple_target = 8160)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" RESET (toast_tuple_target)`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "uuid" uuid`);
    await queryRunner.query(`UPDATE "retrieval"."chunks" SET "uuid" = gen_random_uuid()`);
    await this.renumberBlocks(queryRunner, 'uuid', 'id', 'uuid');
    await this.replaceChunkId(queryRunner, 'uuid');
  }

  /** Makes the chunks' `column` their id (and primary key) in place of the current one. */
  private async replaceChunkId(queryRunner: QueryRunner, column: string): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP CONSTRAINT "PK_a306e60b8fdf6e7de1be4be1e6a"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP COLUMN "id"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" RENAME COLUMN "${column}" TO "id"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ALTER COLUMN "id" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD CONSTRAINT "PK_a306e60b8fdf6e7de1be4be1e6a" PRIMARY KEY ("id")`);
  }

  /** Rewrites every block's chunk array from the chunks' `from` column to their `to` column, keeping its order. */
  private async renumberBlocks(queryRunner: QueryRunner, type: string, from: string, to: string): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" ADD "renumbered" ${type} array`);
    await queryRunner.query(`
      UPDATE "retrieval"."posting_blocks" b SET "renumbered" = ARRAY(
        SELECT c."${to}" FROM unnest(b.chunk_ids) WITH ORDINALITY AS u(id, o)
        LEFT JOIN "retrieval"."chunks" c ON c."${from}" = u.id AND c.project_id = b.project_id ORDER BY u.o)`);
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" DROP COLUMN "chunk_ids"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" RENAME COLUMN "renumbered" TO "chunk_ids"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."posting_blocks" ALTER COLUMN "chunk_ids" SET NOT NULL`);
  }
}
