import { MigrationInterface, QueryRunner } from 'typeorm';
import { unpackForward } from '../index/forward-entries';

/**
 * Chunks' forward indexes written from now on are stored compressed (`forward`, see `packForward`) and `terms` is left
 * null. Rows written before keep their `terms` until their item is indexed again. Undone by reading each packed row
 * back into `terms`, a thousand rows a statement.
 */
export class PackedForwardIndex1796800000000 implements MigrationInterface {
  name = 'PackedForwardIndex1796800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "forward" bytea, ALTER COLUMN "terms" DROP NOT NULL, ALTER COLUMN "terms" DROP DEFAULT`);
    // The bytes are compressed already: PostgreSQL is not to try again.
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ALTER COLUMN "forward" SET STORAGE EXTERNAL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (;;) {
      const rows = (await queryRunner.query(`SELECT id::text AS id, forward FROM "retrieval"."chunks" WHERE forward IS NOT NULL LIMIT 1000`)) as Array<{
        id: string;
        forward: Buffer;
      }>;
      if (rows.length === 0) break;
      const terms = rows.map((r) => {
        const { names, entries } = unpackForward(r.forward);
        return JSON.stringify(Object.fromEntries(names.map((name, k) => [name, entries[k]])));
      });
      await queryRunner.query(`UPDATE "retrieval"."chunks" c SET terms = u.terms, forward = NULL FROM unnest($1::bigint[], $2::jsonb[]) AS u(id, terms) WHERE c.id = u.id`, [
        rows.map((r) => r.id),
        terms,
      ]);
    }
    await queryRunner.query(`UPDATE "retrieval"."chunks" SET terms = '{}' WHERE terms IS NULL`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP COLUMN "forward", ALTER COLUMN "terms" SET DEFAULT '{}', ALTER COLUMN "terms" SET NOT NULL`);
  }
}
