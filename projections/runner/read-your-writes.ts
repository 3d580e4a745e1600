import { ConsistencyTimeoutError, Position, comparePositions } from '@larder/kernel';

export interface ReadYourWritesOptions {
  /** How long `waitFor` waits before `ConsistencyTimeoutError`. */
  timeoutMs: number;
  /** Whether this process runs the loops; if not, positions come from the checkpoint table. */
  runLoops: boolean;
  /** A projection's stored checkpoint. */
  checkpointOf(name: string): Promise<Position>;
}

/**
 * Read-your-writes: how far each loop of this process has applied the log, the epochs of the
 * projections' changes (for caches of hot lookups), and the bounded wait of a command for its
 * projections.
 */
export class ReadYourWrites {
  private readonly positions = new Map<string, Position>();
  /** Batches with changes applied per projection in this process (bumped after their commit). */
  private readonly epochs = new Map<string, number>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: ReadYourWritesOptions) {}

  epoch(names: readonly string[]): string | null {
    if (!this.options.runLoops) return null;
    return names.map((n) => this.epochs.get(n) ?? 0).join('.');
  }

  bump(name: string): void {
    this.epochs.set(name, (this.epochs.get(name) ?? 0) + 1);
  }

  /** A loop of this process reached `position`: wakes the waiting commands. */
  advance(name: string, position: Position): void {
    this.positions.set(name, position);
    for (const l of [...this.listeners]) l();
  }

  /** Where this process's loop is (undefined: not running here, or not started yet). */
  local(name: string): Position | undefined {
    return this.positions.get(name);
  }

  async positionOf(name: string): Promise<Position | null> {
    if (!this.options.runLoops) return this.options.checkpointOf(name).catch(() => null);
    return this.positions.get(name) ?? null;
  }

  /**
   * Answers once every named projection has applied `position`; rejects with
   * ConsistencyTimeoutError when that takes longer than the timeout, also while a projection is
   * stuck or the checkpoint table does not answer.
   */
  async waitFor(names: readonly string[], position: Position | null): Promise<void> {
    if (!position) return;
    const deadline = Date.now() + this.options.timeoutMs;
    for (;;) {
      const caughtUp = await withinMs(this.caughtUp(names, position), Math.max(1, deadline - Date.now()));
      if (caughtUp === true) return;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new ConsistencyTimeoutError(
          `The write is stored but the read model (${names.join(', ')}) has not caught up yet; retry the read shortly.`,
        );
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.listeners.delete(done);
          resolve();
        };
        const t = setTimeout(done, Math.min(left, this.options.runLoops ? 100 : 10));
        this.listeners.add(done);
      });
    }
  }

  private async caughtUp(names: readonly string[], position: Position): Promise<boolean> {
    for (const n of names) {
      let p = this.positions.get(n);
      if (!p || comparePositions(p, position) < 0) {
        // Loops may run in another process (a separate worker): ask the checkpoint table.
        if (!this.options.runLoops) p = await this.options.checkpointOf(n).catch(() => undefined);
        if (!p || comparePositions(p, position) < 0) return false;
      }
    }
    return true;
  }
}

/** The promise's value, or undefined when it takes longer than `ms` (it is left to settle on its own). */
export function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (t = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(t));
}
