import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

/**
 * Offline checks of Kubernetes objects against the Kubernetes API schemas, as shipped by the npm package
 * kubernetes-models (generated from the Kubernetes OpenAPI definitions):
 * - `schemaErrors`: the model's JSON-schema validation (types, formats such as quantities, required fields);
 * - `unknownFieldErrors`: field names the API does not have (a typo such as `readinesProbe`), which the JSON
 *   schemas let through but the API server rejects under strict field validation; checked by compiling the
 *   objects against the package's TypeScript interfaces, whose excess-property check names the unknown field
 *   (type mismatches are reported too).
 */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [field: string]: unknown;
}

export const ROOT = resolve(__dirname, '..', '..');

/** The objects `kubectl kustomize <dir>` renders (kubectl must be installed: scripts/ensure-services.sh does). */
export function renderKustomization(dir: string): K8sObject[] {
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === 'ENOENT') throw new Error('kubectl is not installed: `bash scripts/ensure-services.sh` installs it');
    throw new Error(`kubectl kustomize ${dir} failed: ${err.stderr || err.message}`);
  }
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject)
    .filter(Boolean);
}

type Model = { validate(): void };
type ModelClass = { new (data: object): Model; apiVersion: string; kind: string };

/** The model class of kubernetes-models for this apiVersion and kind; undefined when the package has none. */
function modelClass(apiVersion: string, kind: string): ModelClass | undefined {
  if (!/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  let group: Record<string, unknown>;
  try {
    group = require(`kubernetes-models/${apiVersion}`) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const model = group[kind] as ModelClass | undefined;
  return typeof model === 'function' && model.apiVersion === apiVersion && model.kind === kind ? model : undefined;
}

/**
 * kustomize wraps long base64 values of a Secret's `data` over several lines; the API server decodes them with
 * Go's base64 decoder, which skips line breaks, while the schema's "byte" format does not: join them first.
 */
function asDecodedByApiServer(object: K8sObject): K8sObject {
  if (object.kind !== 'Secret' || typeof object.data !== 'object' || object.data === null) return object;
  const data = Object.fromEntries(Object.entries(object.data).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v]));
  return { ...object, data };
}

/** What the Kubernetes schema of `object`'s kind finds wrong with it; [] when valid. An unknown kind is an error. */
export function schemaErrors(object: K8sObject): string[] {
  const Model = modelClass(object.apiVersion, object.kind);
  if (!Model) return [`no Kubernetes schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(asDecodedByApiServer(object)).validate();
    return [];
  } catch (e) {
    return [(e as Error).message];
  }
}

const label = (o: K8sObject) => `${o.kind} ${o.metadata?.name ?? '(no name)'}`;

/**
 * Fields of `objects` that their kinds do not have, as "<Kind> <name>: <message>" (at least the first one of each
 * object). Objects of kinds without a model are left to `schemaErrors`, which reports them.
 */
export function unknownFieldErrors(objects: K8sObject[]): string[] {
  const file = join(ROOT, 'test', 'deploy', '__manifests__.ts');
  const lines: string[] = [];
  const owner: Array<K8sObject | undefined> = [];
  const add = (line: string, o?: K8sObject) => {
    const n = line.split('\n').length;
    lines.push(line);
    for (let i = 0; i < n; i++) owner.push(o);
  };
  objects.forEach((o, i) => {
    if (!modelClass(o.apiVersion, o.kind)) return;
    add(`import type { I${o.kind} as T${i} } from 'kubernetes-models/${o.apiVersion}/${o.kind}';`);
    add(`export const o${i}: T${i} = ${JSON.stringify(o, null, 1)};`, o);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile;
  host.getSourceFile = (name, version, ...rest) => (name === file ? ts.createSourceFile(name, source, version) : getSourceFile.call(host, name, version, ...rest));
  const fileExists = host.fileExists;
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  const program = ts.createProgram([file], options, host);
  const sf = program.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(program, sf).map((d) => {
    const line = d.start === undefined ? -1 : sf.getLineAndCharacterOfPosition(d.start).line;
    const o = owner[line];
    return `${o ? label(o) : 'manifests'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}
