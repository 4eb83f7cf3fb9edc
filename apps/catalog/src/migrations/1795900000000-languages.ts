import { MigrationInterface, QueryRunner } from 'typeorm';

/** The language of each item (given, the collection's, or detected) and the one declared for a collection. */
export class Languages1795900000000 implements MigrationInterface {
  name = 'Languages1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "catalog"."collections" ADD "language" character varying(8)`);
    await queryRunner.query(`ALTER TABLE "catalog"."items" ADD "language" character varying(8)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "catalog"."items" DROP COLUMN "language"`);
    await queryRunner.query(`ALTER TABLE "catalog"."collections" DROP COLUMN "language"`);
  }
}
