import { DataSource } from 'typeorm';
import { Position, RecordedEvent, comparePositions } from '@larder/kernel';
import { ExternalProjection, Projection, Reactor } from './projection';
import { moveCheckpoint, readCheckpoint, upsertCheckpoint, withLockedCheckpoint } from './checkpoints';
import { ReadYourWrites } from './read-your-writes';

/** What a pull loop does with the batches it reads, and where it resumes. */
export interface LoopStep {
  /** The stored checkpoint, where the loop (re)starts. */
  checkpoint(): Promise<Position>;
  /** Applies a batch read after `from`; answers the position to continue after. */
  process(batch: RecordedEvent[], from: Position): Promise<Position>;
  /** While idle at `at`: writes a skipped checkpoint once due; answers ms until that is due (null: nothing to write). */
  persistIdle?(at: Position): Promise<number | null>;
  /** When the loop stops at `at`: writes the checkpoint it has not written yet, due or not. */
  flush?(at: Position): Promise<void>;
}

/** How long a loop may go without writing its checkpoint while it sees only irrelevant events. */
const PERSIST_EVERY_MS = 2000;

/**
 * The steps of projection, reactor and external-projection loops: the checkpoint is written in the
 * same transaction as a projection's rows, and skipped for batches with nothing a loop handles.
 */
export class LoopSteps {
  /** The checkpoint this runner last wrote (or read) per loop, and when: see `skippable`. */
  private readonly persisted = new Map<string, { position: Position; at: number }>();

  constructor(
    private readonly ds: DataSource,
    private readonly tracker: ReadYourWrites,
  ) {}

  projection(p: Projection): LoopStep {
    return {
      checkpoint: () => this.readCheckpoint(p.name),
      process: (batch, from) => this.applyBatch(p, batch, from),
      persistIdle: (at) => this.persistIdle(p.name, 'projection', p.version, at),
      flush: (at) => this.flush(p.name, 'projection', p.version, at),
    };
  }

  reactor(r: Reactor): LoopStep {
    return {
      checkpoint: () => this.readCheckpoint(r.name),
      process: (batch) => this.reactBatch(r, batch),
      persistIdle: (at) => this.persistIdle(r.name, 'reactor', 1, at),
      flush: (at) => this.flush(r.name, 'reactor', 1, at),
    };
  }

  /** An external projection writes its own checkpoint with every batch. */
  external(x: ExternalProjection): LoopStep {
    return {
      checkpoint: () => x.readCheckpoint(),
      process: async (batch) => {
        const last = batch[batch.length - 1].position;
        await x.applyBatch(
          batch.filter((e) => x.handles.includes(e.type)),
          last,
        );
        return last;
      },
    };
  }

  private async readCheckpoint(name: string): Promise<Position> {
    const position = await readCheckpoint(this.ds, name);
    this.persisted.set(name, { position, at: Date.now() });
    return position;
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
  private async persistIdle(
    name: string,
    kind: 'projection' | 'reactor',
    version: number,
    at: Position,
  ): Promise<number | null> {
    const p = this.persisted.get(name);
    if (!p || comparePositions(p.position, at) === 0) return null;
    const wait = PERSIST_EVERY_MS - (Date.now() - p.at);
    if (wait > 0) return wait;
    await this.flush(name, kind, version, at);
    return null;
  }

  /** Writes the position a loop moved to without writing it, now. */
  private async flush(name: string, kind: 'projection' | 'reactor', version: number, at: Position): Promise<void> {
    const p = this.persisted.get(name);
    if (!p || comparePositions(p.position, at) === 0) return;
    // only if nobody (another runner, a replay) moved it meanwhile; else the next batch re-reads from there
    const moved = (await moveCheckpoint(this.ds, name, kind, version, [p.position], at)) === null;
    if (moved) this.persisted.set(name, { position: at, at: Date.now() });
  }

  private async applyBatch(p: Projection, batch: RecordedEvent[], from: Position): Promise<Position> {
    const last = batch[batch.length - 1].position;
    const handled = batch.filter((e) => p.handles.includes(e.type));
    if (this.skippable(p.name, handled.length > 0)) return last;
    if (!handled.length) return this.moveOnly(p, from, last);
    const entry = { name: p.name, kind: 'projection' as const, version: p.version };
    const applied = await withLockedCheckpoint(this.ds, entry, async (m, cp) => {
      // Another runner or a replay moved the checkpoint since this runner last wrote or read it
      // (the events between that and `from` were skipped as irrelevant): re-read from there.
      const mine = this.persisted.get(p.name)?.position;
      if (comparePositions(cp.position, from) !== 0 && !(mine && comparePositions(cp.position, mine) === 0))
        return { write: null, result: cp.position };
      if (p.applyBatch) await p.applyBatch(handled, m);
      else for (const e of handled) await p.apply(e, m);
      return { write: last, result: last };
    });
    if (comparePositions(applied, last) === 0) this.persisted.set(p.name, { position: last, at: Date.now() });
    if (handled.length) this.tracker.bump(p.name);
    return applied;
  }

  /**
   * A batch with nothing the projection handles, once its checkpoint is due: moved in one statement,
   * only from where this runner left it (as `applyBatch` checks under its lock), never in a transaction
   * that would hold the shared embedded backend across round trips.
   */
  private async moveOnly(p: Projection, from: Position, last: Position): Promise<Position> {
    const mine = this.persisted.get(p.name)?.position;
    const stands = await moveCheckpoint(this.ds, p.name, 'projection', p.version, mine ? [from, mine] : [from], last);
    if (stands) return stands;
    this.persisted.set(p.name, { position: last, at: Date.now() });
    return last;
  }

  /**
   * A reactor's side effects are idempotent (a restart re-handles what its checkpoint had not reached),
   * so its checkpoint is written as a skipped one is: at most every PERSIST_EVERY_MS while it works, and
   * by `persistIdle` once it is idle. Under ingestion that is one statement every two seconds per
   * reactor instead of one per batch; a restart re-handles at most those two seconds of events.
   */
  private async reactBatch(r: Reactor, batch: RecordedEvent[]): Promise<Position> {
    const last = batch[batch.length - 1].position;
    const handled = r.handles ? batch.filter((e) => r.handles!.includes(e.type)) : batch;
    if (r.handleBatch && handled.length) await r.handleBatch(handled);
    else for (const e of handled) await r.handle(e);
    if (this.skippable(r.name, false)) return last;
    // one statement, no transaction: a reactor writes no rows beside its checkpoint
    await upsertCheckpoint(this.ds, r.name, 'reactor', 1, last);
    this.persisted.set(r.name, { position: last, at: Date.now() });
    return last;
  }
}
