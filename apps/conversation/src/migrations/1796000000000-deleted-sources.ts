import { MigrationInterface, QueryRunner } from 'typeorm';

/** Deletes find the messages citing an item through their sources; chats of a tenant are found by tenant. */
export class DeletedSources1796000000000 implements MigrationInterface {
  name = 'DeletedSources1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "messages_sources_idx" ON "conversation"."messages" USING gin ("sources" jsonb_path_ops)`);
    await queryRunner.query(`CREATE INDEX "chats_project_tenant_idx" ON "conversation"."chats" ("project_id", "tenant") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "conversation"."chats_project_tenant_idx"`);
    await queryRunner.query(`DROP INDEX "conversation"."messages_sources_idx"`);
  }
}
