import type Database from 'better-sqlite3';
import type { DenseBuilder } from './dense-builder';
import type { Directory, ListPart } from './directory';

/** What the program keeps between calls where it runs: bounded caches of directories, blocks and tombstones. */
export interface LexicalState {
  dirs?: Map<string, Directory>;
  dirEntries?: number;
  /** blocks' data in the order they were read, a part (one read's blocks, BlockData) an entry: the directory and the part's slot there; the oldest at `blockHead` */
  blockQueue?: Array<[Directory, number] | null>;
  blockHead?: number;
  blockBytes?: number;
  /** bytes of the lists' dense forms kept (Directory.dense; with blockBytes within blockCacheBytes, and at most DENSE_CACHE_SHARE of it), oldest first in denseQueue */
  denseBytes?: number;
  denseQueue?: Directory[];
  dead?: Map<number, { cgen: number; dead: number; ids: Set<number> }>;
  statements?: Record<string, Database.Statement>;
  /** the flat scorer's accumulators, by chunk id less the lists' smallest (zero between queries) */
  flat?: FlatArrays;
  /** a preload's progress (preloadLexical) */
  preload?: PreloadState;
}

/** Where a preload stands between its slices (LexicalState.preload). */
export interface PreloadState {
  /** 'scan': choosing lists (lex_terms read in key order from `after`); 'load': reading them, largest first */
  phase: 'scan' | 'load' | 'done';
  after: [number, string] | null;
  /** the lists chosen (largest df first once loading), `next` the one being read, `block` its next block */
  lists: Array<{ key: number; term: string; df: number }>;
  next: number;
  block: number;
  /** the list being read: its parts so far, at generation `gen` (compaction `cgen`) */
  parts: ListPart[];
  gen: number;
  cgen: number;
  /** the lists' directories, blocks and bytes read, and the lists made dense */
  stats: { lists: number; bytes: number; ms: number; dense?: number };
  /** a list being made dense (its directory's key in LexicalState.dirs) */
  dense?: { key: string; builder: DenseBuilder } | null;
}

/**
 * The flat scorer's arrays (rank-flat.ts): per chunk id less the lists' smallest, its sum and whether a
 * posting reached it; per span of ids, the best sum; the lists' contributions memo (block-scores.ts).
 */
export interface FlatArrays {
  acc: Float64Array;
  seen: Uint8Array;
  memo: Float64Array;
  memoOf: Uint32Array;
  lists: number;
  spanMax: Float64Array;
}
