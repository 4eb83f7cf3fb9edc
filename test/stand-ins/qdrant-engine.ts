/**
 * The in-memory engine of the Qdrant stand-in: collections of points with named dense and sparse vectors and a
 * payload, and the subset of Qdrant's semantics the retrieval service relies on, as Qdrant documents them:
 *
 * - sparse scores are dot products over shared indices; with the `idf` modifier each query value is multiplied
 *   by idf = ln(1 + (N − n + 0.5) / (n + 0.5)), N the points holding that sparse vector, n those holding the index;
 *   only points sharing an index with the query are found;
 * - dense `Cosine` vectors are normalised when stored and scored by dot product; `Dot` by dot product;
 * - RRF fusion scores Σ weight / (k + rank) over the prefetches, ranks from 0, k = 2 unless given;
 * - filters: must / should / must_not, nested filters, `has_id`, `is_empty`, `is_null`, and field conditions
 *   with `match` (value, any) and `range` (numbers, or datetimes when the bounds are strings); a condition on an
 *   array payload holds when it holds for any element.
 *
 * Anything outside that subset throws {@link Unsupported}, which the server answers with 501: a stand-in that
 * guessed would make tests pass that real Qdrant fails.
 */

export class Unsupported extends Error {}
/** A request Qdrant would refuse (400): wrong vector name or size, duplicate sparse indices, ... */
export class WrongInput extends Error {}
export class NotFound extends Error {}
export class Conflict extends Error {}

type PointId = string | number;
type Dense = number[];
interface Sparse {
  indices: number[];
  values: number[];
}
type Payload = Record<string, unknown>;

export interface StoredPoint {
  id: PointId;
  version: number;
  vectors: Record<string, Dense | Sparse>;
  payload: Payload;
}

interface DenseConfig {
  size: number;
  distance: 'Cosine' | 'Dot' | 'Euclid' | 'Manhattan';
}

export interface StubCollection {
  name: string;
  dense: Record<string, DenseConfig>;
  /** True when the collection was created with a single unnamed vector (`vectors: {size, distance}`). */
  unnamed: boolean;
  sparse: Record<string, { modifier?: string | null }>;
  payloadSchema: Record<string, { data_type: string; params?: Record<string, unknown> }>;
  points: Map<string, StoredPoint>;
}

interface Scored {
  point: StoredPoint;
  score: number;
}

export type Body = any;

export class QdrantEngine {
  readonly collections = new Map<string, StubCollection>();
  private version = 0;

  get(name: string): StubCollection {
    const c = this.collections.get(name);
    if (!c) throw new NotFound(`Collection \`${name}\` doesn't exist!`);
    return c;
  }

  create(name: string, body: Body): void {
    if (this.collections.has(name)) throw new Conflict(`Collection \`${name}\` already exists!`);
    if (!/^[^/\\:*?"<>|\0]{1,255}$/.test(name)) throw new WrongInput(`Collection name \`${name}\` is not valid`);
    const vectors = body.vectors ?? {};
    const unnamed = typeof vectors.size === 'number';
    const dense: Record<string, DenseConfig> = unnamed ? { '': vectors } : vectors;
    for (const [n, v] of Object.entries(dense as Record<string, Body>)) {
      if (v.multivector_config || v.datatype) throw new Unsupported(`vector ${n}: multivectors and datatypes`);
    }
    this.collections.set(name, { name, dense, unnamed, sparse: body.sparse_vectors ?? {}, payloadSchema: {}, points: new Map() });
  }

  info(c: StubCollection): Record<string, unknown> {
    const vectors = c.unnamed ? c.dense[''] : c.dense;
    return {
      status: 'green',
      optimizer_status: 'ok',
      segments_count: 1,
      points_count: c.points.size,
      indexed_vectors_count: 0,
      config: {
        params: { vectors, sparse_vectors: c.sparse, shard_number: 1, replication_factor: 1, write_consistency_factor: 1, on_disk_payload: true },
        hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000, max_indexing_threads: 0, on_disk: false },
        optimizer_config: { deleted_threshold: 0.2, vacuum_min_vector_number: 1000, default_segment_number: 0, flush_interval_sec: 5 },
        wal_config: { wal_capacity_mb: 32, wal_segments_ahead: 0 },
      },
      payload_schema: Object.fromEntries(
        Object.entries(c.payloadSchema).map(([k, v]) => [k, { ...v, points: [...c.points.values()].filter((p) => valuesAt(p.payload, k).length).length }]),
      ),
    };
  }

  createIndex(c: StubCollection, body: Body): void {
    const schema = body.field_schema;
    if (schema === undefined || schema === null) throw new WrongInput('field_schema is required');
    const type = typeof schema === 'string' ? schema : schema.type;
    c.payloadSchema[body.field_name] = typeof schema === 'string' ? { data_type: type } : { data_type: type, params: schema };
  }

  upsert(c: StubCollection, body: Body): number {
    if (!Array.isArray(body.points)) throw new Unsupported('points as a batch (columns) instead of a list');
    if (body.update_filter || (body.update_mode && body.update_mode !== 'upsert')) throw new Unsupported('update_filter, update_mode');
    const stored: StoredPoint[] = body.points.map((p: Body, i: number) => {
      const raw = Array.isArray(p.vector) ? { '': p.vector } : p.vector;
      const vectors: Record<string, Dense | Sparse> = {};
      for (const [name, v] of Object.entries(raw as Record<string, unknown>)) {
        const where = `points[${i}].vector${name ? `.${name}` : ''}`;
        if (Array.isArray(v)) {
          const cfg = c.dense[name];
          if (!cfg) throw new WrongInput(`Not existing vector name error: ${name || '(default)'} (${where})`);
          if (v.some((x) => Array.isArray(x))) throw new Unsupported('multivectors');
          if (v.length !== cfg.size) throw new WrongInput(`Vector dimension error: expected dim: ${cfg.size}, got ${v.length} (${where})`);
          vectors[name] = cfg.distance === 'Cosine' ? normalise(v as number[]) : (v as number[]);
        } else if (v && typeof v === 'object' && 'indices' in v) {
          const s = v as Sparse;
          if (!c.sparse[name]) throw new WrongInput(`Not existing vector name error: ${name} (${where})`);
          if (s.indices.length !== s.values.length) throw new WrongInput(`${where}: indices and values must be the same length`);
          if (new Set(s.indices).size !== s.indices.length) throw new WrongInput(`${where}: indices must be unique`);
          vectors[name] = { indices: [...s.indices], values: [...s.values] };
        } else {
          throw new Unsupported(`${where}: inference objects`);
        }
      }
      return { id: normaliseId(p.id), version: 0, vectors, payload: p.payload ?? {} };
    });
    const version = ++this.version;
    for (const p of stored) c.points.set(String(p.id), { ...p, version });
    return version;
  }

  delete(c: StubCollection, body: Body): number {
    if (body.shard_key) throw new Unsupported('shard keys');
    if (Array.isArray(body.points)) for (const id of body.points) c.points.delete(String(normaliseId(id)));
    else for (const [key, p] of [...c.points]) if (matches(body.filter, p)) c.points.delete(key);
    return ++this.version;
  }

  /** `points/scroll`: points passing the filter in id order from `offset` (a point id), and the id after the page. */
  scroll(c: StubCollection, body: Body): { points: StoredPoint[]; next: PointId | null } {
    if (body.order_by) throw new Unsupported('order_by');
    const all = [...c.points.values()].filter((p) => body.filter == null || matches(body.filter, p)).sort((a, b) => compareIds(a.id, b.id));
    const from = body.offset == null ? 0 : all.findIndex((p) => compareIds(p.id, normaliseId(body.offset)) >= 0);
    const start = from < 0 ? all.length : from;
    const limit = body.limit ?? 10;
    return { points: all.slice(start, start + limit), next: all[start + limit]?.id ?? null };
  }

  /** `points/count`: exact. */
  count(c: StubCollection, body: Body): number {
    return [...c.points.values()].filter((p) => body.filter == null || matches(body.filter, p)).length;
  }

  /** `points/query`: the ranked points, after offset and limit. */
  query(c: StubCollection, body: Body): Scored[] {
    const offset = body.offset ?? 0;
    return this.ranked(c, body, true).slice(offset, offset + (body.limit ?? 10));
  }

  /** `points/query/groups`: groups by a payload field, ordered by their best hit. */
  groups(c: StubCollection, body: Body): Array<{ id: string | number; hits: Scored[] }> {
    if (body.with_lookup) throw new Unsupported('with_lookup');
    const size = body.group_size ?? 3;
    const groups = new Map<string, { id: string | number; hits: Scored[] }>();
    for (const hit of this.ranked(c, body, true)) {
      for (const v of valuesAt(hit.point.payload, body.group_by)) {
        if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) continue;
        const key = `${typeof v}:${v}`;
        const group = groups.get(key) ?? { id: v, hits: [] };
        groups.set(key, group);
        if (group.hits.length < size) group.hits.push(hit);
      }
    }
    return [...groups.values()].slice(0, body.limit ?? 10);
  }

  /** Scores a query node (with its prefetches) over the collection; the top node is not cut at its limit. */
  private ranked(c: StubCollection, node: Body, top: boolean): Scored[] {
    if (node.lookup_from) throw new Unsupported('lookup_from');
    if (node.shard_key) throw new Unsupported('shard keys');
    const prefetch: Body[] = node.prefetch == null ? [] : Array.isArray(node.prefetch) ? node.prefetch : [node.prefetch];
    const lists = prefetch.map((p) => this.ranked(c, p, false));
    const admitted = (p: StoredPoint) => node.filter == null || matches(node.filter, p);
    let query = node.query;
    if (query && typeof query === 'object' && !Array.isArray(query) && 'nearest' in query) {
      if (query.mmr) throw new Unsupported('mmr');
      query = query.nearest;
    }
    let out: Scored[];
    if (query && typeof query === 'object' && !Array.isArray(query) && ('fusion' in query || 'rrf' in query)) {
      if (!lists.length) throw new WrongInput('fusion needs prefetches');
      if (query.fusion && query.fusion !== 'rrf') throw new Unsupported(`fusion ${String(query.fusion)}`);
      out = rrf(lists, query.rrf?.k ?? 2, query.rrf?.weights ?? null).filter((s) => admitted(s.point));
    } else if (query === undefined || query === null) {
      if (lists.length) throw new Unsupported('prefetch without a query');
      out = [...c.points.values()]
        .filter(admitted)
        .sort((a, b) => compareIds(a.id, b.id))
        .map((point) => ({ point, score: 0 }));
    } else {
      const pool = lists.length ? uniquePoints(lists) : [...c.points.values()];
      out = this.nearest(c, query, node.using ?? '', pool.filter(admitted));
    }
    if (node.score_threshold != null) out = out.filter((s) => s.score >= node.score_threshold);
    return top ? out : out.slice(0, node.limit ?? 10);
  }

  private nearest(c: StubCollection, query: Body, using: string, pool: StoredPoint[]): Scored[] {
    let scored: Scored[];
    if (Array.isArray(query)) {
      const cfg = c.dense[using];
      if (!cfg) throw new WrongInput(`Not existing vector name error: ${using || '(default)'}`);
      if (query.length !== cfg.size) throw new WrongInput(`Vector dimension error: expected dim: ${cfg.size}, got ${query.length}`);
      if (cfg.distance !== 'Cosine' && cfg.distance !== 'Dot') throw new Unsupported(`distance ${cfg.distance}`);
      const q = cfg.distance === 'Cosine' ? normalise(query) : query;
      scored = pool.filter((p) => p.vectors[using]).map((point) => ({ point, score: dot(q, point.vectors[using] as Dense) }));
    } else if (query && typeof query === 'object' && Array.isArray(query.indices)) {
      const cfg = c.sparse[using];
      if (!cfg) throw new WrongInput(`Not existing vector name error: ${using || '(default)'}`);
      if (new Set(query.indices).size !== query.indices.length) throw new WrongInput('query indices must be unique');
      const weights = new Map<number, number>();
      const holders = [...c.points.values()].filter((p) => p.vectors[using]);
      query.indices.forEach((index: number, i: number) => {
        let w = query.values[i] as number;
        if (cfg.modifier === 'idf') {
          const n = holders.filter((p) => (p.vectors[using] as Sparse).indices.includes(index)).length;
          w *= Math.log(1 + (holders.length - n + 0.5) / (n + 0.5));
        }
        weights.set(index, w);
      });
      scored = [];
      for (const point of pool) {
        const v = point.vectors[using] as Sparse | undefined;
        if (!v) continue;
        let score = 0;
        let shared = false;
        v.indices.forEach((index, i) => {
          const w = weights.get(index);
          if (w !== undefined) {
            shared = true;
            score += w * v.values[i];
          }
        });
        if (shared) scored.push({ point, score });
      }
    } else {
      throw new Unsupported(`query ${JSON.stringify(query).slice(0, 80)}`);
    }
    return scored.sort((a, b) => b.score - a.score || compareIds(a.point.id, b.point.id));
  }
}

function rrf(lists: Scored[][], k: number, weights: number[] | null): Scored[] {
  const fused = new Map<string, Scored>();
  lists.forEach((list, i) => {
    const w = weights?.[i] ?? 1;
    list.forEach((s, rank) => {
      const key = String(s.point.id);
      const entry = fused.get(key) ?? { point: s.point, score: 0 };
      entry.score += w / (k + rank);
      fused.set(key, entry);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score || compareIds(a.point.id, b.point.id));
}

function uniquePoints(lists: Scored[][]): StoredPoint[] {
  const seen = new Map<string, StoredPoint>();
  for (const list of lists) for (const s of list) seen.set(String(s.point.id), s.point);
  return [...seen.values()];
}

/** Whether a point passes a filter (Qdrant's must / should / must_not). */
export function matches(filter: Body, p: StoredPoint): boolean {
  if (filter.min_should) throw new Unsupported('min_should');
  const list = (x: Body): Body[] => (x == null ? [] : Array.isArray(x) ? x : [x]);
  const should = list(filter.should);
  return list(filter.must).every((c) => condition(c, p)) && (should.length === 0 || should.some((c) => condition(c, p))) && !list(filter.must_not).some((c) => condition(c, p));
}

function condition(c: Body, p: StoredPoint): boolean {
  if ('has_id' in c) return (c.has_id as PointId[]).some((id) => String(normaliseId(id)) === String(p.id));
  if ('is_empty' in c && typeof c.is_empty === 'object') return valuesAt(p.payload, c.is_empty.key).length === 0;
  if ('is_null' in c && typeof c.is_null === 'object') return valuesAt(p.payload, c.is_null.key, true).some((v) => v === null);
  if ('nested' in c || 'has_vector' in c || 'slice' in c) throw new Unsupported(`condition ${Object.keys(c).join(', ')}`);
  if (!('key' in c)) return matches(c, p);
  const others = ['geo_bounding_box', 'geo_radius', 'geo_polygon', 'values_count', 'is_empty', 'is_null'].filter((k) => c[k] != null);
  if (others.length) throw new Unsupported(`field condition ${others.join(', ')}`);
  if (c.match != null && c.range != null) throw new WrongInput('one condition per field condition');
  const values = valuesAt(p.payload, c.key);
  if (c.match != null) {
    const m = c.match;
    if ('value' in m) return values.some((v) => sameValue(v, m.value));
    if ('any' in m) return values.some((v) => (m.any as unknown[]).some((x) => sameValue(v, x)));
    throw new Unsupported(`match ${Object.keys(m).join(', ')}`);
  }
  if (c.range != null) {
    const r = c.range;
    const bounds = ['gt', 'gte', 'lt', 'lte'].filter((k) => r[k] != null);
    if (bounds.some((k) => typeof r[k] === 'string')) {
      return values.some((v) => {
        const at = typeof v === 'string' ? datetime(v) : NaN;
        return !Number.isNaN(at) && bounds.every((k) => compare(k, at, datetime(r[k] as string)));
      });
    }
    return values.some((v) => typeof v === 'number' && bounds.every((k) => compare(k, v, r[k] as number)));
  }
  throw new WrongInput(`field condition on ${String(c.key)} has no condition`);
}

function compare(op: string, v: number, bound: number): boolean {
  return op === 'gt' ? v > bound : op === 'gte' ? v >= bound : op === 'lt' ? v < bound : v <= bound;
}

function sameValue(v: unknown, x: unknown): boolean {
  if (typeof x === 'number') return typeof v === 'number' && Number.isInteger(v) && v === x;
  return v === x;
}

/** Datetimes as Qdrant reads them: RFC 3339, or without a zone (UTC), or a bare date. */
function datetime(s: string): number {
  const t = s.trim().replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return Date.parse(`${t}T00:00:00Z`);
  if (/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t)) return Date.parse(`${t}Z`);
  return /T/.test(t) ? Date.parse(t) : NaN;
}

/** Splits a payload key: `a.b`, `a."b.c"`, `a[].b`. */
export function keyPath(key: string): Array<string | null> {
  const out: Array<string | null> = [];
  const re = /"([^"]*)"|([^.[\]"]+)|(\[\])/g;
  for (const m of key.matchAll(re)) out.push(m[3] ? null : (m[1] ?? m[2]));
  return out;
}

/** The values at a key; arrays at the end are flattened (a condition holds when it holds for an element). */
export function valuesAt(payload: Payload, key: string, keepNull = false): unknown[] {
  let current: unknown[] = [payload];
  for (const segment of keyPath(key)) {
    const next: unknown[] = [];
    for (const v of current) {
      if (segment === null) {
        if (Array.isArray(v)) next.push(...v);
      } else if (v && typeof v === 'object' && !Array.isArray(v) && segment in v) {
        next.push((v as Payload)[segment]);
      }
    }
    current = next;
  }
  const flat = current.flatMap((v) => (Array.isArray(v) ? v : [v]));
  return keepNull ? flat : flat.filter((v) => v !== null && v !== undefined);
}

function normaliseId(id: PointId): PointId {
  return typeof id === 'string' ? hyphenated(id) : id;
}

function hyphenated(uuid: string): string {
  const hex = uuid
    .replace(/^urn:uuid:/i, '')
    .replace(/-/g, '')
    .toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function compareIds(a: PointId, b: PointId): number {
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function normalise(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm === 0 ? v : v.map((x) => x / norm);
}

function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
