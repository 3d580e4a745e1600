/**
 * Postings blocks: a term's postings in one store, in chunk id order, cut into blocks of up to
 * BLOCK_SIZE chunks. A block's data is, per chunk, varints of: the id's gap from the previous chunk
 * of the block (the first chunk's from the block's `first` id, so 0), the term's count in the body,
 * in the headings, and the chunk's length in words. Its directory entry (a row of its own) holds
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

function putVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** Encodes postings (ids increasing) as one block, with its directory entry. */
export function encodeBlock(ps: Posting[]): { meta: BlockMeta; data: Buffer } {
  const out: number[] = [];
  let prev = ps[0].id;
  let maxBody = 0;
  let maxHeading = 0;
  let minLength = Infinity;
  for (const p of ps) {
    putVarint(out, p.id - prev);
    putVarint(out, p.body);
    putVarint(out, p.heading);
    putVarint(out, p.length);
    prev = p.id;
    if (p.body > maxBody) maxBody = p.body;
    if (p.heading > maxHeading) maxHeading = p.heading;
    if (p.length < minLength) minLength = p.length;
  }
  return { meta: { first: ps[0].id, last: prev, count: ps.length, maxBody, maxHeading, minLength }, data: Buffer.from(out) };
}

/** Decodes a block's data, given its first id and count. */
export function decodeBlock(data: Uint8Array, first: number, count: number): Block {
  const ids = new Uint32Array(count);
  const body = new Uint32Array(count);
  const heading = new Uint32Array(count);
  const length = new Uint32Array(count);
  let pos = 0;
  const next = () => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const byte = data[pos++];
      v += (byte & 0x7f) * mul;
      if (byte < 0x80) return v;
      mul *= 128;
    }
  };
  let id = first;
  for (let i = 0; i < count; i++) {
    id += next();
    ids[i] = id;
    body[i] = next();
    heading[i] = next();
    length[i] = next();
  }
  return { ids, body, heading, length, count };
}

/** The postings of a decoded block, as entries. */
export function blockPostings(b: Block): Posting[] {
  const out: Posting[] = [];
  for (let i = 0; i < b.count; i++) out.push({ id: b.ids[i], body: b.body[i], heading: b.heading[i], length: b.length[i] });
  return out;
}
