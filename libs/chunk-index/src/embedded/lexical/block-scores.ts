import { Bm25Params, tfNorm } from '../../analysis/bm25';

/** Contributions cached by (body count, length) for postings with no heading count: BODY_SLOTS × LENGTH_SLOTS of them. */
export const BODY_SLOTS = 16;
export const LENGTH_SLOTS = 1024;

/**
 * A list's weights in one query: `scale` (its query weight × idf) and the store's average length, with
 * the memo of its contributions, `memo[body × LENGTH_SLOTS + length]`, valid where `memoOf` holds the
 * list's number `list` (nothing to clear between lists: each gets a new number).
 */
export interface ListWeights {
  memo: Float64Array;
  memoOf: Uint32Array;
  list: number;
  scale: number;
  avgLength: number;
  p: Bm25Params;
}

/** Where scoreBlock puts a block's postings: added to the flat scorer's sums (rank-flat.ts), or listed (rank-impact.ts). */
export type BlockSink =
  | {
      /** the flat scorer's arrays: sums and seen marks by id less the range's start, each span's best sum where `dense` (else the new ids in `touched`) */
      flat: true;
      acc: Float64Array;
      seen: Uint8Array;
      spanMax: Float64Array;
      spanShift: number;
      dense: boolean;
      touched: number[];
    }
  | { flat: false; ids: Int32Array; xs: Float64Array; at: number };

/**
 * Reads a block (its first chunk's id `first`, `count` postings) and scores its postings: each one's
 * contribution is `scale × tfNorm`, computed once per (body count, length) of a list where it has no
 * heading count and then looked up (the same expression, so the same double). With a flat sink, each is
 * added to its chunk's sum (id less `lo`); else its id (less `lo`) and contribution are listed from
 * `at`, which moves past them. A function of its own, called per block: V8 optimises it after a few
 * blocks of the first query that needs it, where a loop inside a ranker waited for on-stack replacement
 * (a cold query then ran a list of 200k postings unoptimised: 40 ms once instead of 3).
 */
export function scoreBlock(
  w: ListWeights,
  data: Uint8Array,
  count: number,
  first: number,
  lo: number,
  sink: BlockSink,
): void {
  // VarintReader's loop written out here, not decodeBlockInto then a second pass: with that pass the 200
  // queries of search-speed's 100k store took ~15% longer on a preloaded cache (in process, min of 15 runs a query)
  let pos = 0;
  let id = (first - lo) | 0;
  let at = sink.flat ? 0 : sink.at;
  for (let i = 0; i < count; i++) {
    let byte = data[pos++];
    let v = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) v += ((byte = data[pos++]) & 0x7f) * mul;
    id = (id + v) | 0;
    byte = data[pos++];
    let body = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) body += ((byte = data[pos++]) & 0x7f) * mul;
    byte = data[pos++];
    let heading = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) heading += ((byte = data[pos++]) & 0x7f) * mul;
    byte = data[pos++];
    let length = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) length += ((byte = data[pos++]) & 0x7f) * mul;
    const x = contribution(w, body, heading, length);
    if (sink.flat) {
      const { acc, seen, spanMax, spanShift, dense } = sink;
      if (dense) seen[id] = 1;
      else if (!seen[id]) {
        seen[id] = 1;
        sink.touched.push(id);
      }
      const sum = (acc[id] += x);
      if (dense && sum > spanMax[id >>> spanShift]) spanMax[id >>> spanShift] = sum;
    } else {
      sink.ids[at] = id;
      sink.xs[at++] = x;
    }
  }
  if (!sink.flat) sink.at = at;
}

/** A posting's contribution: `scale × tfNorm`, from the list's memo where it has no heading count. */
function contribution(w: ListWeights, body: number, heading: number, length: number): number {
  if (heading === 0 && body < BODY_SLOTS && length < LENGTH_SLOTS) {
    const slot = body * LENGTH_SLOTS + length;
    if (w.memoOf[slot] === w.list) return w.memo[slot];
    w.memoOf[slot] = w.list;
    return (w.memo[slot] = w.scale * tfNorm(body, heading, length, w.avgLength, w.p));
  }
  return w.scale * tfNorm(body, heading, length, w.avgLength, w.p);
}

/** A list's weights with a new number in the memo `m` (the flat scorer's: LexicalState['flat']). */
export function listWeights(
  m: { memo: Float64Array; memoOf: Uint32Array; lists: number },
  scale: number,
  avgLength: number,
  p: Bm25Params,
): ListWeights {
  if (++m.lists > 0xfffffff0) {
    m.lists = 1;
    m.memoOf.fill(0);
  }
  return { memo: m.memo, memoOf: m.memoOf, list: m.lists, scale, avgLength, p };
}
