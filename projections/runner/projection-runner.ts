import { setMaxListeners } from 'events';
import { Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Position, READ_MODEL_CONSISTENCY, ReadModelConsistency, START } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';
import { ExternalProjection, Projection, Reactor } from './projection';
import { literal, lockCheckpoints, readCheckpoint, setupCheckpoints, writeCheckpoint } from './checkpoints';
import { HeadWatcher } from './head-watcher';
import { SharedLogReader } from './log-reader';
import { LoopSteps } from './loop-steps';
import { PullLoop } from './pull-loop';
import { ReadYourWrites } from './read-your-writes';
import { ReplayResult, replayExternal, replayProjection } from './replay';
import { ProjectionStatus, readStatus } from './runner-status';
import { StuckInfo, setupStuckLoops, stuckLoopNames } from './stuck-loops';

export { READ_MODEL_CONSISTENCY };
export type { ProjectionStatus };

export interface RunnerOptions {
  batchSize?: number;
  /** How long a command waits for its projections before answering 503. */
  consistencyTimeoutMs?: number;
  /** Whether this process runs the loops (false: an API that only waits on a separate worker). */
  runLoops?: boolean;
  pollMs?: number;
  /** Back-off of a loop that cannot apply an event: doubles from `retryBaseMs` (100) up to `retryMaxMs` (30 s). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Projections with their own storage and checkpoint (the chunk index). */
  external?: readonly ExternalProjection[];
  /**
   * Whether this process runs the external projections' loops although it runs no other loop (default:
   * as runLoops). An API process beside a separate worker keeps its own embedded chunk index this way:
   * a replica of the log and the artifacts in shared blob storage, never re-embedded.
   */
  externalLoops?: boolean;
}

/**
 * Drives projectors and reactors from the global log: one strictly ordered pull loop each
 * (`pull-loop.ts`, steps in `loop-steps.ts`), woken by one shared head watcher (`head-watcher.ts`),
 * with read-your-writes for commands (`read-your-writes.ts`), replay (`replay.ts`) and status
 * (`runner-status.ts`). A loop that cannot apply an event is stuck, visibly; the others go on.
 */
export class ProjectionRunner implements ReadModelConsistency {
  private readonly logger = new Logger('ProjectionRunner');
  private readonly tracker: ReadYourWrites;
  private readonly watcher: HeadWatcher;
  private readonly steps: LoopSteps;
  private readonly reader: SharedLogReader;
  private controller = new AbortController();
  private loops: PullLoop[] = [];
  private running: Promise<void>[] = [];
  /** The external indexes' setup, begun by `setup` (their loops and checkpoints wait for it). */
  private externalSetup: Promise<void> = Promise.resolve();
  /** The loops with a stuck row when `setup` ran (null before: every loop then clears its row on its first success). */
  private stuckAtSetup: Set<string> | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly ds: DataSource,
    private readonly projections: readonly Projection[],
    private readonly reactors: readonly Reactor[] = [],
    private readonly options: RunnerOptions = {},
  ) {
    this.tracker = new ReadYourWrites({
      timeoutMs: options.consistencyTimeoutMs ?? 5000,
      runLoops: options.runLoops !== false,
      checkpointOf: (name) => this.checkpointOf(name),
    });
    this.watcher = new HeadWatcher(store, options.pollMs ?? 25, this.logger);
    this.steps = new LoopSteps(ds, this.tracker);
    this.reader = new SharedLogReader(store);
  }

  private get external(): readonly ExternalProjection[] {
    return this.options.external ?? [];
  }

  /** Whether this process runs the loops (else a separate worker does). */
  get runsLoops(): boolean {
    return this.options.runLoops !== false;
  }

  projection(name: string): Projection {
    const p = this.projections.find((x) => x.name === name);
    if (!p)
      throw new Error(
        `unknown projection ${name}; known: ${[...this.projections, ...this.external].map((x) => x.name).join(', ')}`,
      );
    return p;
  }

  private async checkpointOf(name: string): Promise<Position> {
    const x = this.external.find((p) => p.name === name);
    return x ? this.externalSetup.then(() => x.readCheckpoint()) : readCheckpoint(this.ds, name);
  }

  /**
   * Creates checkpoint and projection tables; a projection whose version changed is rebuilt from START.
   * The external indexes (the embedded chunk index: its own file, its lists read in a worker) are set up
   * meanwhile; with `awaitExternal: false` this returns without waiting for them (a server start builds
   * its HTTP app meanwhile, and awaits `externalReady` before it listens): their loops start only once
   * they are set up, and their checkpoints are read only then.
   */
  async setup(options: { awaitExternal?: boolean } = {}): Promise<void> {
    const external = Promise.all(this.external.map((x) => x.setup())).then(() => undefined);
    // one failure is the setup's failure: the other is awaited, not left unhandled
    external.catch(() => undefined);
    this.externalSetup = external;
    await setupCheckpoints(this.ds);
    await setupStuckLoops(this.ds);
    // which loops have a stuck row to clear on their next success (the others' first success writes nothing)
    this.stuckAtSetup = await stuckLoopNames(this.ds);
    // One transaction for them all, in four round trips whatever their number (the single-session
    // embedded database pays each one at every start): the projections' setup statements behind each
    // one's advisory lock, as one simple query; then every checkpoint locked (a no-op update) and read.
    await this.ds.transaction(async (m) => {
      const statements: string[] = [];
      for (const p of this.projections) {
        statements.push(`SELECT pg_advisory_xact_lock(hashtext(${literal(`larder-projection-setup-${p.name}`)}))`);
        await p.setup(collectingDdl(m, statements));
      }
      if (statements.length) await m.query(joinStatements(statements));
      const checkpoints = await lockCheckpoints(m, [
        ...this.projections.map((p) => ({ name: p.name, kind: 'projection' as const, version: p.version })),
        ...this.reactors.map((r) => ({ name: r.name, kind: 'reactor' as const, version: 1 })),
      ]);
      for (const p of this.projections) {
        const cp = checkpoints.get(p.name)!;
        if (cp.version !== p.version) {
          this.logger.log(`projection ${p.name}: version ${cp.version} → ${p.version}, rebuilding from the start`);
          await m.query(`TRUNCATE ${p.tables.join(', ')}`);
          await writeCheckpoint(m, p.name, p.version, START);
        }
      }
    });
    if (options.awaitExternal !== false) await external;
  }

  /** Settles once the external indexes' setup (begun by `setup`) has: rejects with its failure. */
  get externalReady(): Promise<void> {
    return this.externalSetup;
  }

  private hadStuckRow(name: string): boolean {
    return this.stuckAtSetup?.has(name) ?? true;
  }

  start(): void {
    const externalHere = this.options.externalLoops ?? this.runsLoops;
    if ((!this.runsLoops && !externalHere) || this.running.length) return;
    this.controller = new AbortController();
    const signal = this.controller.signal;
    const ctx = {
      ds: this.ds,
      reader: this.reader,
      watcher: this.watcher,
      tracker: this.tracker,
      logger: this.logger,
      batchSize: this.options.batchSize ?? 500,
      retryBaseMs: this.options.retryBaseMs ?? 100,
      retryMaxMs: this.options.retryMaxMs ?? 30_000,
    };
    const externalLoops = externalHere
      ? this.external.map(
          (x) => new PullLoop(x.name, 'projection', this.steps.external(x), ctx, this.hadStuckRow(x.name)),
        )
      : [];
    this.loops = [
      ...(this.runsLoops
        ? this.projections.map(
            (p) => new PullLoop(p.name, 'projection', this.steps.projection(p), ctx, this.hadStuckRow(p.name)),
          )
        : []),
      ...externalLoops,
      ...(this.runsLoops
        ? this.reactors.map(
            (r) => new PullLoop(r.name, 'reactor', this.steps.reactor(r), ctx, this.hadStuckRow(r.name)),
          )
        : []),
    ];
    // every loop waits on this one signal while idle or backing off (one listener each, removed after the wait)
    setMaxListeners(4 * this.loops.length + 10, signal);
    // an external index's loop starts once the index is set up (a failed setup fails the start: no loop then)
    const external = this.externalSetup;
    this.running = this.loops.map((l) =>
      externalLoops.includes(l)
        ? external.then(
            () => (signal.aborted ? undefined : l.run(signal)),
            () => undefined,
          )
        : l.run(signal),
    );
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await Promise.allSettled(this.running);
    this.running = [];
    this.watcher.stop();
  }

  /** Wakes idle loops at once (called after an append in this process). */
  nudge(): void {
    this.watcher.nudge();
  }

  epoch(names: readonly string[]): string | null {
    return this.tracker.epoch(names);
  }

  positionOf(name: string): Promise<Position | null> {
    return this.tracker.positionOf(name);
  }

  /** Answers once the projections applied `position`; ConsistencyTimeoutError after the consistency timeout. */
  waitFor(names: readonly string[], position: Position | null): Promise<void> {
    if (position) this.nudge();
    return this.tracker.waitFor(names, position);
  }

  /** Rebuilds a projection (or the external chunk index) from the whole log; reactors are never replayed. */
  async replay(name: string): Promise<ReplayResult> {
    const x = this.external.find((e) => e.name === name);
    const r = x
      ? await replayExternal(this.store, x)
      : await replayProjection(this.store, this.ds, this.projection(name));
    this.tracker.bump(name);
    this.tracker.advance(name, r.position);
    return r;
  }

  /** This process's loops (none where they run elsewhere): whether each runs, and what it is stuck on; no database needed. */
  loopStates(): Array<{ name: string; kind: 'projection' | 'reactor'; running: boolean; stuck: StuckInfo | null }> {
    return this.loops.map((l) => ({ name: l.name, kind: l.kind, running: l.running, stuck: l.stuck }));
  }

  /**
   * Every projection's and reactor's position, lag (events behind the head, counted up to `maxLag`),
   * whether its loop runs in this process, and what it is stuck on.
   */
  async status(options: { maxLag?: number } = {}): Promise<ProjectionStatus[]> {
    // an external index's checkpoint is read once it is set up
    await this.externalSetup;
    const loops = this.runsLoops
      ? this.loops.map((l) => ({
          name: l.name,
          running: l.running,
          stuck: l.stuck,
          position: this.tracker.local(l.name),
        }))
      : null;
    return readStatus({
      ds: this.ds,
      store: this.store,
      external: this.external,
      loops,
      maxLag: options.maxLag ?? 100_000,
    });
  }
}

/** Statements as one simple query (each on lines of its own: a statement's trailing line comment ends before the separator). */
function joinStatements(statements: readonly string[]): string {
  return statements.join('\n;\n');
}

/**
 * The manager a projection's setup runs through: its DDL (CREATE, ALTER, DROP or COMMENT, without
 * parameters: a setup's statements) is collected into `statements`, to run later in the same
 * transaction, in order, with the others; anything else runs at once, after what was collected.
 */
function collectingDdl(m: EntityManager, statements: string[]): EntityManager {
  const query = async (sql: string, parameters?: unknown[]): Promise<unknown> => {
    if (!parameters?.length && /^\s*(CREATE|ALTER|DROP|COMMENT)\b/i.test(sql)) {
      statements.push(sql);
      return [];
    }
    if (statements.length) await m.query(joinStatements(statements.splice(0)));
    return m.query(sql, parameters);
  };
  return new Proxy(m, {
    get: (target, prop, receiver): unknown => (prop === 'query' ? query : Reflect.get(target, prop, receiver)),
  });
}
