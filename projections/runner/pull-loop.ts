import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Position, RecordedEvent, comparePositions, positionToString } from '@larder/kernel';
import { HeadWatcher } from './head-watcher';
import { SharedLogReader } from './log-reader';
import { LoopStep } from './loop-steps';
import { ReadYourWrites } from './read-your-writes';
import { StuckInfo, clearStuck, recordStuck } from './stuck-loops';

export interface PullLoopContext {
  ds: DataSource;
  reader: SharedLogReader;
  watcher: HeadWatcher;
  tracker: ReadYourWrites;
  logger: Logger;
  batchSize: number;
  /** Back-off after the first failure; it doubles per attempt up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
}

/** A stuck loop logs its first failure, then at attempts 2, 4, 8, … and at least this often. */
const LOG_STUCK_EVERY_MS = 60_000;

/**
 * One strictly ordered pull loop (a projection, reactor or external projection), catch-up then live.
 * A batch that fails is retried one event at a time, so that the loop applies everything before the
 * event it cannot apply and names that event; the event is then retried with capped exponential
 * back-off, logged and recorded as `stuck` (in memory and in the stuck-loops table) until it applies.
 * A failing loop never stops the others.
 */
export class PullLoop {
  /** Whether the loop is running (false before start, after stop, or if it ever ended by itself). */
  running = false;
  stuck: StuckInfo | null = null;
  private lastLogged = 0;
  /** A stuck row of this loop may exist (from this run or an earlier process) and is cleared on the next success. */
  private stuckRow: boolean;
  /** Writes to the stuck-loops table, in order, never awaited by the loop (a database that hangs must not hang the loop). */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly kind: 'projection' | 'reactor',
    private readonly step: LoopStep,
    private readonly ctx: PullLoopContext,
    /** Whether a stuck row of this loop may exist now (the runner read the table at setup); by default it may. */
    stuckRow = true,
  ) {
    this.stuckRow = stuckRow;
  }

  async run(signal: AbortSignal): Promise<void> {
    this.running = true;
    try {
      await this.pull(signal);
    } finally {
      this.running = false;
      if (!signal.aborted) this.ctx.logger.error(`${this.name}: the loop ended unexpectedly`);
    }
  }

  private async pull(signal: AbortSignal): Promise<void> {
    const { reader, watcher, tracker, batchSize } = this.ctx;
    /** null: (re)read the checkpoint first. */
    let position: Position | null = null;
    /** After a failed batch: read one event at a time up to (and including) this position. */
    let narrowUntil: Position | null = null;
    while (!signal.aborted) {
      let batch: RecordedEvent[] = [];
      try {
        if (!position) {
          position = await this.step.checkpoint();
          // a replay or another runner may have moved it ahead; never move the known position back
          const known = tracker.local(this.name);
          if (!known || comparePositions(position, known) > 0) tracker.advance(this.name, position);
        }
        const single = !!narrowUntil && comparePositions(position, narrowUntil) < 0;
        batch = await reader.read(position, single ? 1 : batchSize);
        if (batch.length === 0) {
          this.succeeded();
          const due = this.step.persistIdle ? await this.step.persistIdle(position) : null;
          await watcher.idle(signal, position, due);
          continue;
        }
        position = await this.step.process(batch, position);
        tracker.advance(this.name, position);
        this.succeeded();
      } catch (err) {
        if (signal.aborted) break;
        // what it deferred is written first, so that the retry re-reads from just before the failing batch
        if (position && this.step.flush) await this.step.flush(position).catch(() => undefined);
        position = null;
        if (batch.length > 1) {
          // find the event that fails: apply the batch again one event at a time
          narrowUntil = batch[batch.length - 1].position;
          this.ctx.logger.debug(
            `${this.name}: a batch of ${batch.length} failed (${(err as Error).message}); retrying it event by event`,
          );
          continue;
        }
        this.failed(err as Error, batch[0] ?? null);
        await sleep(Math.min(this.ctx.retryMaxMs, this.ctx.retryBaseMs * 2 ** (this.stuck!.attempts - 1)), signal);
      }
    }
    // a stopping loop writes the checkpoint it deferred (a reactor's, a skipped one): a restart resumes there
    if (position && this.step.flush)
      await this.step
        .flush(position)
        .catch((err: Error) =>
          this.ctx.logger.warn(`${this.name}: writing its checkpoint on stop failed: ${err.message}`),
        );
  }

  private failed(err: Error, event: RecordedEvent | null): void {
    const message = err?.message ?? String(err);
    const prev = this.stuck;
    const same = !!prev && prev.eventId === (event?.id ?? null);
    const stuck: StuckInfo = {
      eventId: event?.id ?? null,
      type: event?.type ?? null,
      stream: event?.streamId ?? null,
      position: event ? positionToString(event.position) : null,
      error: message,
      attempts: same ? prev.attempts + 1 : 1,
      since: same ? prev.since : new Date(),
    };
    this.stuck = stuck;
    const what = event
      ? `event ${event.id} (${event.type} in ${event.streamId} at ${stuck.position})`
      : 'reading the log';
    const now = Date.now();
    if (stuck.attempts === 1) {
      this.ctx.logger.error(`${this.name}: cannot apply ${what}: ${message}; retrying with back-off`, err?.stack);
      this.lastLogged = now;
    } else if ((stuck.attempts & (stuck.attempts - 1)) === 0 || now - this.lastLogged >= LOG_STUCK_EVERY_MS) {
      this.ctx.logger.warn(
        `${this.name}: stuck on ${what} since ${stuck.since.toISOString()}, ${stuck.attempts} attempts: ${message}`,
      );
      this.lastLogged = now;
    }
    this.stuckRow = true;
    this.enqueue(() => recordStuck(this.ctx.ds, this.name, stuck));
  }

  private succeeded(): void {
    if (this.stuck) {
      const s = this.stuck;
      this.ctx.logger.log(
        `${this.name}: ${s.eventId ? `applied event ${s.eventId} (${s.type})` : 'reads the log again'} after ${s.attempts} failed attempts; no longer stuck`,
      );
      this.stuck = null;
    }
    if (this.stuckRow) {
      this.stuckRow = false;
      this.enqueue(async () => {
        try {
          await clearStuck(this.ctx.ds, this.name);
        } catch (err) {
          if (!this.stuck) this.stuckRow = true; // try again on the next success
          throw err;
        }
      });
    }
  }

  private enqueue(write: () => Promise<void>): void {
    this.writes = this.writes.then(write).catch(() => undefined);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
