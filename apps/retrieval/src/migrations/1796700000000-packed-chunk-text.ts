import { unpackText } from '@askdata/common';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chunks' texts written from now on are stored compressed (`packed`, see `packText`) and `text` is left null. Rows
 * written before keep their `text` until their item is indexed again. Undone by reading each packed row back into
 * `text`, a thousand rows a statement.
 */
export class PackedChunkText1796700000000 implements MigrationInterface {
  name = 'PackedChunkText1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "packed" bytea, ALTER COLUMN "text" DROP NOT NULL`);
    // The bytes are compressed already: PostgreSQL is not to try again.
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ALTER COLUMN "packed" SET STORAGE EXTERNAL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (;;) {
      const rows = (await queryRunner.query(`SELECT id::text AS id, packed FROM "retrieval"."chunks" WHERE packed IS NOT NULL LIMIT 1000`)) as Array<{
        id: string;
        packed: Buffer;
      }>;
      if (rows.length === 0) break;
      await queryRunner.query(`UPDATE "retrieval"."chunks" c SET text = u.text, packed = NULL FROM unnest($1::bigint[], $2::text[]) AS u(id, text) WHERE c.id = u.id`, [
        rows.map((r) => r.id),
        rows.map((r) => unpackText(r.packed)),
      ]);
    }
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP COLUMN "packed", ALTER COLUMN "text" SET NOT NULL`);
  }
}
