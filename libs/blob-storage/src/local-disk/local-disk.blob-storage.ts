import { createReadStream, createWriteStream, promises as fs } from 'fs';
import { dirname, join } from 'path';
import { randomUUID } from 'crypto';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { BlobNotFoundError, BlobStorage, ByteRange, PartInfo, StoredBlob } from '../blob-storage.port';
import { HashingStream } from '../hashing';
import { ProcessTempDirs } from '@larder/kernel';

/**
 * Blobs as files under a root directory. Writes go to a temp file that is fsynced, renamed into place
 * and followed by an fsync of the directory, so a crash leaves the old blob or the new one. Each
 * process writes its temp files in its own directory under `tmp/`, so a later process can tell the
 * files of a dead one (kill -9 mid-write) from those a live one is writing, and remove them at once.
 */
export class LocalDiskBlobStorage implements BlobStorage {
  readonly kind = 'local-disk';
  private readonly temp: ProcessTempDirs;
  constructor(private readonly root: string) {
    this.temp = new ProcessTempDirs(join(root, 'tmp'));
  }

  private path(key: string): string {
    if (!/^[A-Za-z0-9][A-Za-z0-9/_.-]*$/.test(key) || key.includes('..')) throw new Error(`invalid blob key ${key}`);
    return join(this.root, 'objects', key);
  }
  private partsDir(uploadId: string): string {
    if (!/^[A-Za-z0-9-]+$/.test(uploadId)) throw new BlobNotFoundError(uploadId);
    return join(this.root, 'multipart', uploadId);
  }

  private async writeAtomically(target: string, body: Readable, hasher: HashingStream): Promise<void> {
    const own = await this.temp.ensure();
    const tmp = join(own, `${randomUUID()}.part`);
    try {
      // `flush`: the file is fsynced before its descriptor closes
      await pipeline(body, hasher, createWriteStream(tmp, { flags: 'wx', flush: true }));
      // the target's directory is created only when the rename finds it missing
      await fs.rename(tmp, target).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await fs.mkdir(dirname(target), { recursive: true });
        await fs.rename(tmp, target);
      });
      await syncDir(dirname(target));
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
  }

  /**
   * Removes the temporary files of processes that are gone: at once for a process of this host that
   * no longer runs (or whose pid a later process has), else once untouched for `olderThanMs` (another
   * host's process, or files of no known process). Marks this process's own directory as alive.
   */
  sweepTemporary(olderThanMs: number): Promise<number> {
    return this.temp.sweep(olderThanMs);
  }

  async put(key: string, body: Readable, options: { maxBytes?: number } = {}): Promise<StoredBlob> {
    const hasher = new HashingStream(options.maxBytes);
    await this.writeAtomically(this.path(key), body, hasher);
    return { bytes: hasher.bytes, sha256: hasher.sha256() };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const p = this.path(key);
    try {
      await fs.access(p);
    } catch {
      throw new BlobNotFoundError(key);
    }
    return createReadStream(p, range ? { start: range.start, end: range.end } : {});
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await fs.stat(this.path(key))).size;
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.path(key), { force: true });
  }

  async createMultipart(): Promise<string> {
    const id = randomUUID();
    await fs.mkdir(this.partsDir(id), { recursive: true });
    return id;
  }

  async presignPart(): Promise<string | null> {
    return null;
  }

  async putPart(
    _key: string,
    uploadId: string,
    partNumber: number,
    body: Readable,
    maxBytes?: number,
  ): Promise<PartInfo> {
    const dir = this.partsDir(uploadId);
    try {
      await fs.access(dir);
    } catch {
      throw new BlobNotFoundError(uploadId);
    }
    const hasher = new HashingStream(maxBytes, true);
    await this.writeAtomically(join(dir, String(partNumber).padStart(5, '0')), body, hasher);
    const etag = `"${hasher.md5hex()}"`;
    await fs.writeFile(join(dir, `${String(partNumber).padStart(5, '0')}.etag`), etag);
    return { partNumber, etag, bytes: hasher.bytes };
  }

  async listParts(_key: string, uploadId: string): Promise<PartInfo[]> {
    const dir = this.partsDir(uploadId);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      throw new BlobNotFoundError(uploadId);
    }
    const parts: PartInfo[] = [];
    for (const n of names.filter((x) => /^\d{5}$/.test(x)).sort()) {
      const etag = await fs.readFile(join(dir, `${n}.etag`), 'utf8').catch(() => null);
      if (etag === null) continue; // part written but its ETag not yet: not complete
      parts.push({ partNumber: Number(n), etag, bytes: (await fs.stat(join(dir, n))).size });
    }
    return parts;
  }

  async completeMultipart(
    key: string,
    uploadId: string,
    parts: Array<{ partNumber: number; etag: string }>,
  ): Promise<StoredBlob> {
    const dir = this.partsDir(uploadId);
    const files = parts.map((p) => join(dir, String(p.partNumber).padStart(5, '0')));
    const hasher = new HashingStream();
    const partsGone = await fs.access(dir).then(
      () => false,
      () => true,
    );
    if (partsGone) {
      // A completion that assembled the object and then crashed: the object is the answer.
      const existing = await this.get(key).catch(() => null);
      if (!existing) throw new BlobNotFoundError(uploadId);
      for await (const chunk of existing.pipe(hasher)) void chunk;
      return { bytes: hasher.bytes, sha256: hasher.sha256() };
    }
    async function* concat() {
      for (const f of files) for await (const chunk of createReadStream(f)) yield chunk as Buffer;
    }
    await this.writeAtomically(this.path(key), Readable.from(concat()), hasher);
    await fs.rm(dir, { recursive: true, force: true });
    return { bytes: hasher.bytes, sha256: hasher.sha256() };
  }

  async abortMultipart(_key: string, uploadId: string): Promise<void> {
    await fs.rm(this.partsDir(uploadId), { recursive: true, force: true });
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
