import { promises as fs } from 'fs';
import { randomUUID } from 'crypto';
import { hostname } from 'os';
import { join } from 'path';

/**
 * This process's mark on its temporary directories: a later process with the same pid is another one. Kept in
 * the environment so that worker threads, which start with a copy of it, share their process's mark.
 */
const PROCESS_TOKEN = (process.env.LARDER_PROCESS_TEMP_TOKEN ??= randomUUID().slice(0, 8));

/** `<host>.<pid>.<token>`: the temporary directory of one process. */
const TEMP_DIR_NAME = /^(.+)\.(\d+)\.([0-9a-f]{8})$/;

/**
 * Temporary directories by process under one root: each process writes under `<root>/<host>.<pid>.<token>/`,
 * so a later process can tell the leftovers of a dead one (kill -9 mid-write) from the files a live one is
 * writing, and remove them at once.
 */
export class ProcessTempDirs {
  /** This process's own directory. */
  readonly own: string;
  constructor(readonly root: string) {
    this.own = join(root, `${hostname()}.${process.pid}.${PROCESS_TOKEN}`);
  }

  /** This process's directory, created when missing. */
  async ensure(): Promise<string> {
    await fs.mkdir(this.own, { recursive: true });
    return this.own;
  }

  /**
   * Removes the directories of processes that are gone: at once for a process of this host that no longer
   * runs (or whose pid a later process has), else once untouched for `olderThanMs` (another host's process,
   * or files of no known process). Marks this process's own directory as alive. Answers the files removed.
   */
  async sweep(olderThanMs: number): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.root);
    } catch {
      return 0;
    }
    const now = new Date();
    await fs.utimes(this.own, now, now).catch(() => undefined);
    const before = now.getTime() - olderThanMs;
    let removed = 0;
    for (const name of names) {
      const p = join(this.root, name);
      if (p === this.own) continue;
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
