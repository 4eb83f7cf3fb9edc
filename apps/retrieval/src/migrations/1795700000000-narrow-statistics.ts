import { MigrationInterface, QueryRunner } from 'typeorm';

/** Columns no query plan depends on, whose statistics are costly to gather: texts, forward indexes, posting arrays. */
const UNPLANNED: Array<[table: string, column: string]> = [
  ['chunks', 'text'],
  ['chunks', 'terms'],
  ['chunks', 'metadata'],
  ['chunks', 'url'],
  ['chunks', 'client_item_id'],
  ['posting_blocks', 'chunk_ids'],
  ['posting_blocks', 'impacts'],
  ['posting_blocks', 'tenants'],
];

/**
 * Analyse skips the index tables' wide columns. The index is analysed as it grows (`IndexVacuum`), and sorting a
 * sample of 30,000 chunk texts and forward indexes, or counting the elements of as many posting arrays, was most of
 * that work; no plan uses those statistics (metadata conditions are on its values, which have none).
 */
export class NarrowStatistics1795700000000 implements MigrationInterface {
  name = 'NarrowStatistics1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of UNPLANNED) {
      await queryRunner.query(`ALTER TABLE "retrieval"."${table}" ALTER COLUMN "${column}" SET STATISTICS 0`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of UNPLANNED) {
      await queryRunner.query(`ALTER TABLE "retrieval"."${table}" ALTER COLUMN "${column}" SET STATISTICS -1`);
    }
  }
}
