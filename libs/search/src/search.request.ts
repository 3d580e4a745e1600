import { CONDITION_OPERATORS, FilterNode, parseFilters, Problems, ValidationFailedError } from '@larder/kernel';

type Loc = (string | number)[];

export const MAX_TOP_K = 1000;
export const MAX_STORES = 16;

export interface FileIdSelection {
  include?: string[];
  exclude?: string[];
}

export interface CommonParams {
  storeIdentifiers: string[];
  topK: number;
  filter: FilterNode | null;
  /** The filters as sent (recorded in activity events). */
  rawFilters: unknown;
  fileIds: FileIdSelection | null;
}

export interface RerankOptions {
  model: string;
  withMetadata: boolean | string[];
  topK: number | null;
}

export interface SearchOptions {
  scoreThreshold: number;
  rewriteQuery: boolean;
  rerank: RerankOptions | null;
  returnMetadata: boolean;
  applySearchRules: boolean;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function body(input: unknown): Record<string, unknown> {
  if (!isObject(input)) throw new ValidationFailedError([{ loc: ['body'], msg: 'Input should be a JSON object', type: 'model_type', input }]);
  return input;
}

function topK(p: Problems, b: Record<string, unknown>, def: number, max: number): number {
  const v = b.top_k;
  if (v === undefined || v === null) return def;
  if (typeof v !== 'number' || !Number.isInteger(v)) p.add(['body', 'top_k'], 'Input should be a valid integer', 'int_type', v);
  else if (v < 1) p.add(['body', 'top_k'], 'Input should be greater than or equal to 1', 'greater_than_equal', v);
  else if (v > max) p.add(['body', 'top_k'], `Input should be less than or equal to ${max}`, 'less_than_equal', v);
  else return v;
  return def;
}

function fileIds(p: Problems, v: unknown): FileIdSelection | null {
  const loc = ['body', 'file_ids'];
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) {
    p.add(loc, 'Input should be a list of file ids or an [operator, [file ids]] tuple', 'list_type', v);
    return null;
  }
  const strings = (xs: unknown[], at: Loc) => {
    const bad = xs.findIndex((x) => typeof x !== 'string' || !x);
    if (bad >= 0) p.add([...at, bad], 'Input should be a file id string', 'string_type', xs[bad]);
    return xs as string[];
  };
  // a tuple: [operator, list | id], the operator first (a ConditionOperator value)
  if (typeof v[0] === 'string' && (CONDITION_OPERATORS as readonly string[]).includes(v[0])) {
    const op = v[0];
    if (v.length !== 2 || !(Array.isArray(v[1]) || typeof v[1] === 'string')) {
      p.add(loc, 'The tuple form is [operator, [file ids]]', 'value_error', v);
      return null;
    }
    if (!['in', 'not_in', 'eq', 'not_eq'].includes(op)) {
      p.add([...loc, 0], `file_ids supports the operators 'in', 'not_in', 'eq' and 'not_eq', not '${op}'`, 'value_error', op);
      return null;
    }
    const ids = Array.isArray(v[1]) ? strings(v[1], [...loc, 1]) : [v[1] as string];
    return op === 'in' || op === 'eq' ? { include: ids } : { exclude: ids };
  }
  if (v.length === 2 && typeof v[0] === 'string' && Array.isArray(v[1])) {
    p.add([...loc, 0], `Unknown operator '${v[0]}': the tuple form is [operator, [file ids]] with 'in', 'not_in', 'eq' or 'not_eq'`, 'value_error', v[0]);
    return null;
  }
  return { include: strings(v, loc) };
}

/** The fields every store query shares (§16): `store_identifiers`, `top_k`, `filters`, `file_ids`. */
export function parseCommon(input: unknown, options: { defaultTopK?: number; maxTopK?: number } = {}, p = new Problems()): CommonParams & { body: Record<string, unknown>; problems: Problems } {
  const b = body(input);
  const ids = b.store_identifiers;
  let storeIdentifiers: string[] = [];
  if (!Array.isArray(ids)) p.add(['body', 'store_identifiers'], ids === undefined ? 'Field required' : 'Input should be a valid list', ids === undefined ? 'missing' : 'list_type', ids);
  else if (ids.length < 1) p.add(['body', 'store_identifiers'], 'List should have at least 1 item after validation, not 0', 'too_short', ids);
  else if (ids.length > MAX_STORES) p.add(['body', 'store_identifiers'], `List should have at most ${MAX_STORES} items after validation, not ${ids.length}`, 'too_long', ids.length);
  else {
    ids.forEach((x, i) => {
      if (typeof x !== 'string' || !x) p.add(['body', 'store_identifiers', i], 'Input should be a valid string', 'string_type', x);
    });
    storeIdentifiers = [...new Set(ids as string[])];
  }
  const k = topK(p, b, options.defaultTopK ?? 10, options.maxTopK ?? MAX_TOP_K);
  let filter: FilterNode | null = null;
  try {
    filter = parseFilters(b.filters, ['body', 'filters']);
  } catch (err) {
    if (err instanceof ValidationFailedError) p.list.push(...err.detail);
    else throw err;
  }
  const f = fileIds(p, b.file_ids);
  return { body: b, problems: p, storeIdentifiers, topK: k, filter, rawFilters: b.filters ?? null, fileIds: f };
}

function bool(p: Problems, o: Record<string, unknown>, key: string, def: boolean, loc: Loc): boolean {
  const v = o[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== 'boolean') {
    p.add([...loc, key], 'Input should be a valid boolean', 'bool_type', v);
    return def;
  }
  return v;
}

export const DEFAULT_RERANK_MODEL = 'mixedbread-ai/mxbai-rerank-large-v2';

/** `search_options` (§15.3). `agentic` is accepted here and handled by the agentic search. */
export function parseSearchOptions(p: Problems, v: unknown): SearchOptions & { agentic: unknown } {
  const loc = ['body', 'search_options'];
  const o = v === undefined || v === null ? {} : isObject(v) ? v : (p.add(loc, 'Input should be an object', 'model_type', v), {});
  let scoreThreshold = 0;
  if (o.score_threshold !== undefined && o.score_threshold !== null) {
    const t = o.score_threshold;
    if (typeof t !== 'number' || t < 0 || t > 1) p.add([...loc, 'score_threshold'], 'Input should be a number between 0 and 1', 'value_error', t);
    else scoreThreshold = t;
  }
  let rerank: RerankOptions | null = null;
  const r = o.rerank;
  if (r === true) rerank = { model: DEFAULT_RERANK_MODEL, withMetadata: false, topK: null };
  else if (isObject(r)) {
    const model = r.model ?? DEFAULT_RERANK_MODEL;
    if (typeof model !== 'string' || model.length < 1 || model.length > 500) p.add([...loc, 'rerank', 'model'], 'String should have 1 to 500 characters', 'string_type', model);
    const wm = r.with_metadata ?? false;
    if (typeof wm !== 'boolean' && !(Array.isArray(wm) && wm.every((x) => typeof x === 'string'))) p.add([...loc, 'rerank', 'with_metadata'], 'Input should be a boolean or a list of keys', 'value_error', wm);
    const tk = r.top_k ?? null;
    if (tk !== null && (typeof tk !== 'number' || !Number.isInteger(tk) || tk < 1)) p.add([...loc, 'rerank', 'top_k'], 'Input should be a positive integer', 'greater_than', tk);
    rerank = { model: String(model), withMetadata: wm as boolean | string[], topK: tk as number | null };
  } else if (r !== undefined && r !== null && r !== false) p.add([...loc, 'rerank'], 'Input should be a boolean or a rerank config', 'value_error', r);
  return {
    scoreThreshold,
    rewriteQuery: bool(p, o, 'rewrite_query', false, loc),
    rerank,
    returnMetadata: bool(p, o, 'return_metadata', true, loc),
    applySearchRules: bool(p, o, 'apply_search_rules', true, loc),
    agentic: o.agentic ?? null,
  };
}

/** `query`: a string or a `TextInput` (image queries need a multimodal embedder: 422 here). */
export function parseQuery(p: Problems, v: unknown, required: boolean): string | null {
  const loc = ['body', 'query'];
  if (v === undefined || v === null) {
    if (required) p.add(loc, 'Field required', 'missing');
    return null;
  }
  if (typeof v === 'string') {
    if (!v.trim()) p.add(loc, 'String should have at least 1 character', 'string_too_short', v);
    else if (v.length > 65_536) p.add(loc, 'String should have at most 65536 characters', 'string_too_long', v.length);
    return v;
  }
  if (isObject(v) && (v.type === 'text' || v.type === undefined) && typeof v.text === 'string') {
    if (!v.text.trim()) p.add([...loc, 'text'], 'String should have at least 1 character', 'string_too_short', v.text);
    else if (v.text.length > 65_536) p.add([...loc, 'text'], 'String should have at most 65536 characters', 'string_too_long', v.text.length);
    return v.text;
  }
  if (isObject(v) && v.type === 'image_url') {
    p.add(loc, 'Image queries need a multimodal embedding model; this server embeds text only', 'value_error');
    return null;
  }
  p.add(loc, 'Input should be a string or a text input {type: "text", text}', 'value_error', v);
  return null;
}

