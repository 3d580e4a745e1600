/** Resolves after `ms`, or earlier when `wake` is called or the signal aborts. */
export class Wakeable {
  private waiters = new Set<() => void>();
  wake(): void {
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** Generic catch-up-then-live loop over `readAll`, shared by adapters that poll. */
export async function* pollAll(
  read: (after: import('@larder/kernel').Position) => Promise<import('@larder/kernel').RecordedEvent[]>,
  after: import('@larder/kernel').Position,
  wakeable: Wakeable,
  pollMs: number,
  signal?: AbortSignal,
): AsyncGenerator<import('@larder/kernel').RecordedEvent> {
  let position = after;
  while (!signal?.aborted) {
    const batch = await read(position);
    for (const e of batch) {
      if (signal?.aborted) return;
      yield e;
      position = e.position;
    }
    if (batch.length === 0) await wakeable.wait(pollMs, signal);
  }
}
