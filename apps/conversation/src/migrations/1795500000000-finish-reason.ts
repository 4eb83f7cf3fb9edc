import { MigrationInterface, QueryRunner } from 'typeorm';

/** How an answer ended; the answers stored before were taken as whole. */
export class FinishReason1795500000000 implements MigrationInterface {
  name = 'FinishReason1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation"."messages" ADD "finish_reason" character varying(16)`);
    await queryRunner.query(`UPDATE "conversation"."messages" SET "finish_reason" = 'complete' WHERE "role" = 'assistant'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation"."messages" DROP COLUMN "finish_reason"`);
  }
}
