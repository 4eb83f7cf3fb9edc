import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The language each chunk was analyzed in (chunks indexed before were analyzed as English), and the languages of
 * each project's chunks, counted from the chunks already indexed (all English).
 */
export class Languages1795900000000 implements MigrationInterface {
  name = 'Languages1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "language" character varying(8) NOT NULL DEFAULT 'en'`);
    await queryRunner.query(
      `CREATE TABLE "retrieval"."project_languages" ("project_id" uuid NOT NULL, "language" character varying(8) NOT NULL, "chunks" bigint NOT NULL, CONSTRAINT "PK_project_languages" PRIMARY KEY ("project_id", "language"))`,
    );
    await queryRunner.query(
      `INSERT INTO "retrieval"."project_languages" (project_id, language, chunks) SELECT project_id, 'en', count(*) FROM "retrieval"."chunks" GROUP BY project_id`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "retrieval"."project_languages"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP COLUMN "language"`);
  }
}
