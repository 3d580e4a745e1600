import { BODY_SLOTS, LENGTH_SLOTS } from './block-scores';
import { DENSE_RANGE_PER_POSTING, DenseList } from './dense-list';
import { Directory, listSpan } from './directory';
import { decodeBlockInto, emptyBlock } from './postings';

/** The most distinct (body, heading, length) of a dense list (its ids are 16 bits, 0 for none). */
const DENSE_MAX_KINDS = 65_535;

/** Whether a list is worth a dense form (DenseList): at least `minPostings` postings, at least 1/DENSE_RANGE_PER_POSTING of its id range. */
export function denseWorthy(dir: Directory, minPostings: number): boolean {
  if (dir.dense === null) return false;
  const { range, postings } = listSpan(dir);
  return postings >= minPostings && range <= postings * DENSE_RANGE_PER_POSTING;
}

/** Heading counts below this (with body counts below BODY_SLOTS and lengths below LENGTH_SLOTS) find their kind in an array while a list is made dense. */
const KIND_HEADINGS = 4;

/**
 * Builds a list's dense form a few blocks a step (`step(blocks)`: true once whole; `load` gives a block's
 * data, null where it is not at hand: the build is then given up). The result is the list as its blocks
 * hold it, whatever the order of the steps.
 */
export class DenseBuilder {
  private next = 0;
  private readonly first: number;
  private readonly pairs: Uint16Array;
  private readonly body: number[] = [0];
  private readonly heading: number[] = [0];
  private readonly length: number[] = [0];
  /** (body, heading, length) → kind: small ones by slot (0: none yet), the others by key */
  private readonly slots = new Int32Array(BODY_SLOTS * KIND_HEADINGS * LENGTH_SLOTS);
  private readonly other = new Map<string, number>();
  /** per kind, its chunks (then, once decoded, where its next one goes in byKind) */
  private readonly counts: number[] = [0];
  private start: Uint32Array | null = null;
  private byKind: Uint32Array | null = null;
  private at: Uint32Array | null = null;
  /** the block being decoded */
  private block = emptyBlock(128);
  /** ids less `first` placed in byKind so far */
  private placed = 0;
  failed = false;

  constructor(readonly dir: Directory) {
    const { first, range } = listSpan(dir);
    this.first = first;
    this.pairs = new Uint16Array(range);
  }

  get done(): boolean {
    return this.next >= this.dir.size && this.placed >= this.pairs.length;
  }

  /**
   * Decodes up to `blocks` more blocks, or once all are, groups up to `blocks` × 1,024 ids by kind;
   * true once the list is whole (or the build failed: `failed`).
   */
  step(load: (bi: number) => Uint8Array | null, blocks: number): boolean {
    if (this.next >= this.dir.size) {
      this.group(blocks * 1024);
      return this.done;
    }
    const { dir, pairs, other, slots, counts } = this;
    for (const end = Math.min(dir.size, this.next + blocks); this.next < end; this.next++) {
      const data = load(this.next);
      if (!data) {
        this.failed = true;
        return true;
      }
      const count = dir.count[this.next];
      if (this.block.ids.length < count) this.block = emptyBlock(count);
      const {
        ids,
        body: bodies,
        heading: headings,
        length: lengths,
      } = decodeBlockInto(data, dir.first[this.next], count, this.block);
      for (let i = 0; i < count; i++) {
        const id = ids[i] - this.first;
        const body = bodies[i];
        const heading = headings[i];
        const length = lengths[i];
        let kind: number;
        if (body < BODY_SLOTS && heading < KIND_HEADINGS && length < LENGTH_SLOTS) {
          const slot = (body * KIND_HEADINGS + heading) * LENGTH_SLOTS + length;
          kind = slots[slot];
          if (kind === 0) kind = slots[slot] = this.newKind(body, heading, length);
        } else {
          const key = `${body},${heading},${length}`;
          const k = other.get(key);
          if (k !== undefined) kind = k;
          else other.set(key, (kind = this.newKind(body, heading, length)));
        }
        if (kind > DENSE_MAX_KINDS) {
          this.failed = true;
          return true;
        }
        pairs[id] = kind;
        counts[kind]++;
      }
    }
    return this.done;
  }

  /** A kind for a (body, heading, length) not met yet in this list, with no chunks so far. */
  private newKind(body: number, heading: number, length: number): number {
    this.body.push(body);
    this.heading.push(heading);
    this.length.push(length);
    this.counts.push(0);
    return this.body.length - 1;
  }

  /** Places up to `ids` more ids in byKind (each kind's in id order). */
  private group(ids: number): void {
    const pairs = this.pairs;
    if (!this.start) {
      const kinds = this.counts.length;
      const start = (this.start = new Uint32Array(kinds + 1));
      for (let k = 1; k < kinds; k++) start[k + 1] = start[k] + this.counts[k];
      this.byKind = new Uint32Array(start[kinds]);
      this.at = start.slice(0, kinds);
    }
    const byKind = this.byKind!;
    const at = this.at!;
    for (let x = this.placed, end = Math.min(pairs.length, this.placed + ids); x < end; x++) {
      const k = pairs[x];
      if (k) byKind[at[k]++] = x;
    }
    this.placed = Math.min(pairs.length, this.placed + ids);
  }

  /** The dense form, once whole (done). */
  result(): DenseList {
    const kinds = this.body.length;
    const pairs = this.pairs;
    const start = this.start!;
    const byKind = this.byKind!;
    return {
      first: this.first,
      pairs,
      body: Uint32Array.from(this.body),
      heading: Uint32Array.from(this.heading),
      length: Uint32Array.from(this.length),
      kinds,
      byKind,
      start,
      bytes: pairs.byteLength + byKind.byteLength + kinds * 16,
    };
  }
}
