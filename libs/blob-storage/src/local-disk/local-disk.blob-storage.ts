import { createReadStream, createWriteStream, promises as fs } from 'fs';
import { dirname, join } from 'path';
import { randomUUID } from 'crypto';
import { hostname } from 'os';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { BlobNotFoundError, BlobStorage, ByteRange, PartInfo, StoredBlob } from '../blob-storage.port';
import { HashingStream } from '../hashing';

/** This process's mark on its temporary directory: a later process with the same pid is another one. */
const PROCESS_TOKEN = randomUUID().slice(0, 8);

/** `<host>.<pid>.<token>`: the temporary directory of one process. */
const TEMP_DIR_NAME = /^(.+)\.(\d+)\.([0-9a-f]{8})$/;

/**
 * Blobs as files under a root directory. Writes go to a temp file that is fsynced, renamed into place
 * and followed by an fsync of the directory, so a crash leaves the old blob or the new one. Each
 * process writes its temp files in its own directory under `tmp/`, so a later process can tell the
 * files of a dead one (kill -9 mid-write) from those a live one is writing, and remove them at once.
 */
export class LocalDiskBlobStorage implements BlobStorage {
  readonly kind = 'local-disk';
  private readonly tmpRoot: string;
  private readonly ownTmp: string;
  constructor(private readonly root: string) {
    this.tmpRoot = join(root, 'tmp');
    this.ownTmp = join(this.tmpRoot, `${hostname()}.${process.pid}.${PROCESS_TOKEN}`);
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
    await fs.mkdir(this.ownTmp, { recursive: true });
    await fs.mkdir(dirname(target), { recursive: true });
    const tmp = join(this.ownTmp, `${randomUUID()}.part`);
    try {
      await pipeline(body, hasher, createWriteStream(tmp, { flags: 'wx' }));
      const fh = await fs.open(tmp, 'r');
      await fh.sync();
      await fh.close();
      await fs.rename(tmp, target);
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
  async sweepTemporary(olderThanMs: number): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.tmpRoot);
    } catch {
      return 0;
    }
    const now = new Date();
    await fs.utimes(this.ownTmp, now, now).catch(() => undefined);
    const before = now.getTime() - olderThanMs;
    let removed = 0;
    for (const name of names) {
      const p = join(this.tmpRoot, name);
      if (p === this.ownTmp) continue;
      const owner = TEMP_DIR_NAME.exec(name);
      const dead = owner !== null && owner[1] === hostname() && !isRunning(Number(owner[2]), owner[3]);
      const st = dead ? null : await fs.stat(p).catch(() => null);
      // a live process touches its directory with every write and every sweep; untouched this long, it is gone
      if (dead || (st && st.mtimeMs < before)) {
        removed += st?.isFile() ? 1 : await countFiles(p);
        await fs.rm(p, { recursive: true, force: true });
      }
    }
    return removed;
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

/** Whether the process `pid` with `token` runs (another process of this host, judged by its pid). */
function isRunning(pid: number, token: string): boolean {
  if (pid === process.pid) return token === PROCESS_TOKEN;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function countFiles(dir: string): Promise<number> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).length;
}

async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
