import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'fs';
import { hostname } from 'os';
import { join } from 'path';
import { randomBytes } from 'crypto';

/** One journaled record: its organization and the event as it will be appended (with its id). */
export interface JournalRecord {
  organizationId: string;
  event: { id: string; type: string; data: Record<string, unknown> };
}

const HOST = hostname().replace(/[^A-Za-z0-9_-]/g, '_');

/** Whether the process `pid` of this host is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The request records a process has answered but not yet appended, one JSON line each, in segment
 * files of its own (`<host>.<pid>.<token>.<n>.jsonl`). A record is written before its request is
 * answered; a write that returned is in the operating system's cache, so it outlives a `kill -9` of
 * the process. A flush rotates to a new segment and removes the old one once its records are stored;
 * the segments of a process that is gone (of this host) are appended again at the next start: the
 * records keep their event ids, so a record appended before the crash is not appended twice.
 */
export class ActivityJournal {
  private readonly prefix = `${HOST}.${process.pid}.${randomBytes(4).toString('hex')}.`;
  private fd: number | null = null;
  private path: string | null = null;
  private seq = 0;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Writes a record, `JSON.stringify(record)` of a `JournalRecord`. */
  write(json: string): void {
    if (this.fd === null) {
      this.path = join(this.dir, `${this.prefix}${this.seq++}.jsonl`);
      this.fd = openSync(this.path, 'a');
    }
    writeSync(this.fd, `${json}\n`);
  }

  /** Closes the segment being written (null when none) and answers its path: later records go to a new one. */
  rotate(): string | null {
    if (this.fd === null) return null;
    closeSync(this.fd);
    const path = this.path;
    this.fd = null;
    this.path = null;
    return path;
  }

  /** A segment whose records are all stored. */
  remove(path: string): void {
    if (existsSync(path)) unlinkSync(path);
  }

  /** Segments of processes of this host that are gone (their records may not be stored yet). */
  leftovers(): string[] {
    return readdirSync(this.dir)
      .filter((f) => f.endsWith('.jsonl') && !f.startsWith(this.prefix))
      .filter((f) => {
        const [host, pid] = f.split('.');
        return host === HOST && !alive(Number(pid));
      })
      .map((f) => join(this.dir, f));
  }

  /** A segment's records (a line cut short by a crash is left out). */
  static read(path: string): JournalRecord[] {
    const out: JournalRecord[] = [];
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        out.push(JSON.parse(line) as JournalRecord);
      } catch {
        // the last line of a segment whose write was cut off
      }
    }
    return out;
  }
}
