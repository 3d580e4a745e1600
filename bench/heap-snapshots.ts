import { mkdirSync, readdirSync } from 'fs';
import { join } from 'path';

/**
 * Heap snapshots of a server the bench started: BENCH_LOAD_HEAP_SNAPSHOTS=<dir> starts it with these node
 * flags (`--heapsnapshot-signal`), and `takeHeapSnapshot` has it write one into `dir`. V8 collects all
 * garbage before it writes one, so the memory the server reports right after is what is live.
 */
export function heapSnapshotArgs(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`];
}

/** Signals the server to write a snapshot into `dir` and waits until it is written (its main thread writes it, then answers again). */
export async function takeHeapSnapshot(pid: number, dir: string, base: string): Promise<string> {
  const had = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !had.has(f));
    if (file) {
      await fetch(`${base}/`).catch(() => undefined);
      return join(dir, file);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
