import { MigrationInterface, QueryRunner } from 'typeorm';

export class KeyKinds1795684130996 implements MigrationInterface {
  name = 'KeyKinds1795684130996';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "gateway"."session_chats" ("chat_id" uuid NOT NULL, "project_id" uuid NOT NULL, "tenant" integer, "subject" character varying(300) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_37a5dabf93b8d84d3bf24ba8c12" PRIMARY KEY ("chat_id"))`,
    );
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" ADD "kind" character varying(16) NOT NULL DEFAULT 'secret'`);
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" ADD "origins" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" ADD "last_used_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" DROP COLUMN "last_used_at"`);
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" DROP COLUMN "origins"`);
    await queryRunner.query(`ALTER TABLE "gateway"."api_keys" DROP COLUMN "kind"`);
    await queryRunner.query(`DROP TABLE "gateway"."session_chats"`);
  }
}
