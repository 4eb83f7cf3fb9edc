import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which index each project has (its key, backend and analyzer version) and its rebuilds; chunks keep their item's
 * title, so that an index can be rebuilt from them. Projects indexed before are recorded with analyzer version 1
 * (English only) in the backend that holds them (PostgreSQL when it has statistics, Qdrant otherwise), under their
 * own id: the service rebuilds them with the current analyzer.
 */
export class IndexRebuilds1796000000000 implements MigrationInterface {
  name = 'IndexRebuilds1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" ADD "title" text`);
    await queryRunner.query(
      `CREATE TABLE "retrieval"."project_indexes" ("project_id" uuid NOT NULL, "live_key" uuid NOT NULL, "backend" character varying(16) NOT NULL, "analyzer" integer NOT NULL, "build_status" character varying(16) NOT NULL DEFAULT 'none', "build_reason" character varying(16), "build_key" uuid, "build_backend" character varying(16), "build_analyzer" integer, "build_cursor" text, "build_mark" bigint NOT NULL DEFAULT '0', "build_copied" boolean NOT NULL DEFAULT false, "build_languages" jsonb NOT NULL DEFAULT '{}', "chunks_done" bigint NOT NULL DEFAULT '0', "chunks_total" bigint NOT NULL DEFAULT '0', "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, "error" text, "owner" character varying(64), "lease_until" TIMESTAMP WITH TIME ZONE, "retired_key" uuid, "retired_backend" character varying(16), "retired_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_project_indexes" PRIMARY KEY ("project_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "retrieval"."build_writes" ("build_key" uuid NOT NULL, "item_id" uuid NOT NULL, "started" bigint NOT NULL, "done" bigint NOT NULL DEFAULT '0', "in_flight" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_build_writes" PRIMARY KEY ("build_key", "item_id"))`,
    );
    await queryRunner.query(`CREATE SEQUENCE "retrieval"."build_stamp_seq" AS bigint START WITH 1`);
    await queryRunner.query(
      `INSERT INTO "retrieval"."project_indexes" (project_id, live_key, backend, analyzer)
       SELECT project_id, project_id, 'postgres', 1 FROM "retrieval"."stats"
       UNION SELECT DISTINCT l.project_id, l.project_id, 'qdrant', 1 FROM "retrieval"."project_languages" l
         WHERE NOT EXISTS (SELECT 1 FROM "retrieval"."stats" s WHERE s.project_id = l.project_id)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP SEQUENCE "retrieval"."build_stamp_seq"`);
    await queryRunner.query(`DROP TABLE "retrieval"."build_writes"`);
    await queryRunner.query(`DROP TABLE "retrieval"."project_indexes"`);
    await queryRunner.query(`ALTER TABLE "retrieval"."chunks" DROP COLUMN "title"`);
  }
}
