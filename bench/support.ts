import { readFileSync } from 'fs';
import { createServer } from 'net';

/** A free loopback port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Waits until the server at `base` answers `GET /` (100 ms steps, at most `seconds`). */
export async function waitForServer(base: string, seconds = 60): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/`)).ok) return;
    } catch {
      if (i > seconds * 10) throw new Error('server did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
