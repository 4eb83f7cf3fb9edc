import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhooks: events written with the changes they report (outbox), or endpoints and their deliveries (gateway). */
export class Webhooks1796100000000 implements MigrationInterface {
  name = 'Webhooks1796100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."webhook_endpoints" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "url" text NOT NULL, "events" jsonb NOT NULL, "secret" character varying(80) NOT NULL, "enabled" boolean NOT NULL, "disabled_reason" text, "disabled_at" TIMESTAMP WITH TIME ZONE, "consecutive_failures" integer NOT NULL DEFAULT '0', "failing_since" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_054c4cfb95223732f5939d2d546" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "webhook_endpoints_project_idx" ON "gateway"."webhook_endpoints" ("project_id", "id") `);
    await queryRunner.query(
      `CREATE TABLE "gateway"."webhook_deliveries" ("id" uuid NOT NULL, "endpoint_id" uuid NOT NULL, "event_id" uuid NOT NULL, "event_type" character varying(32) NOT NULL, "body" text NOT NULL, "status" character varying(16) NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "next_at" TIMESTAMP WITH TIME ZONE NOT NULL, "lease_until" TIMESTAMP WITH TIME ZONE, "last_status_code" integer, "last_error" text, "last_attempt_at" TIMESTAMP WITH TIME ZONE, "delivered_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "webhook_deliveries_event_key" UNIQUE ("endpoint_id", "event_id"), CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "webhook_deliveries_pending_idx" ON "gateway"."webhook_deliveries" ("endpoint_id", "id") WHERE status = 'pending'`);
    await queryRunner.query(
      `CREATE TABLE "gateway"."webhook_relays" ("source" character varying(32) NOT NULL, "owner" character varying(64) NOT NULL, "lease_until" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_7219d6783a1e09058551ddddd3a" PRIMARY KEY ("source"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "gateway"."webhook_relays"`);
    await queryRunner.query(`DROP INDEX "gateway"."webhook_deliveries_pending_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "gateway"."webhook_endpoints_project_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."webhook_endpoints"`);
  }
}
