import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { K8sObject, renderKustomization, ROOT } from './k8s-schema';

/**
 * What the internet reaches in a deployment made from these files: each overlay as `kubectl kustomize` renders it,
 * and docker-compose.yml. The Ingress routes only the client API, its docs and the widget's script; the gateway's admin port (the admin
 * API, metrics, health) is in no Service the Ingress names and is let in only from inside. Each check is also shown
 * to catch the mistake it is about, so it cannot pass by checking nothing.
 */
const PUBLIC_PREFIXES = ['/v1', '/docs', '/widget.js'];
const MONITORING = { 'kubernetes.io/metadata.name': 'monitoring' };

type Obj = K8sObject & { spec?: any };
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const find = (objects: Obj[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

function gatewayContainer(objects: Obj[]): any {
  return find(objects, 'Deployment', 'askdata-gateway')!.spec.template.spec.containers[0];
}

/** The container port numbers of the gateway: public (PORT) and admin (ADMIN_PORT), from its settings. */
function gatewayPorts(objects: Obj[]): { public: number; admin: number } {
  const c = gatewayContainer(objects);
  const env = (name: string) => Number((c.env as Array<{ name: string; value?: string }>).find((e) => e.name === name)?.value);
  return { public: env('PORT'), admin: env('ADMIN_PORT') };
}

/** Container port a Service port sends to (targetPort by name or number). */
function targetOf(objects: Obj[], servicePort: { port: number; targetPort?: number | string }): number {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  return (gatewayContainer(objects).ports as Array<{ name: string; containerPort: number }>).find((p) => p.name === target)!.containerPort;
}

/** Problems with the Ingress: a path outside the public prefixes, or a backend that reaches the admin port. */
function ingressProblems(objects: Obj[]): string[] {
  const problems: string[] = [];
  const { admin } = gatewayPorts(objects);
  for (const ingress of objects.filter((o) => o.kind === 'Ingress')) {
    if (ingress.spec.defaultBackend) problems.push(`${ingress.metadata.name}: a default backend takes every path`);
    for (const rule of ingress.spec.rules ?? []) {
      for (const path of rule.http?.paths ?? []) {
        const prefix = PUBLIC_PREFIXES.find((p) => path.path === p || path.path.startsWith(`${p}/`));
        if (!prefix || !['Prefix', 'Exact'].includes(path.pathType)) problems.push(`${ingress.metadata.name}: routes ${path.path} (${path.pathType})`);
        const backend = path.backend.service;
        const service = find(objects, 'Service', backend.name);
        if (!service) {
          problems.push(`${ingress.metadata.name}: names a Service ${backend.name} that does not exist`);
          continue;
        }
        // Every port of a Service the Ingress names could be routed to by changing a port name: none may be admin.
        for (const port of service.spec.ports) {
          if (targetOf(objects, port) === admin) problems.push(`Service ${backend.name} (named by the Ingress) exposes the admin port`);
        }
      }
    }
  }
  return problems;
}

/** Problems with the NetworkPolicies: the admin port let in from outside the namespace (or the monitoring one). */
function networkProblems(objects: Obj[]): string[] {
  const { admin, public: pub } = gatewayPorts(objects);
  const gatewayLabels = find(objects, 'Deployment', 'askdata-gateway')!.spec.template.metadata.labels as Record<string, string>;
  const selects = (p: Obj) => Object.entries(p.spec.podSelector.matchLabels ?? {}).every(([k, v]) => gatewayLabels[k] === v);
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy' && selects(o));
  const problems: string[] = [];
  if (!policies.some((p) => p.spec.policyTypes?.includes('Ingress') && (p.spec.ingress ?? []).length === 0)) {
    problems.push('no default-deny policy covers the gateway');
  }
  let publicOpen = false;
  for (const policy of policies) {
    for (const rule of policy.spec.ingress ?? []) {
      const ports: number[] | 'all' = rule.ports ? rule.ports.map((p: { port: number }) => p.port) : 'all';
      const reachesAdmin = ports === 'all' || ports.includes(admin);
      if (ports !== 'all' && ports.includes(pub) && rule.from === undefined) publicOpen = true;
      if (!reachesAdmin) continue;
      if (rule.from === undefined) {
        problems.push(`${policy.metadata.name}: lets anyone reach the admin port`);
        continue;
      }
      for (const peer of rule.from) {
        const sameNamespace = peer.podSelector !== undefined && peer.namespaceSelector === undefined && peer.ipBlock === undefined;
        const monitoring =
          peer.namespaceSelector !== undefined && JSON.stringify(peer.namespaceSelector.matchLabels) === JSON.stringify(MONITORING) && !peer.namespaceSelector.matchExpressions;
        if (!sameNamespace && !monitoring) problems.push(`${policy.metadata.name}: lets ${JSON.stringify(peer)} reach the admin port`);
      }
    }
  }
  if (!publicOpen) problems.push('the public port is not open to the ingress controller');
  return problems;
}

describe.each(['dev', 'prod'])('the public surface of the %s overlay', (overlay) => {
  let objects: Obj[];
  beforeAll(() => {
    objects = renderKustomization(`k8s/overlays/${overlay}`);
  });

  it('the gateway serves the public and the admin paths on two ports, probed and scraped on the admin one', () => {
    const { public: pub, admin } = gatewayPorts(objects);
    expect(pub).toBe(3000);
    expect(admin).toBe(9464);
    const c = gatewayContainer(objects);
    expect(c.ports).toEqual([
      { name: 'http', containerPort: pub },
      { name: 'admin', containerPort: admin },
    ]);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) expect(c[probe].httpGet.port).toBe('admin');
    const annotations = find(objects, 'Deployment', 'askdata-gateway')!.spec.template.metadata.annotations;
    expect(annotations['prometheus.io/port']).toBe(String(admin));
    expect(find(objects, 'Service', 'askdata-gateway-admin')!.spec.ports).toEqual([{ name: 'admin', port: admin, targetPort: 'admin' }]);
  });

  it('the Ingress routes only /v1, /docs and /widget.js, to a Service without the admin port', () => {
    const paths = objects.filter((o) => o.kind === 'Ingress').flatMap((i) => i.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.path)));
    expect(paths.sort()).toEqual(['/docs', '/v1', '/widget.js']);
    expect(ingressProblems(objects)).toEqual([]);
  });

  it('lets only the namespace and the monitoring namespace reach the admin port', () => {
    expect(networkProblems(objects)).toEqual([]);
  });

  it('takes the client address from one proxy in front, never from any peer', () => {
    expect((find(objects, 'ConfigMap', 'askdata-config')!.data as Record<string, string>).TRUST_PROXY).toBe('1');
  });
});

describe('the public-surface checks', () => {
  let objects: Obj[];
  beforeAll(() => {
    objects = renderKustomization('k8s/overlays/dev');
  });
  const ingressOf = (o: Obj[]) => find(o, 'Ingress', 'askdata')!;

  it('catch an Ingress that routes every path, or a default backend', () => {
    const o = copy(objects);
    ingressOf(o).spec.rules[0].http.paths[0].path = '/';
    expect(ingressProblems(o)).toEqual(['askdata: routes / (Prefix)']);
    const d = copy(objects);
    ingressOf(d).spec.defaultBackend = { service: { name: 'askdata-gateway', port: { name: 'http' } } };
    expect(ingressProblems(d)).toEqual(['askdata: a default backend takes every path']);
  });

  it('catch the admin port in a Service the Ingress names', () => {
    const o = copy(objects);
    find(o, 'Service', 'askdata-gateway')!.spec.ports.push({ name: 'admin', port: 9464, targetPort: 'admin' });
    expect(ingressProblems(o)).toContain('Service askdata-gateway (named by the Ingress) exposes the admin port');
    const n = copy(objects);
    ingressOf(n).spec.rules[0].http.paths[0].backend.service.name = 'askdata-gateway-admin';
    expect(ingressProblems(n)).toContain('Service askdata-gateway-admin (named by the Ingress) exposes the admin port');
  });

  it('catch the admin port let in from anywhere, from any namespace, or from an address block', () => {
    const anyone = copy(objects);
    find(anyone, 'NetworkPolicy', 'askdata-ops-from-namespace')!.spec.ingress[0].from = undefined;
    expect(networkProblems(anyone)).toEqual(['askdata-ops-from-namespace: lets anyone reach the admin port']);
    const everyNamespace = copy(objects);
    find(everyNamespace, 'NetworkPolicy', 'askdata-ops-from-namespace')!.spec.ingress[0].from.push({ namespaceSelector: {} });
    expect(networkProblems(everyNamespace)).toEqual(['askdata-ops-from-namespace: lets {"namespaceSelector":{}} reach the admin port']);
    const wholePublicRule = copy(objects);
    delete find(wholePublicRule, 'NetworkPolicy', 'askdata-gateway-ingress')!.spec.ingress[0].ports;
    expect(networkProblems(wholePublicRule)).toEqual(expect.arrayContaining(['askdata-gateway-ingress: lets anyone reach the admin port']));
    const block = copy(objects);
    find(block, 'NetworkPolicy', 'askdata-ops-from-namespace')!.spec.ingress[0].from.push({ ipBlock: { cidr: '0.0.0.0/0' } });
    expect(networkProblems(block)).toHaveLength(1);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { ports?: string[]; environment?: Record<string, string>; healthcheck?: { test?: string[] } }>;
  };

  it('publishes only the gateway public port; admin, metrics and health stay inside the compose network', () => {
    const published = Object.entries(compose.services).flatMap(([name, s]) => (s.ports ?? []).map((p) => `${name} ${p}`));
    const gw = compose.services.gateway.environment!;
    expect(published).toEqual([`gateway ${gw.PORT}:${gw.PORT}`]);
    expect(gw.ADMIN_PORT).toBe('9464');
    expect(gw.ADMIN_PORT).not.toBe(gw.PORT);
    expect(compose.services.gateway.healthcheck?.test?.join(' ')).toContain(`127.0.0.1:${gw.ADMIN_PORT}/health/ready`);
  });
});
