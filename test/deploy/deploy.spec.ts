import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { APP_NAMES, SETTINGS } from '../../launcher/src/apps';

/**
 * The deployment files, validated offline against the code: every app service and Deployment runs a real app,
 * every variable it sets is a setting that app reads, dependencies and probes are wired, pods run locked down.
 */
const ROOT = resolve(__dirname, '..', '..');
const settingsOf = (app: string) => new Set(Object.keys((SETTINGS as Record<string, object>)[app] ?? {}));
const APPS = [...APP_NAMES] as string[];

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<
      string,
      {
        image?: string;
        build?: unknown;
        command?: string[];
        entrypoint?: string[];
        environment?: Record<string, string>;
        depends_on?: Record<string, { condition: string }>;
        healthcheck?: { test?: unknown; disable?: boolean };
        restart?: string;
      }
    >;
  };
  const services = compose.services;

  it('has the infrastructure, the migration and the five apps', () => {
    expect(Object.keys(services).sort()).toEqual(['catalog', 'conversation', 'gateway', 'ingestion', 'migrate', 'nats', 'postgres', 'qdrant', 'retrieval'].sort());
    expect(services.nats.command).toEqual(expect.arrayContaining(['-js']));
  });

  it('keeps the search index in Qdrant, which retrieval waits for', () => {
    expect(services.qdrant.image).toMatch(/^qdrant\/qdrant:v1\./);
    expect(services.retrieval.environment).toMatchObject({ SEARCH_BACKEND: 'qdrant', QDRANT_URL: 'http://qdrant:6333' });
    expect(services.retrieval.depends_on?.qdrant).toEqual({ condition: 'service_healthy' });
  });

  it.each(APPS)('%s runs its app from the one image, with only settings it reads', (app) => {
    const s = services[app];
    expect(s.image).toBe('askdata:latest');
    expect(s.build).toBeDefined();
    expect(s.command).toEqual([app]);
    const known = settingsOf(app);
    expect(Object.keys(s.environment ?? {}).filter((k) => !known.has(k))).toEqual([]);
    expect(s.environment).toEqual(expect.objectContaining({ DATABASE_URL: expect.any(String), NATS_URL: expect.any(String) }));
    expect(s.healthcheck?.test).toBeDefined();
  });

  it('starts every app after the migration completed and its dependencies are healthy', () => {
    for (const app of APPS) {
      const deps = services[app].depends_on ?? {};
      expect(deps.migrate).toEqual({ condition: 'service_completed_successfully' });
      for (const [name, dep] of Object.entries(deps)) {
        expect(Object.keys(services)).toContain(name);
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(dep.condition);
        if (name !== 'migrate') expect(services[name].healthcheck?.test).toBeDefined();
      }
    }
    expect(services.migrate.entrypoint).toEqual(['node', 'dist/launcher/src/migrate.js']);
    expect(services.migrate.restart).toBe('no');
  });

  it('the entry points it names exist in the build output of the Dockerfile', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/ENTRYPOINT \["node", "dist\/launcher\/src\/main.js"\]/);
    expect(dockerfile).toMatch(/^USER 10001$/m);
    for (const f of ['launcher/src/main.ts', 'launcher/src/migrate.ts']) expect(existsSync(join(ROOT, f))).toBe(true);
  });

  it('.env.example lists every setting of every app', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    for (const app of APPS) for (const name of settingsOf(app)) expect(example).toMatch(new RegExp(`^(# )?${name}=`, 'm'));
  });
});

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; spec?: any; data?: Record<string, string> };

function loadKustomization(dir: string): K8sObject[] {
  const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  return k.resources.flatMap((r) => {
    const path = join(dir, r);
    expect(existsSync(path)).toBe(true);
    return existsSync(join(path, 'kustomization.yaml'))
      ? loadKustomization(path)
      : parseAllDocuments(readFileSync(path, 'utf8'))
          .map((d) => d.toJS() as K8sObject)
          .filter(Boolean);
  });
}

describe('k8s', () => {
  const objects = loadKustomization(join(ROOT, 'k8s', 'base'));
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const config = byKind('ConfigMap')[0];

  it('has a Deployment, Service and PodDisruptionBudget per app, autoscalers for gateway, ingestion and retrieval', () => {
    for (const app of APPS) {
      for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget']) {
        expect(byKind(kind).map((o) => o.metadata.name)).toContain(`askdata-${app}`);
      }
    }
    expect(
      byKind('HorizontalPodAutoscaler')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['askdata-gateway', 'askdata-ingestion', 'askdata-retrieval']);
    expect(byKind('Job').map((o) => o.metadata.name)).toEqual(['askdata-migrate']);
    expect(byKind('Ingress')[0].spec.rules[0].http.paths[0].backend.service.name).toBe('askdata-gateway');
  });

  it.each(APPS)('the %s Deployment runs its app locked down, probed, with only settings it reads', (app) => {
    const d = byKind('Deployment').find((o) => o.metadata.name === `askdata-${app}`)!;
    const pod = d.spec.template.spec;
    const [c] = pod.containers;
    expect(c.args).toEqual([app]);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(c.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    expect(c.resources.requests).toBeDefined();
    expect(c.resources.limits).toBeDefined();
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) expect(c[probe].httpGet.path).toMatch(/^\/health\/(live|ready)$/);
    expect(c.readinessProbe.httpGet.path).toBe('/health/ready');
    const known = settingsOf(app);
    expect((c.env ?? []).map((e: { name: string }) => e.name).filter((n: string) => !known.has(n))).toEqual([]);
    expect(d.spec.selector.matchLabels).toEqual(d.spec.template.metadata.labels);
    const port = c.ports[0].containerPort;
    expect(port).toBe(app === 'gateway' ? 3000 : 9464);
  });

  it('sets in the ConfigMap only settings some app reads', () => {
    const all = new Set(APPS.flatMap((a) => [...settingsOf(a)]));
    expect(Object.keys(config.data ?? {}).filter((k) => !all.has(k))).toEqual([]);
  });

  it('lets only the gateway take traffic from outside', () => {
    const policies = byKind('NetworkPolicy');
    const deny = policies.find((p) => p.metadata.name === 'askdata-default-deny')!;
    expect(deny.spec.policyTypes).toEqual(['Ingress']);
    expect(deny.spec.ingress).toBeUndefined();
    const open = policies.filter((p) => (p.spec.ingress ?? []).some((rule: { from?: unknown }) => rule.from === undefined));
    expect(open.map((p) => p.spec.podSelector.matchLabels['app.kubernetes.io/component'])).toEqual(['gateway']);
  });

  it.each(['dev', 'prod'])('the %s overlay builds on the base', (overlay) => {
    const k = parse(readFileSync(join(ROOT, 'k8s', 'overlays', overlay, 'kustomization.yaml'), 'utf8')) as { resources: string[]; namespace: string };
    expect(k.resources).toEqual(['../../base']);
    expect(k.namespace).toMatch(/^askdata/);
  });
});
