import { RE2JS } from 're2js';
import { ValidationFailedError } from './errors';
import { LIMITS } from './limits';

const compiled = new Map<string, RE2JS>();
/** RE2 (linear time, no backtracking): a user's pattern can never stall the server. Compiled once per pattern. */
export function re2(pattern: string): RE2JS {
  let r = compiled.get(pattern);
  if (!r) {
    r = RE2JS.compile(pattern);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, r);
  }
  return r;
}

/**
 * The metadata filter grammar (`all`/`any`/`none` groups of `{key, operator, value}` conditions), shared by search, grep, list-chunks, facets, QA and
 * the store-file list: parsed once into this tree, then evaluated in memory or compiled to SQL.
 */
export const CONDITION_OPERATORS = [
  'eq',
  'not_eq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
  'like',
  'not_like',
  'starts_with',
  'regex',
  'contains',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export interface FilterCondition {
  kind: 'condition';
  /** `file` = file metadata (unprefixed keys); `chunk` = `generated_metadata.*`. */
  target: 'file' | 'chunk';
  path: string[];
  operator: ConditionOperator;
  value: unknown;
}
export interface FilterGroup {
  kind: 'all' | 'any' | 'none';
  children: FilterNode[];
}
export type FilterNode = FilterCondition | FilterGroup;

type Loc = (string | number)[];
const fail = (loc: Loc, msg: string, input?: unknown): never => {
  throw new ValidationFailedError([{ loc, msg, type: 'value_error', ...(input !== undefined ? { input } : {}) }]);
};

/** Parses `filters` (a filter, a condition, a list of either = AND, or null). Null when there is nothing to filter. */
export function parseFilters(input: unknown, loc: Loc = ['body', 'filters'], depth = 0): FilterNode | null {
  if (input === null || input === undefined) return null;
  if (depth === 0) {
    const bytes = Buffer.byteLength(JSON.stringify(input) ?? '', 'utf8');
    if (bytes > LIMITS.filterBytes)
      fail(loc, `Filters must be at most ${LIMITS.filterBytes} bytes as JSON (these are ${bytes})`);
    const tree = parseFilters(input, loc, 1);
    if (tree && countConditions(tree) > LIMITS.filterConditions)
      fail(loc, `Filters may hold at most ${LIMITS.filterConditions} conditions`);
    return tree;
  }
  if (depth > LIMITS.filterDepth) fail(loc, `Filters are nested too deeply (at most ${LIMITS.filterDepth} levels)`);
  if (Array.isArray(input)) {
    const children = input
      .map((x, i) => parseFilters(x, [...loc, i], depth + 1))
      .filter((x): x is FilterNode => x !== null);
    return children.length ? { kind: 'all', children } : null;
  }
  if (typeof input !== 'object') return fail(loc, 'Expected a filter object, a condition or a list of them', input);
  const o = input as Record<string, unknown>;
  if ('key' in o || 'operator' in o) return parseCondition(o, loc);
  const groups = (['all', 'any', 'none'] as const).filter((k) => o[k] !== undefined && o[k] !== null);
  const unknown = Object.keys(o).filter((k) => !['all', 'any', 'none'].includes(k));
  if (unknown.length)
    fail([...loc, unknown[0]], `Unknown filter field '${unknown[0]}' (expected all, any, none, or key/operator/value)`);
  const nodes: FilterNode[] = [];
  for (const k of groups) {
    const v = o[k];
    if (!Array.isArray(v)) fail([...loc, k], `'${k}' must be a list of filters or conditions`, v);
    const children = (v as unknown[])
      .map((x, i) => parseFilters(x, [...loc, k, i], depth + 1))
      .filter((x): x is FilterNode => x !== null);
    nodes.push({ kind: k, children });
  }
  if (!nodes.length) return null;
  return nodes.length === 1 ? nodes[0] : { kind: 'all', children: nodes };
}

function parseCondition(o: Record<string, unknown>, loc: Loc): FilterCondition {
  const extra = Object.keys(o).filter((k) => !['key', 'operator', 'value'].includes(k));
  if (extra.length) fail([...loc, extra[0]], `Unknown condition field '${extra[0]}'`);
  if (typeof o.key !== 'string' || !o.key.trim()) fail([...loc, 'key'], 'key must be a non-empty string', o.key);
  if (typeof o.operator !== 'string' || !(CONDITION_OPERATORS as readonly string[]).includes(o.operator)) {
    fail([...loc, 'operator'], `operator must be one of ${CONDITION_OPERATORS.join(', ')}`, o.operator);
  }
  if (!('value' in o)) fail([...loc, 'value'], 'value is required');
  const op = o.operator as ConditionOperator;
  const v = o.value;
  if ((op === 'in' || op === 'not_in') && !Array.isArray(v)) fail([...loc, 'value'], `'${op}' needs a list value`, v);
  if (Array.isArray(v) && v.length > LIMITS.filterListValues)
    fail([...loc, 'value'], `A list value holds at most ${LIMITS.filterListValues} items`);
  if (['like', 'not_like', 'starts_with', 'regex'].includes(op) && typeof v !== 'string')
    fail([...loc, 'value'], `'${op}' needs a string value`, v);
  if (['gt', 'gte', 'lt', 'lte'].includes(op) && typeof v !== 'number' && typeof v !== 'string')
    fail([...loc, 'value'], `'${op}' needs a number or a string`, v);
  if (op === 'regex') {
    try {
      re2(v as string);
    } catch (err) {
      fail([...loc, 'value'], `Invalid regular expression (RE2 syntax): ${(err as Error).message}`, v);
    }
  }
  let path = (o.key as string).split('.');
  let target: 'file' | 'chunk' = 'file';
  if (path[0] === 'generated_metadata' && path.length > 1) {
    target = 'chunk';
    path = path.slice(1);
  } else if (path[0] === 'metadata' && path.length > 1) {
    path = path.slice(1);
  }
  if (path.some((p) => p === '')) fail([...loc, 'key'], 'key has an empty path segment', o.key);
  return { kind: 'condition', target, path, operator: op, value: v };
}

/** Whether any condition addresses chunk metadata (the store-file list can only answer file metadata). */
export function filterTargets(node: FilterNode | null): Set<'file' | 'chunk'> {
  const out = new Set<'file' | 'chunk'>();
  const walk = (n: FilterNode) => (n.kind === 'condition' ? out.add(n.target) : n.children.forEach(walk));
  if (node) walk(node);
  return out;
}

const likeToRegExp = (pattern: string) =>
  new RegExp(
    '^' +
      pattern
        .split('')
        .map((ch) => (ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('') +
      '$',
    'is',
  );

function get(obj: unknown, path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function compare(field: unknown, value: unknown): number | null {
  if (typeof field === 'number' && typeof value === 'number') return field - value;
  if (typeof field === 'string' && typeof value === 'string') return field < value ? -1 : field > value ? 1 : 0;
  return null;
}

/**
 * Evaluates a condition tree. Semantics (documented in docs/api.md, Metadata filters): `eq` is JSON equality; a missing
 * key matches only `not_eq`, `not_in` and `not_like`; comparisons need both sides numbers or both
 * strings; `like` uses `%`/`_` and ignores case; `contains` is substring (strings) or membership (lists).
 */
export function evaluateFilter(node: FilterNode | null, doc: { file: unknown; chunk?: unknown }): boolean {
  if (!node) return true;
  switch (node.kind) {
    case 'all':
      return node.children.every((c) => evaluateFilter(c, doc));
    case 'any':
      return node.children.length === 0 || node.children.some((c) => evaluateFilter(c, doc));
    case 'none':
      return !node.children.some((c) => evaluateFilter(c, doc));
  }
  const f = get(node.target === 'file' ? doc.file : doc.chunk, node.path);
  const v = node.value;
  switch (node.operator) {
    case 'eq':
      return (
        f !== undefined &&
        (jsonEquals(f, v) || (Array.isArray(f) && !Array.isArray(v) && f.some((x) => jsonEquals(x, v))))
      );
    case 'not_eq':
      return !(f !== undefined && jsonEquals(f, v));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const c = compare(f, v);
      if (c === null) return false;
      return node.operator === 'gt'
        ? c > 0
        : node.operator === 'gte'
          ? c >= 0
          : node.operator === 'lt'
            ? c < 0
            : c <= 0;
    }
    case 'in':
      return (
        f !== undefined &&
        (v as unknown[]).some((x) => jsonEquals(f, x) || (Array.isArray(f) && f.some((y) => jsonEquals(y, x))))
      );
    case 'not_in':
      return !(
        f !== undefined &&
        (v as unknown[]).some((x) => jsonEquals(f, x) || (Array.isArray(f) && f.some((y) => jsonEquals(y, x))))
      );
    case 'like':
      return typeof f === 'string' && likeToRegExp(v as string).test(f);
    case 'not_like':
      return !(typeof f === 'string' && likeToRegExp(v as string).test(f));
    case 'starts_with':
      return typeof f === 'string' && f.startsWith(v as string);
    case 'regex':
      return (
        typeof f === 'string' &&
        re2(v as string)
          .matcher(f)
          .find()
      );
    case 'contains':
      if (typeof f === 'string') return typeof v === 'string' && f.includes(v);
      if (Array.isArray(f)) return f.some((x) => jsonEquals(x, v));
      return false;
  }
}

/**
 * Compiles a tree to a Postgres boolean expression over jsonb columns, with the same semantics as
 * `evaluateFilter`. `columns.chunk` may be null (file-level listings): chunk conditions are then false.
 */
export function compileFilterToPostgres(
  node: FilterNode | null,
  columns: { file: string; chunk: string | null },
  params: unknown[],
): string {
  if (!node) return 'TRUE';
  if (node.kind !== 'condition') {
    const parts = node.children.map((c) => `(${compileFilterToPostgres(c, columns, params)})`);
    if (node.kind === 'all') return parts.length ? parts.join(' AND ') : 'TRUE';
    if (node.kind === 'any') return parts.length ? parts.join(' OR ') : 'TRUE';
    return parts.length ? `NOT (${parts.join(' OR ')})` : 'TRUE';
  }
  const col = node.target === 'file' ? columns.file : columns.chunk;
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const path = p(node.path);
  const j = col ? `(${col} #> ${path}::text[])` : `NULL::jsonb`;
  const t = col ? `(${col} #>> ${path}::text[])` : `NULL::text`;
  const v = node.value;
  const present = `(${j} IS NOT NULL AND jsonb_typeof(${j}) <> 'null')`;
  const isIn = (list: string) =>
    `(${present} AND (${j} IN (SELECT jsonb_array_elements(${list}::jsonb)) OR (jsonb_typeof(${j}) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements(${j}) x WHERE x IN (SELECT jsonb_array_elements(${list}::jsonb))))))`;
  switch (node.operator) {
    case 'eq': {
      const val = p(JSON.stringify(v));
      return `COALESCE(${j} = ${val}::jsonb OR (jsonb_typeof(${j}) = 'array' AND ${j} @> jsonb_build_array(${val}::jsonb)), FALSE)`;
    }
    case 'not_eq':
      return `NOT COALESCE(${j} = ${p(JSON.stringify(v))}::jsonb, FALSE)`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[node.operator];
      if (typeof v === 'number')
        return `COALESCE(CASE WHEN jsonb_typeof(${j}) = 'number' THEN (${t})::numeric ${op} ${p(v)}::numeric END, FALSE)`;
      return `COALESCE(CASE WHEN jsonb_typeof(${j}) = 'string' THEN ${t} COLLATE "C" ${op} ${p(v)}::text COLLATE "C" END, FALSE)`;
    }
    case 'in':
      return `COALESCE(${isIn(p(JSON.stringify(v)))}, FALSE)`;
    case 'not_in':
      return `NOT COALESCE(${isIn(p(JSON.stringify(v)))}, FALSE)`;
    case 'like':
      return `COALESCE(jsonb_typeof(${j}) = 'string' AND ${t} ILIKE ${p(v)}, FALSE)`;
    case 'not_like':
      return `NOT COALESCE(jsonb_typeof(${j}) = 'string' AND ${t} ILIKE ${p(v)}, FALSE)`;
    case 'starts_with':
      return `COALESCE(jsonb_typeof(${j}) = 'string' AND left(${t}, length(${p(v)}::text)) = ${p(v)}::text, FALSE)`;
    case 'regex':
      return `COALESCE(jsonb_typeof(${j}) = 'string' AND ${t} ~ ${p(v)}, FALSE)`;
    case 'contains': {
      const val = p(JSON.stringify(v));
      return `COALESCE(CASE jsonb_typeof(${j}) WHEN 'array' THEN ${j} @> jsonb_build_array(${val}::jsonb) WHEN 'string' THEN (jsonb_typeof(${val}::jsonb) = 'string' AND strpos(${t}, ${val}::jsonb #>> '{}') > 0) ELSE FALSE END, FALSE)`;
    }
  }
}

function countConditions(node: FilterNode): number {
  return node.kind === 'condition' ? 1 : node.children.reduce((n, c) => n + countConditions(c), 0);
}
