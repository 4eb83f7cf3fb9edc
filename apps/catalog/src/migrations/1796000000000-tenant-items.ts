import { MigrationInterface, QueryRunner } from 'typeorm';

/** A tenant's items are found by tenant (deleting a tenant). */
export class TenantItems1796000000000 implements MigrationInterface {
  name = 'TenantItems1796000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "items_project_tenant_idx" ON "catalog"."items" ("project_id", "tenant", "id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "catalog"."items_project_tenant_idx"`);
  }
}
