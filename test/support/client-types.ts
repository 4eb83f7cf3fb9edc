/**
 * The interfaces the client package declares, read with the TypeScript compiler, and their comparison with OpenAPI
 * schemas: property names, which are optional, which may be null, JSON kinds, enum values and references.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './harness';

export interface Shape {
  optional: boolean;
  nullable: boolean;
  /** JSON kinds: string, number, boolean, array, object. */
  kinds: string[];
  /** String literal values, when the type is a union of them only. */
  enums: string[] | null;
  /** The interface (client) or component schema (document) referred to, directly or as an array's element. */
  ref: string | null;
}

export type Shapes = Record<string, Shape>;

/** Every interface declared in the client's source files, by name, with its properties (inherited ones included). */
export function clientInterfaces(): Map<string, Shapes> {
  const dir = join(ROOT, 'packages', 'client', 'src');
  const program = ts.createProgram([join(dir, 'index.ts')], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [] });
  const checker = program.getTypeChecker();
  const out = new Map<string, Shapes>();
  for (const file of program.getSourceFiles().filter((f) => f.fileName.startsWith(dir) && !f.fileName.endsWith('.spec.ts'))) {
    ts.forEachChild(file, (node) => {
      if (!ts.isInterfaceDeclaration(node)) return;
      const shapes: Shapes = {};
      for (const prop of checker.getPropertiesOfType(checker.getTypeAtLocation(node.name))) {
        shapes[prop.name] = shapeOf(checker, checker.getTypeOfSymbolAtLocation(prop, node), (prop.flags & ts.SymbolFlags.Optional) !== 0);
      }
      out.set(node.name.text, shapes);
    });
  }
  return out;
}

function shapeOf(checker: ts.TypeChecker, type: ts.Type, optional: boolean): Shape {
  const kinds = new Set<string>();
  const literals: string[] = [];
  let nullable = false;
  let plainString = false;
  let ref: string | null = null;
  for (const part of type.isUnion() ? type.types : [type]) {
    const f = part.flags;
    if (f & ts.TypeFlags.Null) nullable = true;
    else if (f & ts.TypeFlags.Undefined) continue;
    else if (part.isStringLiteral()) {
      kinds.add('string');
      literals.push(part.value);
    } else if (f & ts.TypeFlags.String) {
      kinds.add('string');
      plainString = true;
    } else if (f & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral)) kinds.add('number');
    else if (f & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) kinds.add('boolean');
    else if (checker.isArrayType(part)) {
      kinds.add('array');
      ref = interfaceName(checker.getTypeArguments(part as ts.TypeReference)[0]);
    } else {
      kinds.add('object');
      ref = interfaceName(part);
    }
  }
  return { optional, nullable, kinds: [...kinds].sort(), enums: literals.length && !plainString ? literals.sort() : null, ref };
}

function interfaceName(type: ts.Type | undefined): string | null {
  const symbol = type?.aliasSymbol ? null : type?.getSymbol();
  return symbol && symbol.flags & ts.SymbolFlags.Interface ? symbol.name : null;
}

type Schema = Record<string, any>;

/** The shapes of an object schema's properties, as the document declares them. */
export function schemaShapes(schema: Schema): Shapes {
  const required = new Set<string>(schema.required ?? []);
  return Object.fromEntries(Object.entries<Schema>(schema.properties ?? {}).map(([name, p]) => [name, propertyShape(p, !required.has(name))]));
}

/** The query parameters of an operation, as an object schema's properties. */
export function parameterShapes(operation: Schema): Shapes {
  const query = (operation.parameters ?? []).filter((p: Schema) => p.in === 'query');
  return schemaShapes({
    properties: Object.fromEntries(query.map((p: Schema) => [p.name, p.schema])),
    required: query.filter((p: Schema) => p.required).map((p: Schema) => p.name),
  });
}

function propertyShape(p: Schema, optional: boolean): Shape {
  const refOf = (s: Schema | undefined): string | null => {
    const r = s?.$ref ?? s?.allOf?.[0]?.$ref;
    return typeof r === 'string' ? r.replace('#/components/schemas/', '') : null;
  };
  const kindsOf = (s: Schema): string[] => {
    if (s.oneOf) return s.oneOf.flatMap(kindsOf);
    if (refOf(s) || s.type === undefined) return ['object'];
    return [s.type === 'integer' ? 'number' : s.type];
  };
  return {
    optional,
    nullable: p.nullable === true,
    kinds: [...new Set(kindsOf(p))].sort(),
    enums: Array.isArray(p.enum) ? [...p.enum].sort() : null,
    ref: refOf(p) ?? (p.type === 'array' ? refOf(p.items) : null),
  };
}

/**
 * Where the client's interface and the document's schema disagree, as readable lines. `refs` maps the client's
 * interface names to the document's schema names; `skip` names document properties the client leaves out on purpose.
 */
export function differences(name: string, client: Shapes, document: Shapes, refs: Record<string, string>, skip: string[] = []): string[] {
  const out: string[] = [];
  const names = new Set([...Object.keys(client), ...Object.keys(document).filter((n) => !skip.includes(n))]);
  for (const prop of names) {
    const c = client[prop];
    const d = document[prop];
    const at = `${name}.${prop}`;
    if (!c || !d) {
      out.push(`${at}: ${c ? 'not in the document' : 'missing from the client'}`);
      continue;
    }
    if (c.optional !== d.optional) out.push(`${at}: ${d.optional ? 'optional' : 'required'} in the document`);
    if (c.nullable !== d.nullable) out.push(`${at}: ${d.nullable ? 'nullable' : 'never null'} in the document`);
    if (c.kinds.join() !== d.kinds.join()) out.push(`${at}: ${c.kinds.join('|')} in the client, ${d.kinds.join('|')} in the document`);
    if (d.enums && c.enums?.join() !== d.enums.join()) out.push(`${at}: values ${c.enums?.join('|')} in the client, ${d.enums.join('|')} in the document`);
    if ((c.ref && refs[c.ref]) || d.ref) {
      const mapped = c.ref ? refs[c.ref] : undefined;
      if (mapped !== d.ref) out.push(`${at}: refers to ${c.ref ?? 'nothing'} (${mapped ?? 'unmapped'}) in the client, ${d.ref ?? 'nothing'} in the document`);
    }
  }
  return out;
}
