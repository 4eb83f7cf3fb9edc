import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795362736169 implements MigrationInterface {
  name = 'Initial1795362736169';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "conversation"."users" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "external_id" character varying(255) NOT NULL, "name" character varying(255), "email" character varying(255), "avatar" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "users_project_external_uq" ON "conversation"."users" ("project_id", "external_id") `);
    await queryRunner.query(
      `CREATE TABLE "conversation"."chats" ("id" uuid NOT NULL, "project_id" uuid NOT NULL, "type" character varying(8) NOT NULL, "name" character varying(255) NOT NULL, "tenant" integer, "user_id" uuid, "feedback" text, "collections" jsonb, "filter" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_0117647b3c4a4e5ff198aeb6206" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "chats_project_user_idx" ON "conversation"."chats" ("project_id", "user_id") `);
    await queryRunner.query(`CREATE INDEX "chats_project_type_idx" ON "conversation"."chats" ("project_id", "type", "id") `);
    await queryRunner.query(
      `CREATE TABLE "conversation"."messages" ("id" uuid NOT NULL, "chat_id" uuid NOT NULL, "project_id" uuid NOT NULL, "role" character varying(16) NOT NULL, "text" text NOT NULL, "text_html" text NOT NULL, "identifier" character varying(255), "user_id" uuid, "feedback" text, "sources" jsonb NOT NULL DEFAULT '[]'::jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_18325f38ae6de43878487eff986" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "messages_chat_idx" ON "conversation"."messages" ("chat_id", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "conversation"."messages_chat_idx"`);
    await queryRunner.query(`DROP TABLE "conversation"."messages"`);
    await queryRunner.query(`DROP INDEX "conversation"."chats_project_type_idx"`);
    await queryRunner.query(`DROP INDEX "conversation"."chats_project_user_idx"`);
    await queryRunner.query(`DROP TABLE "conversation"."chats"`);
    await queryRunner.query(`DROP INDEX "conversation"."users_project_external_uq"`);
    await queryRunner.query(`DROP TABLE "conversation"."users"`);
  }
}
