import type Database from 'better-sqlite3';
import { BlockData } from './block-data';
import { cacheBlocks, releaseDense } from './block-cache';
import type { Directory, ListPart } from './directory';
import type { StoreStats } from './input';
import type { LexicalState } from './state';

/** Directory entries kept between queries, at most (the least recently used directories dropped past it). */
const MAX_DIR_ENTRIES = 2_000_000;

/**
 * Blocks [from, to) of a list, entries and data, in one statement and one row: a JSON array a column (parsing
 * them costs half of reading a row per block) and the data concatenated (group_concat keeps a blob's bytes;
 * cast back to one). Walking a list's rows is most of what reading its directory costs (a row holds its
 * block's data: ~4 µs a page of 7), so the data comes with it: a list's first reading walks its rows once, not
 * twice (at 1M chunks 7–8 ms of SQL each time for a query's three common lists).
 */
export function readPart(
  db: Database.Database,
  state: LexicalState,
  key: number,
  term: string,
  from: number,
  to: number,
): ListPart {
  const st = (state.statements ??= {});
  const stmt = (st.part ??= db
    .prepare(
      `SELECT json_group_array(block), json_group_array(first), json_group_array(last), json_group_array(count), json_group_array(max_body), json_group_array(max_heading),
              json_group_array(min_length), json_group_array(length(data)), CAST(group_concat(data, '') AS BLOB)
       FROM (SELECT block, first, last, count, max_body, max_heading, min_length, data FROM lex_blocks WHERE store_key = ? AND term = ? AND block >= ? AND block < ? ORDER BY block)`,
    )
    .raw());
  const row = stmt.get(key, term, from, to) as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    Buffer | null,
  ];
  const [block, first, last, count, maxBody, maxHeading, minLength, length] = row
    .slice(0, 8)
    .map((x) => JSON.parse(x as string) as number[]);
  return { block, first, last, count, maxBody, maxHeading, minLength, length, all: row[8] };
}

/**
 * A list's directory: cached by (store, term); on a new generation only its tail is re-read (unless
 * compacted). The blocks' data read with it is cached too (within `cacheBytes`; with `share`, the
 * preload's, only while the cache holds less: `full` says some were left out). `parts`: the list as
 * the preload read it (whole, at generation `gen`).
 */
export function directory(
  db: Database.Database,
  state: LexicalState,
  s: StoreStats,
  term: string,
  gen: number,
  cacheBytes: number,
  parts?: ListPart[],
  share = Infinity,
): { dir: Directory; full: boolean } {
  const dirs = (state.dirs ??= new Map<string, Directory>());
  const key = `${s.key}\u0000${term}`;
  const cached = dirs.get(key);
  if (!parts && cached && cached.gen === gen && cached.cgen === s.cgen) {
    dirs.delete(key);
    dirs.set(key, cached);
    return { dir: cached, full: false };
  }
  const from = !parts && cached && cached.cgen === s.cgen ? Math.max(0, cached.size - 1) : 0;
  parts ??= [readPart(db, state, s.key, term, from, 2 ** 31)];
  let size = from;
  for (const part of parts) size += part.block.length;
  const dir: Directory = {
    gen,
    cgen: s.cgen,
    first: new Float64Array(size),
    last: new Float64Array(size),
    count: new Uint32Array(size),
    maxBody: new Uint32Array(size),
    maxHeading: new Uint32Array(size),
    minLength: new Uint32Array(size),
    size,
    data: new BlockData(size),
  };
  if (from && cached) {
    dir.first.set(cached.first.subarray(0, from));
    dir.last.set(cached.last.subarray(0, from));
    dir.count.set(cached.count.subarray(0, from));
    dir.maxBody.set(cached.maxBody.subarray(0, from));
    dir.maxHeading.set(cached.maxHeading.subarray(0, from));
    dir.minLength.set(cached.minLength.subarray(0, from));
  }
  for (const { block, first, last, count, maxBody, maxHeading, minLength } of parts)
    for (let i = 0; i < block.length; i++) {
      const b = block[i];
      dir.first[b] = first[i];
      dir.last[b] = last[i];
      dir.count[b] = count[i];
      dir.maxBody[b] = maxBody[i];
      dir.maxHeading[b] = maxHeading[i];
      dir.minLength[b] = minLength[i];
    }
  if (cached) {
    state.dirEntries = (state.dirEntries ?? 0) - cached.size;
    releaseDense(state, cached);
  }
  dirs.delete(key);
  dirs.set(key, dir);
  state.dirEntries = (state.dirEntries ?? 0) + size;
  while ((state.dirEntries ?? 0) > MAX_DIR_ENTRIES && dirs.size > 1) {
    const [k0, d0] = dirs.entries().next().value as [string, Directory];
    dirs.delete(k0);
    state.dirEntries -= d0.size;
    releaseDense(state, d0);
  }
  let full = false;
  for (const part of parts)
    full = cacheBlocks(state, dir, part.block, part.length, part.all, cacheBytes, share).full || full;
  return { dir, full };
}
