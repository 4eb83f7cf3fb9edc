import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chunk rows are compressed with LZ4 where the server has it (`default_toast_compression` offers `lz4`): the forward
 * index (jsonb) and the text take half the room, a row is written no slower and read as fast, and the page holds four
 * rows instead of two. Without LZ4 (the embedded database), rows stayed whole and uncompressed (`ChunkNumbers`)
 * until `PglzChunks` chose pglz's room over its time. Rows written before are compressed when rewritten
 * (`VACUUM FULL retrieval.chunks`).
 */
export class CompressedChunks1796500000000 implements MigrationInterface {
  name = 'CompressedChunks1796500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    if (!(await hasLz4(queryRunner))) return;
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" RESET (toast_tuple_target)`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ALTER COLUMN "terms" SET COMPRESSION lz4, ALTER COLUMN "text" SET COMPRESSION lz4`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    if (!(await hasLz4(queryRunner))) return;
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ALTER COLUMN "terms" SET COMPRESSION default, ALTER COLUMN "text" SET COMPRESSION default`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" SET (toast_tuple_target = 8160)`);
  }
}

/** Whether the server offers LZ4 for TOAST compression (a query runner, or a data source). */
export async function hasLz4(queryRunner: { query(sql: string): Promise<unknown> }): Promise<boolean> {
  const rows = (await queryRunner.query(`SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)`)) as unknown[];
  return rows.length > 0;
}
