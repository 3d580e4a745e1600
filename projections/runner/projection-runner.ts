import { setMaxListeners } from 'events';
import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConsistencyTimeoutError, Position, READ_MODEL_CONSISTENCY, RecordedEvent, ReadModelConsistency, START, comparePositions } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';
import { ExternalProjection, Projection, Reactor } from './projection';
import { lockCheckpoint, readCheckpoint, readCheckpoints, setupCheckpoints, writeCheckpoint, CheckpointRow } from './checkpoints';

export { READ_MODEL_CONSISTENCY };

export interface RunnerOptions {
  batchSize?: number;
  /** How long a command waits for its projections before answering 503. */
  consistencyTimeoutMs?: number;
  /** Whether this process runs the loops (false: an API that only waits on a separate worker). */
  runLoops?: boolean;
  pollMs?: number;
  /** Projections with their own storage and checkpoint (the chunk index). */
  external?: readonly ExternalProjection[];
}

export interface ProjectionStatus {
  name: string;
  kind: 'projection' | 'reactor';
  version: number;
  position: string;
  lag: number;
  updatedAt: Date | null;
}

/** How long a loop may go without writing its checkpoint while it sees only irrelevant events. */
const PERSIST_EVERY_MS = 2000;

/**
 * Drives projectors and reactors from the global log: one strictly ordered pull loop each, catch-up
 * then live, with the checkpoint written in the same transaction as the projection's rows.
 */
export class ProjectionRunner implements ReadModelConsistency {
  private readonly logger = new Logger('ProjectionRunner');
  private readonly positions = new Map<string, Position>();
  /** The checkpoint this runner last wrote (or read) per loop, and when: see `skippable`. */
  private readonly persisted = new Map<string, { position: Position; at: number }>();
  /** Batches with changes applied per projection in this process (bumped after their commit). */
  private readonly epochs = new Map<string, number>();

  epoch(names: readonly string[]): string | null {
    if (this.options.runLoops === false) return null;
    return names.map((n) => this.epochs.get(n) ?? 0).join('.');
  }

  private bump(name: string): void {
    this.epochs.set(name, (this.epochs.get(name) ?? 0) + 1);
  }
  private readonly listeners = new Set<() => void>();
  private controller = new AbortController();
  private loops: Promise<void>[] = [];
  private readonly batchSize: number;

  constructor(
    private readonly store: EventStore,
    private readonly ds: DataSource,
    private readonly projections: readonly Projection[],
    private readonly reactors: readonly Reactor[] = [],
    private readonly options: RunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
  }

  projection(name: string): Projection {
    const p = this.projections.find((x) => x.name === name);
    if (!p) throw new Error(`unknown projection ${name}; known: ${[...this.projections, ...this.external].map((x) => x.name).join(', ')}`);
    return p;
  }

  /** Creates checkpoint and projection tables; a projection whose version changed is rebuilt from START. */
  private get external(): readonly ExternalProjection[] {
    return this.options.external ?? [];
  }

  private async checkpointOf(name: string): Promise<Position> {
    const x = this.external.find((p) => p.name === name);
    return x ? x.readCheckpoint() : readCheckpoint(this.ds, name);
  }

  async setup(): Promise<void> {
    await setupCheckpoints(this.ds);
    for (const x of this.external) await x.setup();
    for (const p of this.projections) {
      await this.ds.transaction(async (m) => {
        await m.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`larder-projection-setup-${p.name}`]);
        await p.setup(m);
        const cp = await lockCheckpoint(m, p.name, 'projection', p.version);
        if (cp.version !== p.version) {
          this.logger.log(`projection ${p.name}: version ${cp.version} → ${p.version}, rebuilding from the start`);
          await m.query(`TRUNCATE ${p.tables.join(', ')}`);
          await writeCheckpoint(m, p.name, p.version, START);
        }
      });
    }
    for (const r of this.reactors) {
      await this.ds.transaction((m) => lockCheckpoint(m, r.name, 'reactor', 1));
    }
  }

  start(): void {
    if (this.options.runLoops === false) return;
    this.controller = new AbortController();
    const signal = this.controller.signal;
    // every loop waits on this one signal while idle (one listener each, removed after the wait)
    setMaxListeners(4 * (this.projections.length + this.external.length + this.reactors.length) + 10, signal);
    for (const p of this.projections) {
      this.loops.push(this.loop(p.name, signal, (batch, from) => this.applyBatch(p, batch, from), (at) => this.persistIdle(p.name, 'projection', p.version, at)));
    }
    for (const x of this.external) {
      this.loops.push(
        this.loop(x.name, signal, async (batch, from) => {
          const handled = batch.filter((e) => x.handles.includes(e.type));
          const last = batch[batch.length - 1].position;
          await x.applyBatch(handled, last);
          void from;
          return last;
        }),
      );
    }
    for (const r of this.reactors) this.loops.push(this.loop(r.name, signal, (batch) => this.reactBatch(r, batch), (at) => this.persistIdle(r.name, 'reactor', 1, at)));
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await Promise.allSettled(this.loops);
    this.loops = [];
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  private async loop(
    name: string,
    signal: AbortSignal,
    process: (batch: RecordedEvent[], from: Position) => Promise<Position>,
    persistIdle?: (at: Position) => Promise<number | null>,
  ): Promise<void> {
    let position = await this.checkpointOf(name);
    this.persisted.set(name, { position, at: Date.now() });
    this.advance(name, position);
    let failures = 0;
    while (!signal.aborted) {
      try {
        const batch = await this.read(position);
        if (batch.length === 0) {
          const due = persistIdle ? await persistIdle(position) : null;
          await this.idle(signal, position, due);
          continue;
        }
        position = await process(batch, position);
        this.advance(name, position);
        failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        failures++;
        this.logger.error(`${name}: ${(err as Error).message}; retrying`, (err as Error).stack);
        await sleep(Math.min(5000, 50 * 2 ** failures), signal);
        position = await this.checkpointOf(name).catch(() => position);
        this.persisted.set(name, { position, at: Date.now() });
      }
    }
  }

  /**
   * Reads of the same batch by loops at the same position share one query: a nudge wakes every loop
   * at the head at once, and each would otherwise read (and decode) the same new events. Batches are
   * read-only to the loops.
   */
  private readonly reading = new Map<string, Promise<RecordedEvent[]>>();
  private read(after: Position): Promise<RecordedEvent[]> {
    const key = `${after.commit}:${after.prepare}`;
    let r = this.reading.get(key);
    if (!r) {
      r = this.store.readAll({ after, maxCount: this.batchSize }).finally(() => this.reading.delete(key));
      this.reading.set(key, r);
    }
    return r;
  }

  /** Idle loops and the position each stopped at. */
  private readonly idleWaiters = new Map<() => void, Position>();
  private pollTimer: NodeJS.Timeout | null = null;

  /**
   * An idle loop waits for a nudge (an append in this process) or for the one shared poll to see an
   * event after the lowest position an idle loop stopped at (an append by another process). One cheap
   * read per poll interval in all, however many loops there are (each polling on its own kept an
   * idle embedded server busy).
   */
  private idle(signal: AbortSignal, at: Position, maxMs: number | null): Promise<void> {
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

  private schedulePoll(): void {
    if (this.pollTimer || !this.idleWaiters.size) return;
    this.pollTimer = setTimeout(() => void this.poll(), this.options.pollMs ?? 25);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    try {
      let lowest: Position | null = null;
      for (const at of this.idleWaiters.values()) if (!lowest || comparePositions(at, lowest) < 0) lowest = at;
      if (lowest && comparePositions(await this.store.headPosition(), lowest) > 0) this.nudge();
    } catch (err) {
      this.logger.warn(`polling the event store: ${(err as Error).message}`);
    } finally {
      this.pollTimer = null;
      this.schedulePoll();
    }
  }

  /** Wakes idle loops at once (called after an append in this process). */
  nudge(): void {
    for (const w of [...this.idleWaiters.keys()]) w();
  }

  /**
   * A batch with no event a loop handles changes nothing but its position: the checkpoint write (a
   * transaction per loop per batch, which on the single-threaded embedded Postgres competes with the
   * requests) is skipped, and written at the latest after PERSIST_EVERY_MS. Restarting re-reads at
   * most those irrelevant events.
   */
  private skippable(name: string, relevant: boolean): boolean {
    const p = this.persisted.get(name);
    return !relevant && !!p && Date.now() - p.at < PERSIST_EVERY_MS;
  }

  /**
   * An idle loop writes the position it skipped to, once PERSIST_EVERY_MS have passed since its last
   * write. Answers how long until that is due (null: nothing left to write).
   */
  private async persistIdle(name: string, kind: 'projection' | 'reactor', version: number, at: Position): Promise<number | null> {
    const p = this.persisted.get(name);
    if (!p || comparePositions(p.position, at) === 0) return null;
    const wait = PERSIST_EVERY_MS - (Date.now() - p.at);
    if (wait > 0) return wait;
    const written = await this.ds.transaction(async (m) => {
      const cp = await lockCheckpoint(m, name, kind, version);
      // only if nobody (another runner, a replay) moved it meanwhile; else the next batch re-reads from there
      if (comparePositions(cp.position, p.position) !== 0) return false;
      await writeCheckpoint(m, name, version, at);
      return true;
    });
    if (written) this.persisted.set(name, { position: at, at: Date.now() });
    return null;
  }

  private async applyBatch(p: Projection, batch: RecordedEvent[], from: Position): Promise<Position> {
    const last = batch[batch.length - 1].position;
    const handled = batch.filter((e) => p.handles.includes(e.type));
    if (this.skippable(p.name, handled.length > 0)) return last;
    const applied = await this.ds.transaction(async (m) => {
      const cp = await lockCheckpoint(m, p.name, 'projection', p.version);
      // Another runner or a replay moved the checkpoint since this runner last wrote or read it
      // (the events between that and `from` were skipped as irrelevant): re-read from there.
      const mine = this.persisted.get(p.name)?.position;
      if (comparePositions(cp.position, from) !== 0 && !(mine && comparePositions(cp.position, mine) === 0)) return cp.position;
      for (const e of handled) await p.apply(e, m);
      await writeCheckpoint(m, p.name, p.version, last);
      this.persisted.set(p.name, { position: last, at: Date.now() });
      return last;
    });
    if (handled.length) this.bump(p.name);
    return applied;
  }

  private async reactBatch(r: Reactor, batch: RecordedEvent[]): Promise<Position> {
    const last = batch[batch.length - 1].position;
    const handled = r.handles ? batch.filter((e) => r.handles!.includes(e.type)) : batch;
    if (this.skippable(r.name, handled.length > 0)) return last;
    for (const e of handled) await r.handle(e);
    await this.ds.transaction(async (m) => {
      await lockCheckpoint(m, r.name, 'reactor', 1);
      await writeCheckpoint(m, r.name, 1, last);
    });
    this.persisted.set(r.name, { position: last, at: Date.now() });
    return last;
  }

  private advance(name: string, position: Position): void {
    this.positions.set(name, position);
    for (const l of [...this.listeners]) l();
  }

  async positionOf(name: string): Promise<Position | null> {
    if (this.options.runLoops === false) return this.checkpointOf(name).catch(() => null);
    return this.positions.get(name) ?? null;
  }

  async waitFor(names: readonly string[], position: Position | null): Promise<void> {
    if (!position) return;
    this.nudge();
    const timeoutMs = this.options.consistencyTimeoutMs ?? 5000;
    const deadline = Date.now() + timeoutMs;
    const caughtUp = async () => {
      for (const n of names) {
        let p = this.positions.get(n);
        if (!p || comparePositions(p, position) < 0) {
          // Loops may run in another process (a separate worker): ask the checkpoint table.
          if (this.options.runLoops === false) p = await this.checkpointOf(n);
          if (!p || comparePositions(p, position) < 0) return false;
        }
      }
      return true;
    };
    while (!(await caughtUp())) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new ConsistencyTimeoutError(`The write is stored but the read model (${names.join(', ')}) has not caught up yet; retry the read shortly.`);
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.listeners.delete(done);
          resolve();
        };
        const t = setTimeout(done, Math.min(left, this.options.runLoops === false ? 10 : 100));
        this.listeners.add(done);
      });
    }
  }

  /**
   * Drops a projection's rows and rebuilds them from the whole log. The rebuild runs in one
   * transaction with the checkpoint row locked, so readers keep seeing the old rows until the new
   * ones commit, and a running loop simply continues from the new checkpoint. Reactors are never replayed.
   */
  async replay(name: string): Promise<{ events: number; position: Position }> {
    const x = this.external.find((e) => e.name === name);
    if (x) return this.replayExternal(x);
    const p = this.projection(name);
    // Read the log first: inside the transaction no other connection may be used (embedded Postgres
    // serves one transaction at a time).
    const events: RecordedEvent[] = [];
    let pos = START;
    for (;;) {
      const batch = await this.store.readAll({ after: pos, maxCount: 5000 });
      if (!batch.length) break;
      events.push(...batch.filter((e) => p.handles.includes(e.type)));
      pos = batch[batch.length - 1].position;
    }
    await this.ds.transaction(async (m) => {
      const cp = await lockCheckpoint(m, p.name, 'projection', p.version);
      await p.setup(m);
      await m.query(`TRUNCATE ${p.tables.join(', ')}`);
      for (const e of events) await p.apply(e, m);
      void cp; // locked: a live loop waits, then sees the moved checkpoint and continues from `pos`
      await writeCheckpoint(m, p.name, p.version, pos);
    });
    this.bump(name);
    this.advance(name, pos);
    return { events: events.length, position: pos };
  }

  /**
   * Rebuilds an external projection: empties it, then re-applies the log in batches. Readers see the
   * index fill up again (it is not blue/green); a live loop continues from the moved checkpoint.
   */
  private async replayExternal(x: ExternalProjection): Promise<{ events: number; position: Position }> {
    await x.reset();
    let pos = START;
    let events = 0;
    for (;;) {
      const batch = await this.store.readAll({ after: pos, maxCount: 1000 });
      if (!batch.length) break;
      const handled = batch.filter((e) => x.handles.includes(e.type));
      pos = batch[batch.length - 1].position;
      await x.applyBatch(handled, pos);
      events += handled.length;
    }
    this.advance(x.name, pos);
    return { events, position: pos };
  }

  async status(): Promise<ProjectionStatus[]> {
    const rows: CheckpointRow[] = await readCheckpoints(this.ds);
    for (const x of this.external) {
      rows.push({ name: x.name, kind: 'projection', version: x.version, position: await x.readCheckpoint(), updatedAt: null } as CheckpointRow);
    }
    const out: ProjectionStatus[] = [];
    for (const r of rows) {
      let lag = 0;
      let at = r.position;
      for (;;) {
        const batch = await this.store.readAll({ after: at, maxCount: 5000 });
        lag += batch.length;
        if (batch.length < 5000 || lag >= 100_000) break;
        at = batch[batch.length - 1].position;
      }
      out.push({ name: r.name, kind: r.kind, version: r.version, position: `${r.position.commit}/${r.position.prepare}`, lag, updatedAt: r.updatedAt });
    }
    return out;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
