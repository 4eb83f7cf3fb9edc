import { MigrationInterface, QueryRunner } from 'typeorm';
import { hasLz4 } from './1796500000000-compressed-chunks';

/**
 * Chunk rows are compressed where the server has no LZ4 as well (the embedded database of standalone mode), with
 * PostgreSQL's own pglz: at 100,000 items of ~1.2 KB the chunks took about half the room, for a few microseconds more a
 * chunk written and read (`docs/benchmarks.md`). Rows written before are compressed when rewritten.
 */
export class PglzChunks1796600000000 implements MigrationInterface {
  name = 'PglzChunks1796600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    if (await hasLz4(queryRunner)) return;
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" RESET (toast_tuple_target)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    if (await hasLz4(queryRunner)) return;
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" SET (toast_tuple_target = 8160)`);
  }
}
