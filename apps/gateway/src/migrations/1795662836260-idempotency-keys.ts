import { MigrationInterface, QueryRunner } from 'typeorm';

export class IdempotencyKeys1795662836260 implements MigrationInterface {
  name = 'IdempotencyKeys1795662836260';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."idempotency_keys" ("project_id" uuid NOT NULL, "key" character varying(255) NOT NULL, "fingerprint" character(64) NOT NULL, "operation_id" uuid NOT NULL, "status" smallint, "response" text, "held_until" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_b7d758382ccdd4d6c3e0854cb14" PRIMARY KEY ("project_id", "key"))`,
    );
    await queryRunner.query(`CREATE INDEX "idempotency_keys_expires_idx" ON "gateway"."idempotency_keys" ("expires_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway"."idempotency_keys_expires_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."idempotency_keys"`);
  }
}
