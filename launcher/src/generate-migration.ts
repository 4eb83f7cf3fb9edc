import 'reflect-metadata';
import { createDataSource, loadConfig, migrate, processEnv, setting } from '@askdata/common';
import { Client } from 'pg';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_NAMES, AppName, DATABASES } from './databases';

/**
 * Development tool: `generate-migration <app> <Name>` writes the migration that brings a freshly migrated
 * schema in line with the app's entities (like `typeorm migration:generate`), against a scratch database on
 * the local PostgreSQL (GENERATE_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/askdata_migrations_test).
 */
const toolSettings = {
  GENERATE_DATABASE_URL: setting.requiredString('Scratch database for generating migrations.', {
    default: 'postgres://postgres@127.0.0.1:5432/askdata_migrations_test',
  }),
};

async function main(): Promise<void> {
  const [app, name] = process.argv.slice(2);
  if (!(APP_NAMES as readonly string[]).includes(app) || !/^[A-Z][A-Za-z0-9]+$/.test(name ?? '')) {
    throw new Error(`Usage: generate-migration <${APP_NAMES.join('|')}> <PascalCaseName>`);
  }
  const { GENERATE_DATABASE_URL: url } = loadConfig(toolSettings, processEnv());
  const dbName = new URL(url).pathname.slice(1);
  if (!/test/.test(dbName)) throw new Error(`Refusing to use database "${dbName}": its name must contain "test".`);
  const admin = new Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}"`);
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();

  const db = DATABASES[app as AppName];
  const ds = createDataSource(db, { url, poolSize: 2, applicationName: 'generate-migration' });
  await ds.initialize();
  try {
    await migrate(ds, db.schema);
    const log = await ds.driver.createSchemaBuilder().log();
    if (log.upQueries.length === 0) {
      console.log(`${app}: entities and migrations agree; nothing to generate.`);
      return;
    }
    const ts = Date.now();
    const cls = `${name}${ts}`;
    const q = (s: string) => '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
    const up = log.upQueries.map((x) => `    await queryRunner.query(${q(x.query)});`).join('\n');
    const down = log.downQueries
      .reverse()
      .map((x) => `    await queryRunner.query(${q(x.query)});`)
      .join('\n');
    const dir = join(__dirname, '..', '..', '..', 'apps', app, 'src', 'migrations');
    const file = `${ts}-${name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
    writeFileSync(
      join(dir, `${file}.ts`),
      `import { MigrationInterface, QueryRunner } from 'typeorm';\n\nexport class ${cls} implements MigrationInterface {\n  name = '${cls}';\n\n  public async up(queryRunner: QueryRunner): Promise<void> {\n${up}\n  }\n\n  public async down(queryRunner: QueryRunner): Promise<void> {\n${down}\n  }\n}\n`,
    );
    const index = join(dir, 'index.ts');
    const current = readFileSync(index, 'utf8');
    const imports = [...current.matchAll(/^import .*$/gm)].map((m) => m[0]);
    const names = [
      ...(current.match(/MIGRATIONS = \[([^\]]*)\]/)?.[1] ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ];
    imports.push(`import { ${cls} } from './${file}';`);
    names.push(cls);
    writeFileSync(index, `${imports.join('\n')}\n\n/** In order of application. */\nexport const MIGRATIONS = [${names.join(', ')}];\n`);
    console.log(`${app}: wrote migrations/${file}.ts (${log.upQueries.length} statements)`);
  } finally {
    await ds.destroy();
  }
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
