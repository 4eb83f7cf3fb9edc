import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795362732772 implements MigrationInterface {
  name = 'Initial1795362732772';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."projects" ("id" uuid NOT NULL, "name" character varying(255) NOT NULL, "tenancy" character varying(8) NOT NULL, "instructions" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_6271df0a7aed1d6c0691ce6ac50" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "gateway"."api_keys" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "name" character varying(255), "prefix" character varying(16) NOT NULL, "key_hash" character(64) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "api_keys_project_idx" ON "gateway"."api_keys" ("project_id", "id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "api_keys_hash_uq" ON "gateway"."api_keys" ("key_hash") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway"."api_keys_hash_uq"`);
    await queryRunner.query(`DROP INDEX "gateway"."api_keys_project_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."api_keys"`);
    await queryRunner.query(`DROP TABLE "gateway"."projects"`);
  }
}
