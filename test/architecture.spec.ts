import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * The boundaries of the monorepo, checked on every test run: an app never imports another app, libs never import
 * apps, contracts stay free of Nest modules and TypeORM, and only the config module reads the environment.
 */
const ROOT = resolve(__dirname, '..');
const APPS = ['gateway', 'ingestion', 'catalog', 'retrieval', 'conversation'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

function resolved(file: string, spec: string): string {
  return spec.startsWith('.') ? relative(ROOT, resolve(file, '..', spec)) : spec;
}

const source = (dir: string) => files(join(ROOT, dir)).filter((f) => !f.endsWith('.spec.ts'));

describe('architecture', () => {
  it.each(APPS)('app %s imports no other app', (app) => {
    const offending = source(`apps/${app}`).flatMap((f) =>
      imports(f)
        .map((s) => resolved(f, s))
        .filter((p) => p.startsWith(`apps${sep}`) && !p.startsWith(`apps${sep}${app}${sep}`))
        .map((p) => `${relative(ROOT, f)} -> ${p}`),
    );
    expect(offending).toEqual([]);
  });

  it('libs import no app', () => {
    const offending = source('libs').flatMap((f) =>
      imports(f)
        .map((s) => resolved(f, s))
        .filter((p) => p.startsWith(`apps${sep}`))
        .map((p) => `${relative(ROOT, f)} -> ${p}`),
    );
    expect(offending).toEqual([]);
  });

  it('contracts hold wire contracts only: no Nest modules, no TypeORM, no common', () => {
    const offending = source('libs/contracts').flatMap((f) =>
      imports(f)
        .filter((s) => ['typeorm', '@nestjs/common', '@nestjs/core', '@nestjs/microservices', '@askdata/common'].includes(s))
        .map((s) => `${relative(ROOT, f)} -> ${s}`),
    );
    expect(offending).toEqual([]);
  });

  it('only the config module reads process.env', () => {
    const allowed = [join('libs', 'common', 'src', 'config', 'env.ts')];
    const offending = [...source('apps'), ...source('libs'), ...source('launcher')]
      .filter((f) => /process\.env/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
      .filter((f) => !allowed.includes(f));
    expect(offending).toEqual([]);
  });

  it('`npm test` reads nothing outside the repository and needs no tool but Node (kubectl checks are test:deploy)', () => {
    const jestConfig = (name: string) => require(join(ROOT, name)) as { testMatch: string[] };
    const matches = [...jestConfig('jest.config.js').testMatch, ...jestConfig('test/e2e/jest.config.js').testMatch];
    expect(matches.filter((m) => m.includes('test/deploy'))).toEqual([]);
    const tests = [...files(join(ROOT, 'test')), ...files(join(ROOT, 'apps')), ...files(join(ROOT, 'libs')), ...files(join(ROOT, 'launcher'))]
      .filter((f) => !f.startsWith(join(ROOT, 'test', 'deploy')) && !f.startsWith(join(ROOT, 'test', 'integration')))
      .filter((f) => /\.(e2e-)?spec\.ts$/.test(f) || f.startsWith(join(ROOT, 'test', 'support')));
    const offending = tests.filter((f) => /['"]shared['"]\s*,\s*['"]data['"]|\.\.\/shared\/|['"]kubectl['"]/.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(offending).toEqual([]);
  });

  it('the client package uses the platform only (fetch, streams), no Node.js module and no dependency, so it runs in browsers too', () => {
    const client = source('packages/client/src');
    expect(client.length).toBeGreaterThan(0);
    const offending = client.flatMap((f) =>
      imports(f)
        .filter((s) => !s.startsWith('./') && !s.startsWith('../'))
        .map((s) => `${relative(ROOT, f)} -> ${s}`),
    );
    expect(offending).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'packages', 'client', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg.dependencies).toBeUndefined();
    expect(client.filter((f) => /\b(process|Buffer|require)\b\s*[.(]/.test(readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('strict mode is on for every tsconfig', () => {
    const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { strict?: boolean } };
    expect(base.compilerOptions.strict).toBe(true);
    for (const name of ['tsconfig.json', 'tsconfig.build.json']) {
      const cfg = JSON.parse(readFileSync(join(ROOT, name), 'utf8')) as { extends?: string; compilerOptions?: { strict?: boolean } };
      expect(cfg.extends).toBe('./tsconfig.base.json');
      expect(cfg.compilerOptions?.strict).not.toBe(false);
    }
  });
});
