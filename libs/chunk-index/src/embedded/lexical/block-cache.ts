import type Database from 'better-sqlite3';
import type { DenseList } from './dense-list';
import type { Directory } from './directory';
import type { LexicalState } from './state';

/**
 * The block cache: blocks' compressed data read in runs (one statement a run), kept as parts of their
 * directory's BlockData in the order they were read, and dropped oldest first past the cache's bound;
 * the lists' dense forms are counted within the same bound.
 */

/**
 * Blocks' data kept between queries by default (compressed, about 4 bytes a posting: some 64 million
 * postings; `blockCacheBytes`). The 1M-chunk store of search-speed holds 153 MB of postings: with 64 MiB
 * its two-to-three-word queries kept re-reading the common lists from SQLite (the server's lexical step
 * 10.7 ms at p50 against 7.2 with 256 MiB). Filled only as queries read blocks.
 */
export const DEFAULT_BLOCK_CACHE_BYTES = 256 * 1024 * 1024;
/** The most blocks one statement reads ahead of a list read in order. */
export const MAX_RUN = 64;

/** Reads blocks [from, to) of a list into the cache (those not there; one statement: readPart's concatenated data); returns block `from`'s data. */
export function readRun(
  db: Database.Database,
  state: LexicalState,
  key: number,
  term: string,
  dir: Directory,
  from: number,
  to: number,
  cacheBytes: number,
): Uint8Array {
  const st = (state.statements ??= {});
  const rangeStmt = (st.range ??= db
    .prepare(
      `SELECT json_group_array(block), json_group_array(length(data)), CAST(group_concat(data, '') AS BLOB)
       FROM (SELECT block, data FROM lex_blocks WHERE store_key = ? AND term = ? AND block >= ? AND block < ? ORDER BY block)`,
    )
    .raw());
  const [numbers, lengths, all] = rangeStmt.get(key, term, from, to) as [string, string, Buffer | null];
  const bs = JSON.parse(numbers) as number[];
  const ls = JSON.parse(lengths) as number[];
  // (taken before the cache drops its oldest: a run may be larger than the whole cache)
  const got = dir.data.get(from) ?? (bs[0] === from && all ? all.subarray(0, ls[0]) : undefined);
  cacheBlocks(state, dir, bs, ls, all, cacheBytes);
  if (!got) throw new Error(`lexical index: block ${from} of a list is missing`);
  return got;
}

/**
 * Keeps blocks read (`numbers`, their data end to end in `all`, each `lengths` long: one Buffer, a part of
 * `dir.data`; a row and a Buffer per block cost twice as much), those not there yet (where some are, the
 * others' bytes are copied into a part of their own, so that a part holds only what it counts), then
 * drops the oldest parts past `cacheBytes`. With `share` (the preload's), blocks are kept only while the
 * cache holds at most that many bytes (`full`: some were not).
 */
export function cacheBlocks(
  state: LexicalState,
  dir: Directory,
  numbers: number[],
  lengths: number[],
  all: Buffer | null,
  cacheBytes: number,
  share = Infinity,
): { bytes: number; blocks: number; full: boolean } {
  state.blockHead ??= 0;
  state.blockBytes ??= 0;
  const queue = (state.blockQueue ??= []);
  let bytes = 0;
  let full = false;
  const keep: number[] = [];
  const keepLengths: number[] = [];
  const keepAt: number[] = [];
  if (all)
    for (let i = 0, at = 0; i < numbers.length; at += lengths[i++]) {
      const block = numbers[i];
      if (dir.data.has(block)) continue;
      if (state.blockBytes + bytes + lengths[i] > share) {
        full = true;
        break;
      }
      keep.push(block);
      keepLengths.push(lengths[i]);
      keepAt.push(at);
      bytes += lengths[i];
    }
  if (all && keep.length) {
    const whole = keep.length === numbers.length;
    // (a copy of its own, not a slice of Node's shared pool, which a small part would keep whole)
    let buf = all;
    if (!whole) {
      buf = Buffer.allocUnsafeSlow(bytes);
      for (let j = 0, to = 0; j < keep.length; to += keepLengths[j++])
        all.copy(buf, to, keepAt[j], keepAt[j] + keepLengths[j]);
    }
    queue.push([dir, dir.data.add(buf, keep, keepLengths)]);
    state.blockBytes += bytes;
  }
  dropOldest(state, cacheBytes);
  return { bytes, blocks: keep.length, full };
}

/** Drops the oldest parts of blocks while the cache (blocks and dense lists) holds more than `cacheBytes`. */
export function dropOldest(state: LexicalState, cacheBytes: number): void {
  const queue = (state.blockQueue ??= []);
  state.blockHead ??= 0;
  state.blockBytes ??= 0;
  state.denseBytes ??= 0;
  while (state.blockBytes + state.denseBytes > cacheBytes && state.blockHead < queue.length) {
    const [d0, slot] = queue[state.blockHead]!;
    queue[state.blockHead++] = null;
    state.blockBytes -= d0.data.drop(slot);
  }
  if (state.blockHead > 10_000 && state.blockHead * 2 > queue.length) {
    state.blockQueue = queue.slice(state.blockHead);
    state.blockHead = 0;
  }
}

/** A directory's dense form let go (the directory replaced or dropped): its bytes no longer counted, its place in the queue freed. */
export function releaseDense(state: LexicalState, dir: Directory): void {
  if (!dir.dense) return;
  state.denseBytes = (state.denseBytes ?? 0) - dir.dense.bytes;
  dir.dense = undefined;
  const queue = state.denseQueue;
  const at = queue ? queue.indexOf(dir) : -1;
  if (at >= 0) queue!.splice(at, 1);
}

/** Keeps a list's dense form in the cache (counted with the blocks, dropped with the oldest of them). */
export function keepDense(state: LexicalState, dir: Directory, dense: DenseList, cacheBytes: number): void {
  const share = cacheBytes * DENSE_CACHE_SHARE;
  // larger than the share: used by the query that made it, and marked so that no later query makes it again (a new generation may)
  if (dense.bytes > share) {
    dir.dense = null;
    return;
  }
  const queue = (state.denseQueue ??= []);
  state.denseBytes ??= 0;
  // the oldest dense lists dropped for it (never by blocks read: a dense list costs a whole list's decoding to make again)
  while (state.denseBytes + dense.bytes > share && queue.length) {
    const old = queue.shift()!;
    if (old.dense) state.denseBytes -= old.dense.bytes;
    old.dense = undefined;
  }
  dir.dense = dense;
  state.denseBytes += dense.bytes;
  queue.push(dir);
  dropOldest(state, cacheBytes);
}

/** The share of the block cache's bound that dense lists may hold (blocks are dropped for them, not they for blocks). */
export const DENSE_CACHE_SHARE = 1 / 2;
