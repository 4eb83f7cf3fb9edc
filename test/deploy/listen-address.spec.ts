import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { APP_NAMES } from '../../launcher/src/apps';
import { K8sObject, renderKustomization, ROOT } from './k8s-schema';

/**
 * Apps listen on 127.0.0.1 unless HOST says otherwise; in a container that would make them unreachable, so every
 * way of deploying them sets HOST=0.0.0.0 for every app.
 */
const APPS = [...APP_NAMES] as string[];

describe('listen address in the deployment files', () => {
  it('the image sets HOST=0.0.0.0', () => {
    expect(readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8')).toMatch(/^ENV HOST=0\.0\.0\.0$/m);
  });

  it.each(APPS)('docker-compose sets HOST=0.0.0.0 for %s', (app) => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    expect(compose.services[app].environment?.HOST).toBe('0.0.0.0');
  });

  it.each(['dev', 'prod'])('every Deployment of the %s overlay gets HOST=0.0.0.0', (overlay) => {
    const objects = renderKustomization(join('k8s', 'overlays', overlay));
    const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, (o as K8sObject & { data?: Record<string, string> }).data ?? {}]));
    const deployments = objects.filter((o) => o.kind === 'Deployment') as Array<K8sObject & { spec: any }>;
    expect(deployments.length).toBe(APPS.length);
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers as Array<{ env?: Array<{ name: string; value?: string }>; envFrom?: Array<{ configMapRef?: { name: string } }> }>) {
        const direct = c.env?.find((e) => e.name === 'HOST')?.value;
        const fromMaps = (c.envFrom ?? []).map((f) => configMaps.get(f.configMapRef?.name ?? '')?.HOST).find((v) => v !== undefined);
        expect({ deployment: d.metadata.name, HOST: direct ?? fromMaps }).toEqual({ deployment: d.metadata.name, HOST: '0.0.0.0' });
      }
    }
  });
});
