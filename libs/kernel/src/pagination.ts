import { ValidationFailedError } from './errors';
import { isUuid } from './ids';

/** Opaque cursors: base64url of a JSON object of sort keys. */
export function encodeCursor(keys: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(keys)).toString('base64url');
}

export function decodeCursor(cursor: string, field: 'after' | 'before'): Record<string, string | number> {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Object.entries(value).every(([k, v]) => validCursorValue(k, v))
    )
      return value as Record<string, string | number>;
  } catch {
    /* fall through */
  }
  throw new ValidationFailedError([
    { loc: ['query', field], msg: 'Invalid cursor', type: 'value_error', input: cursor },
  ]);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * A cursor's sort keys as the listings write them: timestamps (`c`, `t`) in ISO form, ids as UUIDs,
 * other keys short strings or numbers. Anything else is a forged cursor (422), never a query error.
 */
function validCursorValue(key: string, v: unknown): boolean {
  if (key === 'c' || key === 't') return typeof v === 'string' && ISO_TIME.test(v) && !Number.isNaN(Date.parse(v));
  if (key === 'id') return (typeof v === 'string' && isUuid(v)) || (typeof v === 'number' && Number.isFinite(v));
  return (
    (typeof v === 'string' && v.length <= 1024 && !v.includes('\u0000')) ||
    (typeof v === 'number' && Number.isFinite(v))
  );
}

export interface CursorRequest {
  limit?: number;
  after?: string | null;
  before?: string | null;
  include_total?: boolean;
}

export interface CursorPage<T> {
  object: 'list';
  data: T[];
  pagination: { has_more: boolean; first_cursor: string | null; last_cursor: string | null; total?: number };
}

/**
 * Keyset pagination over a total order. `fetch` receives the decoded cursor, the direction and
 * `limit + 1` and must return items in the listing's order when direction is `forward`, and in
 * reverse order when `backward`. `has_more` follows the direction of the request.
 */
export async function paginateByCursor<T>(
  req: CursorRequest,
  cursorOf: (item: T) => Record<string, string | number>,
  fetch: (args: {
    cursor: Record<string, string | number> | null;
    direction: 'forward' | 'backward';
    take: number;
  }) => Promise<T[]>,
  countAll?: () => Promise<number>,
): Promise<CursorPage<T>> {
  if (req.after && req.before) {
    throw new ValidationFailedError([
      { loc: ['query', 'before'], msg: 'after and before cannot be used together', type: 'value_error' },
    ]);
  }
  const limit = req.limit ?? 20;
  const direction = req.before ? 'backward' : 'forward';
  const raw = req.before ?? req.after ?? null;
  const cursor = raw ? decodeCursor(raw, req.before ? 'before' : 'after') : null;
  const rows = await fetch({ cursor, direction, take: limit + 1 });
  const hasMore = rows.length > limit;
  let data = rows.slice(0, limit);
  if (direction === 'backward') data = data.reverse();
  const page: CursorPage<T> = {
    object: 'list',
    data,
    pagination: {
      has_more: hasMore,
      first_cursor: data.length ? encodeCursor(cursorOf(data[0])) : null,
      last_cursor: data.length ? encodeCursor(cursorOf(data[data.length - 1])) : null,
    },
  };
  if (req.include_total && countAll) page.pagination.total = await countAll();
  return page;
}

export interface LimitOffsetPage<T> {
  object: 'list';
  data: T[];
  pagination: { limit: number; offset: number; total: number };
}

/** Limit/offset pages always carry `total` and `offset`: the official client stops paging without them. */
export async function paginateByOffset<T>(
  req: { limit?: number; offset?: number },
  fetch: (args: { limit: number; offset: number }) => Promise<{ rows: T[]; total: number }>,
): Promise<LimitOffsetPage<T>> {
  const limit = req.limit ?? 100;
  const offset = req.offset ?? 0;
  const { rows, total } = await fetch({ limit, offset });
  return { object: 'list', data: rows, pagination: { limit, offset, total } };
}

/** Where a newest-first listing, searchable with a fuzzy `q`, reads its rows. */
export interface ListingSource<T> {
  createdAt(row: T): Date;
  id(row: T): string;
  /** Keyset page, newest first (see paginateByCursor's `fetch`). */
  page(cursor: { c: string; id: string } | null, direction: 'forward' | 'backward', take: number): Promise<T[]>;
  /** Best matches of `q` first, from `offset`. */
  search(q: string, offset: number, count: number): Promise<T[]>;
  count(q?: string): Promise<number>;
}

/**
 * A listing newest first, or, with `q`, best fuzzy matches first: the cursor then carries the rank, so
 * paging both ways stays consistent for the same `q`.
 */
export async function paginateListing<T>(
  req: CursorRequest,
  q: string | null | undefined,
  source: ListingSource<T>,
): Promise<CursorPage<T>> {
  if (!q) {
    return paginateByCursor<T>(
      req,
      (row) => ({ c: source.createdAt(row).toISOString(), id: source.id(row) }),
      ({ cursor, direction, take }) => source.page(cursor as { c: string; id: string } | null, direction, take),
      () => source.count(),
    );
  }
  const ranks = new WeakMap<object, number>();
  return paginateByCursor<T>(
    req,
    (row) => ({ r: ranks.get(row as object)! }),
    async ({ cursor, direction, take }) => {
      const at = cursor ? Number(cursor.r) : direction === 'forward' ? -1 : 0;
      const start = direction === 'forward' ? at + 1 : Math.max(0, at - take);
      const count = direction === 'forward' ? take : at - start;
      const rows = await source.search(q, start, count);
      rows.forEach((row, i) => ranks.set(row as object, start + i));
      // backward: the `take` rows before the cursor, nearest first
      return direction === 'forward' ? rows : rows.reverse();
    },
    () => source.count(q),
  );
}

/** OpenAI's list parameters: `order` by creation time, `after`/`before` an object id of the listing. */
export interface IdCursorRequest {
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
  before?: string;
}

/** OpenAI's list object: `has_more`, `first_id` and `last_id` beside `data` (its client pages with `after=<last id>`). */
export interface IdCursorPage<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** A cursor page that carries OpenAI's list fields beside its `pagination` too. */
export type CursorPageWithIds<T> = CursorPage<T> & Omit<IdCursorPage<T>, 'object' | 'data'>;

/**
 * A cursor page answered in both shapes: Mixedbread's `pagination` and OpenAI's top-level `has_more`,
 * `first_id` and `last_id` (OpenAI's client reads `has_more` and asks for `after=<last_id>`).
 */
export function withIdCursorFields<T>(page: CursorPage<T>, idOf: (item: T) => string): CursorPageWithIds<T> {
  const { data } = page;
  return {
    ...page,
    first_id: data.length ? idOf(data[0]) : null,
    last_id: data.length ? idOf(data[data.length - 1]) : null,
    has_more: page.pagination.has_more,
  };
}

/** One keyset query of an id-cursor listing: rows beyond `anchor` (`cmp` on the sort keys) in `order`. */
export interface IdCursorFetch {
  /** The id whose sort keys bound the page; null: from the start. */
  anchor: string | null;
  cmp: '<' | '>';
  order: 'ASC' | 'DESC';
  take: number;
}

/**
 * Keyset pagination of OpenAI's lists over (created_at, id). `fetch` answers null when `anchor` names
 * no row of the listing (a 422 at `query.after`/`query.before`: a deleted or foreign id cannot say
 * where the next page starts). `has_more` follows the direction of the request.
 */
export async function paginateByIdCursor<T>(
  req: IdCursorRequest,
  idOf: (row: T) => string,
  fetch: (q: IdCursorFetch) => Promise<T[] | null>,
): Promise<IdCursorPage<T>> {
  if (req.after && req.before)
    throw new ValidationFailedError([
      { loc: ['query', 'before'], msg: 'after and before cannot be used together', type: 'value_error' },
    ]);
  const limit = req.limit ?? 20;
  const desc = (req.order ?? 'desc') === 'desc';
  const backward = !!req.before;
  const anchor = req.before ?? req.after ?? null;
  const field = backward ? 'before' : 'after';
  const unknown = () =>
    new ValidationFailedError([
      { loc: ['query', field], msg: `'${anchor}' is not an id of this listing`, type: 'value_error', input: anchor },
    ]);
  if (anchor !== null && !isUuid(anchor)) throw unknown();
  // forward: beyond the anchor in the listing's order; backward: before it, read nearest first
  const cmp = desc !== backward ? '<' : '>';
  const order = desc !== backward ? 'DESC' : 'ASC';
  const rows = await fetch({ anchor, cmp, order, take: limit + 1 });
  if (rows === null) throw unknown();
  const hasMore = rows.length > limit;
  let data = rows.slice(0, limit);
  if (backward) data = data.reverse();
  return {
    object: 'list',
    data,
    first_id: data.length ? idOf(data[0]) : null,
    last_id: data.length ? idOf(data[data.length - 1]) : null,
    has_more: hasMore,
  };
}
