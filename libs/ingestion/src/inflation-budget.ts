import { createInflate, createInflateRaw } from 'zlib';
import { ParseError } from './document';

/**
 * How much a compressed document expands to, measured before any parser sees it: every compressed
 * part is inflated through a streaming inflater whose output is counted and dropped (memory stays at
 * one inflater's window), and the count stops as soon as it passes the budget. A document over the
 * budget fails with a ParseError instead of being handed to a parser that would hold all of it.
 */

const MiB = 1024 * 1024;

/** Inflates `input` (raw DEFLATE, or zlib-wrapped for PDF streams) and counts the bytes, stopping once past `limit`. */
function inflatedSize(input: Uint8Array, format: 'raw' | 'zlib', limit: number): Promise<number> {
  return new Promise((resolve) => {
    const z = format === 'raw' ? createInflateRaw() : createInflate();
    let n = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(n);
    };
    z.on('data', (chunk: Buffer) => {
      n += chunk.length;
      if (n > limit) {
        z.destroy();
        finish();
      }
    });
    // a damaged stream counts what came out before the damage: the parser fails on it by itself
    z.on('error', finish);
    z.on('end', finish);
    z.on('close', finish);
    z.end(input);
  });
}

const tooLarge = (what: string, budget: number) =>
  new ParseError(
    `The ${what} expands to more than ${Math.round(budget / MiB)} MiB when decompressed (LARDER_PARSE_MAX_INFLATED_MB); it was not parsed`,
  );

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

/** The central directory of a zip (zip64 included); empty when there is none to read (the parser then reports the damage). */
function zipEntries(data: Buffer): ZipEntry[] {
  const min = Math.max(0, data.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = data.length - 22; i >= min; i--) {
    if (data.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return [];
  let count = data.readUInt16LE(eocd + 10);
  let offset = data.readUInt32LE(eocd + 16);
  const locator = eocd - 20;
  if ((count === 0xffff || offset === 0xffffffff) && locator >= 0 && data.readUInt32LE(locator) === 0x07064b50) {
    const record = Number(data.readBigUInt64LE(locator + 8));
    if (record + 56 <= data.length && data.readUInt32LE(record) === 0x06064b50) {
      count = Number(data.readBigUInt64LE(record + 32));
      offset = Number(data.readBigUInt64LE(record + 48));
    }
  }
  const entries: ZipEntry[] = [];
  let p = offset;
  for (let k = 0; k < count && p + 46 <= data.length && data.readUInt32LE(p) === 0x02014b50; k++) {
    const nameLength = data.readUInt16LE(p + 28);
    const extraLength = data.readUInt16LE(p + 30);
    const commentLength = data.readUInt16LE(p + 32);
    let compressedSize = data.readUInt32LE(p + 20);
    const uncompressed = data.readUInt32LE(p + 24);
    let localOffset = data.readUInt32LE(p + 42);
    // zip64 extended information: the 64-bit values of the fields that hold 0xffffffff, in order
    for (let e = p + 46 + nameLength; e + 4 <= p + 46 + nameLength + extraLength && e + 4 <= data.length;) {
      const id = data.readUInt16LE(e);
      const size = data.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        const next = () =>
          q + 8 <= e + 4 + size && q + 8 <= data.length ? Number(data.readBigUInt64LE((q += 8) - 8)) : null;
        if (uncompressed === 0xffffffff) next();
        if (compressedSize === 0xffffffff) compressedSize = next() ?? compressedSize;
        if (localOffset === 0xffffffff) localOffset = next() ?? localOffset;
      }
      e += 4 + size;
    }
    entries.push({
      name: data.toString('utf8', p + 46, p + 46 + nameLength),
      method: data.readUInt16LE(p + 10),
      compressedSize,
      localOffset,
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * Refuses a zip container (DOCX and the other Office/OpenDocument/EPUB formats) whose entries inflate
 * to more than `budget` bytes together. Every entry counts, whatever its name: a document's parts
 * are found through its relationships, so any entry may be the one a parser reads.
 */
export async function checkZipInflation(data: Buffer, budget: number, what: string): Promise<void> {
  let total = 0;
  for (const entry of zipEntries(data)) {
    const local = entry.localOffset;
    if (local + 30 > data.length || data.readUInt32LE(local) !== 0x04034b50) continue;
    const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
    const body = data.subarray(start, Math.min(data.length, start + entry.compressedSize));
    // STORE holds the bytes as they are; DEFLATE is what zip parsers inflate (others they refuse)
    total += entry.method === 8 ? await inflatedSize(body, 'raw', budget - total) : body.length;
    if (total > budget) throw tooLarge(what, budget);
  }
}

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');
const IMAGE = /\/Subtype\s*\/Image\b/;

/**
 * Refuses a PDF whose compressed (FlateDecode) streams inflate to more than `budget` bytes together.
 * Image XObjects are left out: text extraction never decodes their pixels. A stream that is not
 * zlib data (another filter, or encrypted) ends its count at once.
 */
export async function checkPdfInflation(data: Buffer, budget: number): Promise<void> {
  let total = 0;
  let at = 0;
  let dictFrom = 0;
  while ((at = data.indexOf(STREAM, at)) >= 0) {
    // `stream` then an end of line starts the data; `endstream` ends it
    let start = at + STREAM.length;
    if (data[start] === 0x0d) start++;
    if (data[start] !== 0x0a || (at >= 3 && data.toString('latin1', at - 3, at) === 'end')) {
      at = start;
      continue;
    }
    start++;
    const end = data.indexOf(END_STREAM, start);
    const stop = end < 0 ? data.length : end;
    // the stream's dictionary: the text since the previous stream's end, at most its last 4 KiB
    const dict = data.toString('latin1', Math.max(dictFrom, at - 4096), at);
    if (!IMAGE.test(dict)) total += await inflatedSize(data.subarray(start, stop), 'zlib', budget - total);
    if (total > budget) throw tooLarge('PDF', budget);
    at = dictFrom = stop + END_STREAM.length;
  }
}
