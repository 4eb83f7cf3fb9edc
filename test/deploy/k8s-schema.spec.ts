import { K8sObject, renderKustomization, schemaErrors, unknownFieldErrors } from './k8s-schema';

/**
 * Each overlay as `kubectl kustomize` renders it, every object checked against the Kubernetes API schemas
 * (kubernetes-models), offline. The checks themselves are shown to reject broken objects, so they cannot pass by
 * checking nothing.
 */
const APPS = ['gateway', 'ingestion', 'catalog', 'retrieval', 'conversation'];
const label = (o: K8sObject) => `${o.kind} ${o.metadata.name}`;
const copy = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe.each([
  ['dev', 'askdata-dev'],
  ['prod', 'askdata'],
])('the %s overlay, rendered', (overlay, namespace) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = renderKustomization(`k8s/overlays/${overlay}`);
  });

  it('renders every app, the migration Job and the Ingress into its namespace', () => {
    const names = objects.map(label);
    for (const app of APPS) {
      expect(names).toEqual(expect.arrayContaining([`Deployment askdata-${app}`, `Service askdata-${app}`, `PodDisruptionBudget askdata-${app}`]));
    }
    expect(names).toEqual(expect.arrayContaining(['Job askdata-migrate', 'Ingress askdata', 'ConfigMap askdata-config']));
    expect(objects.filter((o) => o.metadata.namespace !== namespace).map(label)).toEqual([]);
  });

  it('every object is valid against the Kubernetes schema of its kind', () => {
    expect(objects.flatMap((o) => schemaErrors(o).map((e) => `${label(o)}: ${e}`))).toEqual([]);
  });

  it('no object has a field its kind does not have', () => {
    expect(unknownFieldErrors(objects)).toEqual([]);
  });
});

describe('the Kubernetes schema checks', () => {
  let deployment: K8sObject & { spec: any };
  let secret: K8sObject & { data: Record<string, string> };
  beforeAll(() => {
    const objects = renderKustomization('k8s/overlays/dev');
    deployment = objects.find((o) => o.kind === 'Deployment') as typeof deployment;
    secret = objects.find((o) => o.kind === 'Secret') as typeof secret;
  });

  it('reject a field of the wrong type', () => {
    const d = copy(deployment);
    d.spec.replicas = 'two';
    d.spec.template.spec.containers[0].ports[0].containerPort = '3000';
    const errors = schemaErrors(d);
    expect(errors.join('\n')).toMatch(/spec\/replicas must be integer/);
    expect(errors.join('\n')).toMatch(/containers\/0\/ports\/0\/containerPort must be integer/);
    expect(unknownFieldErrors([d]).join('\n')).toMatch(/Deployment askdata-\w+: Type 'string' is not assignable to type 'number'/);
  });

  it('reject a missing required field and a malformed quantity', () => {
    const d = copy(deployment);
    delete d.spec.selector;
    expect(schemaErrors(d).join('\n')).toMatch(/spec must have required property selector/);
    const q = copy(deployment);
    q.spec.template.spec.containers[0].resources.limits.memory = 'lots';
    expect(schemaErrors(q).join('\n')).toMatch(/resources\/limits\/memory must match format "quantity"/);
  });

  it('reject a misspelt field name', () => {
    const d = copy(deployment);
    const container = d.spec.template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    delete container.readinessProbe;
    expect(schemaErrors(d)).toEqual([]); // the JSON schemas allow unknown fields...
    expect(unknownFieldErrors([deployment, d])).toEqual([expect.stringMatching(/^Deployment askdata-\w+: .*'"readinesProbe"' does not exist in type 'IContainer'/)]);
  });

  it('reject a kind or an apiVersion they have no schema for', () => {
    expect(schemaErrors({ ...copy(deployment), kind: 'Deploymnet' })).toEqual(['no Kubernetes schema for apps/v1 Deploymnet']);
    expect(schemaErrors({ ...copy(deployment), apiVersion: 'apps/v9' })).toEqual(['no Kubernetes schema for apps/v9 Deployment']);
  });

  it('accept Secret data wrapped over lines as kustomize renders it, but not data that is not base64', () => {
    expect(Object.values(secret.data).some((v) => v.includes('\n'))).toBe(true);
    expect(schemaErrors(secret)).toEqual([]);
    expect(schemaErrors({ ...copy(secret), data: { ADMIN_TOKEN: 'not base64!' } }).join('\n')).toMatch(/ADMIN_TOKEN must match format "byte"/);
  });
});
