import { WITHDRAWN_LANGUAGE_CODES } from '@askdata/contracts';
import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Batches accepted before codes withdrawn from ISO 639-1 (`iw`, `in`, ...) were refused, and not yet applied, give
 * their collection and items the code that replaced it (`he`, `id`, ...), so that catalog does not store the old code
 * again once its own migration has rewritten it. Only batches whose JSON names such a code are rewritten.
 */
export class CurrentLanguageCodes1796200000000 implements MigrationInterface {
  name = 'CurrentLanguageCodes1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const named = `"language":\\s*"(${Object.keys(WITHDRAWN_LANGUAGE_CODES).join('|')})"`;
    await queryRunner.query(
      `WITH codes AS (SELECT $1::jsonb AS m)
       UPDATE "ingestion"."upsert_batches" b SET payload = (
         SELECT jsonb_set(
           CASE WHEN codes.m ? (j #>> '{collection,language}') THEN jsonb_set(j, '{collection,language}', codes.m -> (j #>> '{collection,language}')) ELSE j END,
           '{items}',
           coalesce((SELECT jsonb_agg(CASE WHEN codes.m ? (it ->> 'language') THEN jsonb_set(it, '{language}', codes.m -> (it ->> 'language')) ELSE it END ORDER BY n)
                     FROM jsonb_array_elements(j -> 'items') WITH ORDINALITY AS x(it, n)), '[]'::jsonb))::text
         FROM (SELECT b.payload::jsonb AS j) p)
       FROM codes WHERE b.payload ~ $2`,
      [JSON.stringify(WITHDRAWN_LANGUAGE_CODES), named],
    );
  }

  public async down(): Promise<void> {
    // Nothing to undo: the current codes are valid in every release.
  }
}
