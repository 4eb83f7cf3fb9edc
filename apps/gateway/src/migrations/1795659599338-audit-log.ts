import { MigrationInterface, QueryRunner } from 'typeorm';

export class AuditLog1795659599338 implements MigrationInterface {
  name = 'AuditLog1795659599338';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."audit_log" ("id" uuid NOT NULL, "action" character varying(32) NOT NULL, "actor" character varying(64) NOT NULL, "address" character varying(64) NOT NULL, "project_id" uuid, "key_id" uuid, "details" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_07fefa57f7f5ab8fc3f52b3ed0b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "audit_log_project_idx" ON "gateway"."audit_log" ("project_id", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "gateway"."audit_log_project_idx"`);
    await queryRunner.query(`DROP TABLE "gateway"."audit_log"`);
  }
}
