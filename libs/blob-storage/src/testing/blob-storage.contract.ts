import { createHash, randomBytes, randomUUID } from 'crypto';
import { Readable } from 'stream';
import { BlobNotFoundError, BlobStorage, BlobTooLargeError } from '../blob-storage.port';

async function read(s: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Streams `total` bytes in 64 KiB chunks without holding them. */
function generated(total: number, seed = 7): { stream: Readable; sha256: string } {
  const h = createHash('sha256');
  const chunk = Buffer.alloc(64 * 1024, seed);
  let left = total;
  for (let l = total; l > 0; l -= chunk.length) h.update(chunk.subarray(0, Math.min(chunk.length, l)));
  const stream = new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const n = Math.min(chunk.length, left);
      left -= n;
      this.push(chunk.subarray(0, n));
    },
  });
  return { stream, sha256: h.digest('hex') };
}

/** `listParts: false` for a test server without ListParts and AbortMultipartUpload (s3rver); real S3 has both. */
export function blobStorageContract(
  name: string,
  open: () => Promise<{ storage: BlobStorage; close: () => Promise<void> }>,
  options: { listParts?: boolean } = {},
): void {
  describe(`BlobStorage contract: ${name}`, () => {
    let storage: BlobStorage;
    let close: () => Promise<void>;
    beforeAll(async () => ({ storage, close } = await open()));
    afterAll(async () => close());
    const key = () => `org/${randomUUID()}`;

    it('puts a stream and reports size and sha256; gets it back whole and by range', async () => {
      const k = key();
      const data = randomBytes(300_000);
      const stored = await storage.put(k, Readable.from([data.subarray(0, 1000), data.subarray(1000)]), {
        contentType: 'application/octet-stream',
      });
      expect(stored).toEqual({ bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') });
      expect((await read(await storage.get(k))).equals(data)).toBe(true);
      expect((await read(await storage.get(k, { start: 10, end: 19 }))).equals(data.subarray(10, 20))).toBe(true);
      expect(await storage.size(k)).toBe(data.length);
    });

    it('streams a large blob (12 MiB) without buffering it', async () => {
      const k = key();
      const g = generated(12 * 1024 * 1024);
      const stored = await storage.put(k, g.stream);
      expect(stored).toEqual({ bytes: 12 * 1024 * 1024, sha256: g.sha256 });
      const h = createHash('sha256');
      for await (const c of await storage.get(k)) h.update(c as Buffer);
      expect(h.digest('hex')).toBe(g.sha256);
    });

    it('replaces atomically and deletes', async () => {
      const k = key();
      await storage.put(k, Readable.from([Buffer.from('one')]));
      await storage.put(k, Readable.from([Buffer.from('two!')]));
      expect((await read(await storage.get(k))).toString()).toBe('two!');
      await storage.delete(k);
      expect(await storage.size(k)).toBeNull();
      await expect(storage.get(k)).rejects.toBeInstanceOf(BlobNotFoundError);
      await storage.delete(k); // idempotent
    });

    it('refuses content over maxBytes and leaves nothing behind', async () => {
      const k = key();
      await expect(storage.put(k, Readable.from([randomBytes(2000)]), { maxBytes: 1000 })).rejects.toBeInstanceOf(
        BlobTooLargeError,
      );
      expect(await storage.size(k)).toBeNull();
    });

    it('assembles multipart uploads in part order, lists parts, aborts', async () => {
      const k = key();
      const a = randomBytes(5 * 1024 * 1024);
      const b = randomBytes(1234);
      const id = await storage.createMultipart(k, 'application/octet-stream');
      const p2 = await storage.putPart(k, id, 2, Readable.from([b]));
      const p1 = await storage.putPart(k, id, 1, Readable.from([a]));
      expect(p1.etag).toMatch(/^".+"$/);
      if (options.listParts !== false) {
        const listed = await storage.listParts(k, id);
        expect(listed.map((p) => [p.partNumber, p.etag, p.bytes])).toEqual([
          [1, p1.etag, a.length],
          [2, p2.etag, b.length],
        ]);
      }
      const done = await storage.completeMultipart(k, id, [p1, p2]);
      const whole = Buffer.concat([a, b]);
      expect(done).toEqual({ bytes: whole.length, sha256: createHash('sha256').update(whole).digest('hex') });
      expect((await read(await storage.get(k))).equals(whole)).toBe(true);

      if (options.listParts === false) return;
      const k2 = key();
      const id2 = await storage.createMultipart(k2, 'text/plain');
      await storage.putPart(k2, id2, 1, Readable.from([Buffer.from('x')]));
      await storage.abortMultipart(k2, id2);
      expect(await storage.size(k2)).toBeNull();
      await expect(storage.listParts(k2, id2)).rejects.toBeTruthy();
    });
  });
}
