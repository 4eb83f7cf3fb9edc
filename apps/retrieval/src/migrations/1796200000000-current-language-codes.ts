import { WITHDRAWN_LANGUAGE_CODES } from '@askdata/contracts';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chunks stored with a code withdrawn from ISO 639-1 (`iw`, `in`, ...) before such codes were refused are relabelled
 * with the code that replaced it (`he`, `id`, ...), as catalog relabels their items; each project's chunk counts per
 * language (and those of a rebuild under way) are merged into the current code's.
 *
 * Only the code is rewritten. The chunks are not re-analyzed: their terms stay as the withdrawn code's rules (none,
 * as an unknown language) made them until the item is upserted again or the project's index is rebuilt. Points of
 * the Qdrant backend keep the code in their payload; a rebuild rewrites them.
 */
export class CurrentLanguageCodes1796200000000 implements MigrationInterface {
  name = 'CurrentLanguageCodes1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const codes = [Object.keys(WITHDRAWN_LANGUAGE_CODES), Object.values(WITHDRAWN_LANGUAGE_CODES)];
    const map = 'unnest($1::text[], $2::text[]) AS m(withdrawn, code)';
    await queryRunner.query(`UPDATE "retrieval"."chunks" c SET language = m.code FROM ${map} WHERE c.language = m.withdrawn`, codes);
    await queryRunner.query(
      `INSERT INTO "retrieval"."project_languages" (project_id, language, chunks)
       SELECT p.project_id, m.code, p.chunks FROM "retrieval"."project_languages" p JOIN ${map} ON p.language = m.withdrawn
       ON CONFLICT (project_id, language) DO UPDATE SET chunks = "project_languages".chunks + EXCLUDED.chunks`,
      codes,
    );
    await queryRunner.query(`DELETE FROM "retrieval"."project_languages" WHERE language = ANY($1::text[])`, [codes[0]]);
    await queryRunner.query(
      `UPDATE "retrieval"."project_indexes" p SET build_languages = (
         SELECT jsonb_object_agg(language, chunks) FROM (
           SELECT coalesce(m.code, e.key) AS language, sum(e.value::bigint) AS chunks
           FROM jsonb_each_text(p.build_languages) e LEFT JOIN ${map} ON m.withdrawn = e.key GROUP BY 1) merged)
       WHERE p.build_languages ?| $1::text[]`,
      codes,
    );
  }

  public async down(): Promise<void> {
    // Nothing to undo: the current codes are valid in every release.
  }
}
