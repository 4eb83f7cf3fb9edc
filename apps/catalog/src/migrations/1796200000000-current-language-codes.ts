import { WITHDRAWN_LANGUAGE_CODES } from '@askdata/contracts';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Items and collections stored with a code withdrawn from ISO 639-1 (`iw`, `in`, ...) before such codes were refused
 * get the code that replaced it (`he`, `id`, ...), the one the API now takes and answers with. Their chunks in
 * retrieval are relabelled by retrieval's own migration, not re-analyzed. Not undone: which rows had the old code is
 * not kept.
 */
export class CurrentLanguageCodes1796200000000 implements MigrationInterface {
  name = 'CurrentLanguageCodes1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const codes = [Object.keys(WITHDRAWN_LANGUAGE_CODES), Object.values(WITHDRAWN_LANGUAGE_CODES)];
    for (const table of ['collections', 'items']) {
      await queryRunner.query(
        `UPDATE "catalog"."${table}" t SET language = m.code FROM unnest($1::text[], $2::text[]) AS m(withdrawn, code) WHERE t.language = m.withdrawn`,
        codes,
      );
    }
  }

  public async down(): Promise<void> {
    // Nothing to undo: the current codes are valid in every release.
  }
}
