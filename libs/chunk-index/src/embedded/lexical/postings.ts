/**
 * Postings blocks: a term's postings in one store, in chunk id order, cut into blocks of up to
 * BLOCK_SIZE chunks. A block's data is, per chunk, varints of: the id's gap from the previous chunk
 * of the block (the first chunk's from the block's `first` id, so 0), the term's count in the body,
 * in the headings, and the chunk's length as indexed (its words blended with its file's: normLength). Its directory entry (a row of its own) holds
 * first/last id, count, the largest body and heading counts and the shortest length, which bound the
 * block's BM25 contribution whatever the store's statistics become.
 */

export const BLOCK_SIZE = 128;

/** A block decoded: parallel arrays of `count` entries. */
export interface Block {
  ids: Uint32Array;
  body: Uint32Array;
  heading: Uint32Array;
  length: Uint32Array;
  count: number;
}

/** A block's directory entry. */
export interface BlockMeta {
  first: number;
  last: number;
  count: number;
  maxBody: number;
  maxHeading: number;
  minLength: number;
}

/** Postings to append: one entry per chunk, ids increasing. */
export interface Posting {
  id: number;
  body: number;
  heading: number;
  length: number;
}

/** Where postings are encoded before they are copied into a block's data (4 varints of ≤ 5 bytes a posting). */
let scratch = new Uint8Array(BLOCK_SIZE * 4 * 5);

/**
 * Encodes postings (ids increasing) as a block, or appends them to `to` (a block's entry and data,
 * the postings' ids all after its last); answers the block's entry and data.
 */
export function encodeBlock(
  ps: Posting[],
  to: { meta: BlockMeta; data: Buffer } | null = null,
): { meta: BlockMeta; data: Buffer } {
  const flat = new Array<number>(ps.length * 4);
  ps.forEach(
    (p, i) => (
      (flat[i * 4] = p.id),
      (flat[i * 4 + 1] = p.body),
      (flat[i * 4 + 2] = p.heading),
      (flat[i * 4 + 3] = p.length)
    ),
  );
  const meta: BlockMeta = to
    ? { ...to.meta }
    : { first: ps[0].id, last: ps[0].id, count: 0, maxBody: 0, maxHeading: 0, minLength: Infinity };
  const part = Buffer.from(encodeFlat(flat, 0, ps.length, meta, to ? meta.last : meta.first));
  return { meta, data: to ? Buffer.concat([to.data, part]) : part };
}

/**
 * Encodes the postings [from, to) of flat `ps` (id, body, heading, length; ids increasing, after
 * `prev`) as a block's data (varints: id gap, body, heading, length), and folds them into the block's
 * entry `into` (last, count and bounds). Answers the bytes, a view of a shared buffer that the next
 * call overwrites: copy it before then.
 */
export function encodeFlat(
  ps: ArrayLike<number>,
  from: number,
  to: number,
  into: Pick<BlockMeta, 'last' | 'count' | 'maxBody' | 'maxHeading' | 'minLength'>,
  prev: number,
): Uint8Array {
  if (scratch.length < (to - from) * 20) scratch = new Uint8Array((to - from) * 20);
  const buf = scratch;
  let n = 0;
  let maxBody = into.maxBody;
  let maxHeading = into.maxHeading;
  let minLength = into.minLength;
  for (let k = from << 2, end = to << 2; k < end; k += 4) {
    const id = ps[k];
    const body = ps[k + 1];
    const heading = ps[k + 2];
    const length = ps[k + 3];
    n = varint(buf, n, id - prev);
    n = varint(buf, n, body);
    n = varint(buf, n, heading);
    n = varint(buf, n, length);
    prev = id;
    if (body > maxBody) maxBody = body;
    if (heading > maxHeading) maxHeading = heading;
    if (length < minLength) minLength = length;
  }
  into.last = prev;
  into.count += to - from;
  into.maxBody = maxBody;
  into.maxHeading = maxHeading;
  into.minLength = minLength;
  return buf.subarray(0, n);
}

/** Writes `v` (≥ 0) as a varint at `n`; answers the position after it. */
function varint(buf: Uint8Array, n: number, v: number): number {
  while (v >= 0x80) {
    buf[n++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[n++] = v;
  return n;
}

/** Decodes a block's data, given its first id and count (one allocation: the four arrays share a buffer). */
export function decodeBlock(data: Uint8Array, first: number, count: number): Block {
  return decodeBlockInto(data, first, count, emptyBlock(count));
}

/** A block with room for `capacity` postings (its arrays share one buffer). */
export function emptyBlock(capacity: number): Block {
  const all = new Uint32Array(capacity * 4);
  return {
    ids: all.subarray(0, capacity),
    body: all.subarray(capacity, capacity * 2),
    heading: all.subarray(capacity * 2, capacity * 3),
    length: all.subarray(capacity * 3, capacity * 4),
    count: 0,
  };
}

/** Decodes a block's data into `into` (room for `count` postings, which it then holds): no allocation. */
export function decodeBlockInto(data: Uint8Array, first: number, count: number, into: Block): Block {
  const { ids, body, heading, length } = into;
  const r = reader;
  r.data = data;
  r.pos = 0;
  let id = first;
  for (let i = 0; i < count; i++) {
    ids[i] = id += r.next();
    body[i] = r.next();
    heading[i] = r.next();
    length[i] = r.next();
  }
  into.count = count;
  return into;
}

/**
 * Reads a block's varints in place, one at a time: `pos` is where the next one starts. The format's
 * decoder (decodeBlockInto: the writer and the dense lists' builder); the hot loops of the rankers write
 * its loop out, where a bench showed the calls cost (block-scores.ts: scoreBlock; cursor.ts: Cursor).
 */
export class VarintReader {
  pos = 0;
  constructor(public data: Uint8Array = new Uint8Array(0)) {}

  /** The varint at `pos` (the one-byte case first: nearly all of them); `pos` moves past it. */
  next(): number {
    const data = this.data;
    let pos = this.pos;
    let byte = data[pos++];
    let v = byte & 0x7f;
    for (let mul = 128; byte >= 0x80; mul *= 128) v += ((byte = data[pos++]) & 0x7f) * mul;
    this.pos = pos;
    return v;
  }

  /** Moves `pos` past the varint there. */
  skip(): void {
    const data = this.data;
    let pos = this.pos;
    while (data[pos++] >= 0x80);
    this.pos = pos;
  }
}

/** decodeBlockInto's reader (one, reused: no allocation per block). */
const reader = new VarintReader();

/** The postings of a decoded block, as entries. */
export function blockPostings(b: Block): Posting[] {
  const out: Posting[] = [];
  for (let i = 0; i < b.count; i++)
    out.push({ id: b.ids[i], body: b.body[i], heading: b.heading[i], length: b.length[i] });
  return out;
}
