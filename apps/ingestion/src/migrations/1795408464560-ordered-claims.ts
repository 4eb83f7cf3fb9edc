import { MigrationInterface, QueryRunner } from 'typeorm';

export class OrderedClaims1795408464560 implements MigrationInterface {
  name = 'OrderedClaims1795408464560';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "upserts_unfinished_idx" ON "ingestion"."upserts" ("project_id", "id") WHERE status IN ('queued', 'processing')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ingestion"."upserts_unfinished_idx"`);
  }
}
