import { Bm25Params, tfNorm } from '../../analysis/bm25';
import { Block, decodeBlockInto, emptyBlock } from './postings';

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

/** The block scoreBlock decodes into (grown to the largest block met). */
let scratch: Block = emptyBlock(128);

/**
 * Decodes a block (its first chunk's id `first`, `count` postings) and writes, from `at`, each posting's
 * id less `lo` to `ids` and its contribution to `xs`: `scale × tfNorm`, computed once per (body count,
 * length) of a list where it has no heading count and then looked up (the same expression, so the same
 * double). A function of its own, called per block: V8 optimises it after a few blocks of the first
 * query that needs it, where a loop inside a ranker waited for on-stack replacement (a cold query then
 * ran a list of 200k postings unoptimised: 40 ms once instead of 3).
 */
export function scoreBlock(w: ListWeights, data: Uint8Array, count: number, first: number, lo: number, ids: Int32Array, xs: Float64Array, at: number): void {
  if (scratch.ids.length < count) scratch = emptyBlock(count);
  const b = decodeBlockInto(data, first, count, scratch);
  const { memo, memoOf, list, scale, avgLength, p } = w;
  for (let i = 0; i < count; i++) {
    const body = b.body[i];
    const heading = b.heading[i];
    const length = b.length[i];
    let x: number;
    if (heading === 0 && body < BODY_SLOTS && length < LENGTH_SLOTS) {
      const slot = body * LENGTH_SLOTS + length;
      if (memoOf[slot] === list) x = memo[slot];
      else {
        x = memo[slot] = scale * tfNorm(body, heading, length, avgLength, p);
        memoOf[slot] = list;
      }
    } else x = scale * tfNorm(body, heading, length, avgLength, p);
    ids[at + i] = (b.ids[i] - lo) | 0;
    xs[at + i] = x;
  }
}

/** A list's weights with a new number in the memo `m` (the flat scorer's: LexicalState['flat']). */
export function listWeights(m: { memo: Float64Array; memoOf: Uint32Array; lists: number }, scale: number, avgLength: number, p: Bm25Params): ListWeights {
  if (++m.lists > 0xfffffff0) {
    m.lists = 1;
    m.memoOf.fill(0);
  }
  return { memo: m.memo, memoOf: m.memoOf, list: m.lists, scale, avgLength, p };
}
