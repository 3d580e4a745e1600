import { Logger } from '@nestjs/common';
import { Position, comparePositions } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';

/**
 * Wakes idle loops: at once on a nudge (an append in this process), or when the one shared poll of
 * the event store's head sees an event after the lowest position an idle loop stopped at (an append
 * by another process). One cheap read per poll interval in all, however many loops there are (each
 * polling on its own kept an idle embedded server busy).
 */
export class HeadWatcher {
  /** Idle loops and the position each stopped at. */
  private readonly idleWaiters = new Map<() => void, Position>();
  private pollTimer: NodeJS.Timeout | null = null;
  /** When a failing poll was last logged (0: the last poll succeeded); a failing store is logged once a minute, not every poll. */
  private failingSince = 0;
  private lastLogged = 0;

  constructor(
    private readonly store: EventStore,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  /** Waits until woken, aborted, or (with `maxMs`) that long has passed. */
  idle(signal: AbortSignal, at: Position, maxMs: number | null): Promise<void> {
    // stopped while reading: an abort that already happened would never fire its listener
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      // a loop with a skipped position to write wakes when it is due
      const t = maxMs === null ? null : setTimeout(() => done(), maxMs + 5);
      const done = () => {
        if (t) clearTimeout(t);
        this.idleWaiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.idleWaiters.set(done, at);
      signal.addEventListener('abort', done, { once: true });
      this.schedulePoll();
    });
  }

  /** Wakes every idle loop at once. */
  nudge(): void {
    for (const w of [...this.idleWaiters.keys()]) w();
  }

  stop(): void {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  private schedulePoll(): void {
    if (this.pollTimer || !this.idleWaiters.size) return;
    this.pollTimer = setTimeout(() => void this.poll(), this.pollMs);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    try {
      let lowest: Position | null = null;
      for (const at of this.idleWaiters.values()) if (!lowest || comparePositions(at, lowest) < 0) lowest = at;
      if (lowest && comparePositions(await this.store.headPosition(), lowest) > 0) this.nudge();
      if (this.failingSince)
        this.logger.log(
          `polling the event store works again (it failed for ${Math.round((Date.now() - this.failingSince) / 1000)} s)`,
        );
      this.failingSince = 0;
    } catch (err) {
      const now = Date.now();
      if (!this.failingSince || now - this.lastLogged >= 60_000) {
        this.logger.warn(`polling the event store: ${(err as Error).message}`);
        this.lastLogged = now;
      }
      this.failingSince ||= now;
    } finally {
      this.pollTimer = null;
      this.schedulePoll();
    }
  }
}
