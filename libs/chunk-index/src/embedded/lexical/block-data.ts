/**
 * A list's cached blocks: each block's bytes are a range of a part (the Buffer one read gave: its blocks'
 * data end to end), found by the block's part slot, offset and length in typed arrays. A block's bytes are
 * handed out as a view made when asked (short-lived: garbage a young collection drops for nothing), not kept
 * as a view per block: at 1M chunks the cache held ~200,000 such views (and a queue entry each), which every
 * collection had to trace, and which each young collection during the preload copied out of the young
 * generation (measured in process at 1M, the preload and queries run as the read worker runs them:
 * mark-compact pauses of up to 17 ms, scavenges of up to 10 ms; after, 6.7 and 2.7). Parts are dropped
 * whole, oldest first (dropOldest).
 */
export class BlockData {
  /** per block: its part's slot plus one (0: not cached), its offset there and its length (made with the first part: most directories never cache a block) */
  private part: Int32Array | null = null;
  private off: Int32Array | null = null;
  private len: Int32Array | null = null;
  /** per slot: the part's bytes and its blocks (undefined: dropped, the slot free) */
  private readonly bufs: Array<Buffer | undefined> = [];
  private readonly blocks: Array<Int32Array | undefined> = [];
  private readonly free: number[] = [];
  /** blocks cached */
  count = 0;

  constructor(private readonly size: number) {}

  has(block: number): boolean {
    return this.part !== null && this.part[block] > 0;
  }

  /** A block's bytes (a view made now), or undefined where it is not cached. */
  get(block: number): Uint8Array | undefined {
    const p = this.part === null ? 0 : this.part[block];
    if (p === 0) return undefined;
    const at = this.off![block];
    return this.bufs[p - 1]!.subarray(at, at + this.len![block]);
  }

  /** Keeps a part: `buf` holds `blocks` (none cached yet) end to end, each `lengths` long; answers its slot. */
  add(buf: Buffer, blocks: number[], lengths: number[]): number {
    const part = (this.part ??= new Int32Array(this.size));
    const off = (this.off ??= new Int32Array(this.size));
    const len = (this.len ??= new Int32Array(this.size));
    const slot = this.free.length ? this.free.pop()! : this.bufs.length;
    this.bufs[slot] = buf;
    this.blocks[slot] = Int32Array.from(blocks);
    for (let i = 0, at = 0; i < blocks.length; at += lengths[i++]) {
      const b = blocks[i];
      part[b] = slot + 1;
      off[b] = at;
      len[b] = lengths[i];
    }
    this.count += blocks.length;
    return slot;
  }

  /** Drops a part's blocks; answers their bytes. */
  drop(slot: number): number {
    const blocks = this.blocks[slot];
    const buf = this.bufs[slot];
    if (!blocks || !buf) return 0;
    for (let i = 0; i < blocks.length; i++) this.part![blocks[i]] = 0;
    this.count -= blocks.length;
    this.bufs[slot] = undefined;
    this.blocks[slot] = undefined;
    this.free.push(slot);
    return buf.length;
  }
}
