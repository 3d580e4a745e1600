import { Bm25Params, tfNorm } from '../../analysis/bm25';
import { DenseList, kindNorms } from './dense-list';
import type { Directory } from './directory';
import type { Bounds } from './list';

/**
 * A cursor over one list: a block index, the block (opened when first needed) and a place in it. A block's
 * postings are read in place, as far as the cursor goes: a chunk's id when the cursor moves onto it, its
 * counts only when it is scored.
 */
export class Cursor {
  /** per block: an upper bound of the term's weighted score in it */
  readonly blockUb: Float64Array;
  /** the largest block bound */
  readonly ub: number;
  private bi = 0;
  /** the current block's data (null: not opened), its count, the current chunk's place in it and id */
  private data: Uint8Array | null = null;
  private count = 0;
  private index = 0;
  private id = 0;
  /** where the current chunk's counts start in `data` */
  private at = 0;
  /** the first id wanted in the block not yet opened */
  private target = 0;

  /** the list's dense form where it is kept (probed by lookup: lookup()) */
  readonly dense: DenseList | null;
  /** the dense form's kinds' tfNorm (kindNorms), once looked up */
  private norm: Float64Array | null = null;

  constructor(
    readonly dir: Directory,
    private readonly scale: number,
    bounds: Bounds,
    private readonly avgLength: number,
    private readonly p: Bm25Params,
    private readonly load: (bi: number) => Uint8Array,
    /** the term's place in the query */
    readonly order: number,
  ) {
    this.blockUb = bounds.blockUb;
    this.ub = bounds.ub;
    this.dense = dir.dense ?? null;
  }

  /** The term's weighted score in chunk d (0: not in the list), moving the cursor to d (its first chunk ≥ d). */
  scoreAt(d: number): number {
    this.advance(d);
    return this.doc() === d ? this.score() : 0;
  }

  /**
   * The term's weighted score in chunk d (0: not in the list) from the list's dense form, the cursor left
   * where it is (a non-essential list is never walked again; blockAt finds its blocks from there still).
   * The same double as score() gives: the same (body, heading, length) through the same tfNorm.
   */
  lookup(d: number): number {
    const dense = this.dense!;
    const x = d - dense.first;
    const k = x >= 0 && x < dense.pairs.length ? dense.pairs[x] : 0;
    if (k === 0) return 0;
    return this.scale * (this.norm ??= kindNorms(dense, this.avgLength, this.p).norm)[k];
  }

  /** Whether the current block is open (else lower() is only a bound). */
  get decoded(): boolean {
    return this.data !== null;
  }

  /** A lower bound of the current chunk id, opening nothing: the id itself once the block is open (Infinity: exhausted). */
  lower(): number {
    if (this.bi >= this.dir.size) return Infinity;
    if (this.data) return this.id;
    const f = this.dir.first[this.bi];
    return this.target > f ? this.target : f;
  }

  /**
   * Reads the id of the chunk whose id gap starts at `p` (false: the block has no more). The varint loops of
   * the cursor are written out (readId, step, score) with the position in a local, not read through
   * VarintReader: MaxScore took ~7% longer with it (in process on search-speed's 100k store, warm cache,
   * 200 queries, min of 15 runs).
   */
  private readId(p: number): boolean {
    if (this.index >= this.count) return false;
    const data = this.data!;
    let byte = data[p++];
    let v = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) v += ((byte = data[p++]) & 0x7f) * mul;
    this.id += v;
    this.at = p;
    return true;
  }

  /** Moves to the block's next chunk (false: none). */
  private step(): boolean {
    // past the current chunk's three counts
    const data = this.data!;
    let p = this.at;
    while (data[p++] >= 0x80);
    while (data[p++] >= 0x80);
    while (data[p++] >= 0x80);
    this.index++;
    return this.readId(p);
  }

  /** Moves within the open block to its first chunk ≥ target (false: none in it). */
  private seek(target: number): boolean {
    while (this.id < target) if (!this.step()) return false;
    return true;
  }

  /** The current chunk id (Infinity: exhausted). */
  doc(): number {
    for (;;) {
      if (this.bi >= this.dir.size) return Infinity;
      if (this.data) return this.id;
      this.data = this.load(this.bi);
      this.count = this.dir.count[this.bi];
      this.index = 0;
      this.id = this.dir.first[this.bi];
      if (this.readId(0) && this.seek(this.target)) return this.id;
      // cannot happen (the block's last id ≥ target), kept for safety
      this.bi++;
      this.data = null;
    }
  }

  /** The term's weighted score in the current chunk (its block open). */
  score(): number {
    const data = this.data!;
    let p = this.at;
    let byte = data[p++];
    let body = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) body += ((byte = data[p++]) & 0x7f) * mul;
    byte = data[p++];
    let heading = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) heading += ((byte = data[p++]) & 0x7f) * mul;
    byte = data[p++];
    let length = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) length += ((byte = data[p++]) & 0x7f) * mul;
    return this.scale * tfNorm(body, heading, length, this.avgLength, this.p);
  }

  next(): void {
    if (!this.data) this.doc();
    if (!this.data) return;
    if (!this.step()) {
      this.bi++;
      this.data = null;
      this.target = 0;
    }
  }

  /** The first block at or after the current one whose last id ≥ target (size: none). */
  blockAt(target: number): number {
    const last = this.dir.last;
    let lo = this.bi;
    let hi = this.dir.size;
    if (lo < hi && last[lo] >= target) return lo;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (last[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Moves to the first chunk ≥ target (opening nothing until doc() is asked). */
  advance(target: number): void {
    const j = this.blockAt(target);
    if (j !== this.bi) {
      this.bi = j;
      this.data = null;
      this.target = target;
      return;
    }
    if (!this.data) {
      if (target > this.target) this.target = target;
      return;
    }
    this.seek(target); // the block's last id ≥ target
  }
}
