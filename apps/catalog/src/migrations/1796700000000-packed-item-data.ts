import { MigrationInterface, QueryRunner } from 'typeorm';
import { unpackJson } from '@askdata/common';

/**
 * Items' data written from now on is stored compressed (`packed`, see `packJson`) and `data` is left null. Rows
 * written before keep their `data` until their item is upserted again. Undone by reading each packed row back into
 * `data`, a thousand rows a statement.
 */
export class PackedItemData1796700000000 implements MigrationInterface {
  name = 'PackedItemData1796700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "catalog"."items" ADD "packed" bytea, ALTER COLUMN "data" DROP NOT NULL`);
    // The bytes are compressed already: PostgreSQL is not to try again.
    await queryRunner.query(`ALTER TABLE "catalog"."items" ALTER COLUMN "packed" SET STORAGE EXTERNAL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (;;) {
      const rows = (await queryRunner.query(`SELECT id, packed FROM "catalog"."items" WHERE packed IS NOT NULL LIMIT 1000`)) as Array<{ id: string; packed: Buffer }>;
      if (rows.length === 0) break;
      await queryRunner.query(`UPDATE "catalog"."items" i SET data = u.data, packed = NULL FROM unnest($1::uuid[], $2::jsonb[]) AS u(id, data) WHERE i.id = u.id`, [
        rows.map((r) => r.id),
        rows.map((r) => JSON.stringify(unpackJson(r.packed))),
      ]);
    }
    await queryRunner.query(`ALTER TABLE "catalog"."items" DROP COLUMN "packed", ALTER COLUMN "data" SET NOT NULL`);
  }
}
