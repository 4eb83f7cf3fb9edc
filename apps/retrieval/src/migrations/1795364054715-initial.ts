import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795364054715 implements MigrationInterface {
  name = 'Initial1795364054715';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "retrieval"."chunks" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "collection" character varying(64) NOT NULL, "tenant" integer, "item_id" uuid NOT NULL, "client_item_id" character varying(255) NOT NULL, "n" integer NOT NULL, "text" text NOT NULL, "url" text, "metadata" jsonb NOT NULL DEFAULT '{}'::jsonb, "length" integer NOT NULL, CONSTRAINT "PK_a306e60b8fdf6e7de1be4be1e6a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "chunks_project_item_idx" ON "retrieval"."chunks" ("project_id", "item_id") `);
    await queryRunner.query(
      `CREATE TABLE "retrieval"."postings" ("project_id" uuid NOT NULL, "term" character varying(64) NOT NULL, "chunk_id" uuid NOT NULL, "tf" smallint NOT NULL, "length" integer NOT NULL, "tenant" integer, "collection" character varying(64) NOT NULL, CONSTRAINT "PK_6b0048e92e01a8c161f159fa0e0" PRIMARY KEY ("project_id", "term", "chunk_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "retrieval"."terms" ("project_id" uuid NOT NULL, "term" character varying(64) NOT NULL, "df" integer NOT NULL, CONSTRAINT "PK_ab1e05ecabe72037e9a31b74861" PRIMARY KEY ("project_id", "term"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "retrieval"."stats" ("project_id" uuid NOT NULL, "chunk_count" integer NOT NULL, "total_length" bigint NOT NULL, CONSTRAINT "PK_68e752b962b7b290489dd138674" PRIMARY KEY ("project_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "retrieval"."stats"`);
    await queryRunner.query(`DROP TABLE "retrieval"."terms"`);
    await queryRunner.query(`DROP TABLE "retrieval"."postings"`);
    await queryRunner.query(`DROP INDEX "retrieval"."chunks_project_item_idx"`);
    await queryRunner.query(`DROP TABLE "retrieval"."chunks"`);
  }
}
