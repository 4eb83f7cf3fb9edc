import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhooks: events written with the changes they report (outbox), or endpoints and their deliveries (gateway). */
export class Webhooks1796100000000 implements MigrationInterface {
  name = 'Webhooks1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "ingestion"."webhook_outbox" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "type" character varying(32) NOT NULL, "resource" character varying(16) NOT NULL, "data" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_f4a40df90155b6146edea062e4b" PRIMARY KEY ("id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "ingestion"."webhook_outbox"`);
  }
}
