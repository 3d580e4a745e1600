import { closeSync, existsSync, openSync, readSync, statSync } from 'fs';
import { Worker } from 'worker_threads';
import { moduleWorker } from '@larder/kernel/worker-module';
import type { IvfBuilt } from './ivf.persisted';

/**
 * A start's early read of the chunk index's IVF lists (`readIvf`, the bulk of opening a large index)
 * in a worker thread, on a read-only connection, while the main thread loads the server's modules and
 * starts the database. The arrays come back transferred, not copied. The index uses them only if the
 * file is as it was when the worker began reading (`fileState`: no commit since, by any connection,
 * its own migrations included); else it reads the lists itself, as without a prefetch.
 */
export interface IvfPrefetch {
  /** The file's state before the worker's read began, and what it read; null when it could not (the index reads the lists itself). */
  readonly done: Promise<{ state: string; built: IvfBuilt; ms: number } | null>;
  /** Stops the worker if it is still reading (the result is then null). */
  cancel(): void;
}

/**
 * The state of a SQLite file in WAL mode as far as commits go: a commit appends frames to the WAL
 * (its size and modification time change) or restarts it (new salts in its header); a checkpoint
 * rewrites the main file. An absent or empty WAL is one state (opening a connection may create it).
 */
export function fileState(path: string): string {
  const main = statSync(path, { bigint: true });
  const walPath = `${path}-wal`;
  let wal = 'empty';
  if (existsSync(walPath)) {
    const w = statSync(walPath, { bigint: true });
    if (w.size > 0n) {
      const header = Buffer.alloc(32);
      const fd = openSync(walPath, 'r');
      try {
        readSync(fd, header, 0, 32, 0);
      } finally {
        closeSync(fd);
      }
      wal = `${w.ino}:${w.size}:${w.mtimeNs}:${header.toString('hex')}`;
    }
  }
  return `${main.ino}:${main.size}:${main.mtimeNs}|${wal}`;
}

/**
 * A file below this size (with its WAL) is opened without a worker: its lists, if any, are read in tens
 * of milliseconds, less than a worker thread costs the start's other work on a small machine.
 */
export const PREFETCH_MIN_BYTES = 128 * 2 ** 20;

/**
 * Starts reading the IVF lists of the chunk index at `path` in a worker thread; null when there is no
 * file yet (a new index has no lists to read) or it is smaller than `minBytes`.
 */
export function prefetchIvf(path: string, minBytes = PREFETCH_MIN_BYTES): IvfPrefetch | null {
  if (path === ':memory:' || !existsSync(path)) return null;
  const size = (p: string) => (existsSync(p) ? statSync(p).size : 0);
  if (size(path) + size(`${path}-wal`) < minBytes) return null;
  let worker: Worker;
  try {
    worker = moduleWorker(require.resolve('./ivf-prefetch.worker'), { workerData: { path } });
  } catch {
    return null;
  }
  const done = new Promise<{ state: string; built: IvfBuilt; ms: number } | null>((resolve) => {
    worker.once('message', (m: { state: string; built: IvfBuilt; ms: number }) => resolve(m));
    // any failure (no such table in an older file, a locked or damaged file): the index reads the lists itself
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  });
  return { done, cancel: () => void worker.terminate() };
}
