import Database from 'better-sqlite3';
import { Worker } from 'worker_threads';
import { moduleWorker } from '@larder/kernel/worker-module';
import { DEFAULT_PAGE_CACHE_BYTES } from './sqlite.schema';

/** A read program: a function of a connection, an input and state kept where it runs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReadProgram = (db: Database.Database, input: any, state: any) => unknown;

/**
 * A read program that the worker loads from its module (the export `name` of `module`, a resolved
 * path); `fn` is the same function, which runs here when the worker cannot.
 */
export interface ModuleProgram {
  module: string;
  name: string;
  fn: ReadProgram;
  /** the program whose state this one is given (its own by default) */
  state?: string;
}

/** What the worker thread (sqlite-read.worker.ts) is given. */
export interface ReadWorkerData {
  path: string;
  programs: Record<string, { module: string; name: string; state?: string }>;
  idle: IdleProgram | null;
  /** ms the background program waits for an 'idle' message (0: it begins at once) */
  idleLater: number;
  /** SQLite's page cache of the worker's connection, bytes */
  pageCacheBytes: number;
  /** run once as the worker starts, before it answers any program (a failure is ignored) */
  start: { module: string; name: string } | null;
}

/** A program the worker runs in the background, in slices while it returns true (`state`: the program whose state it shares). */
export interface IdleProgram {
  module: string;
  name: string;
  input: unknown;
  state: string;
}

/**
 * Runs read programs on a second, read-only connection to the same SQLite file in a worker thread, so
 * that the index's slow reads (BM25 over many postings) leave the event loop free: HTTP, the query's
 * embedding, the dense search and the projections go on beside them. WAL mode lets the worker read
 * while the index writes; each statement sees every transaction committed before it began, so a
 * write that has returned is visible to the next read. Where the worker cannot run (an in-memory
 * database, or it failed to start), programs run on the caller's connection.
 */
export class SqliteReadWorker {
  private worker: Worker | null = null;
  private ready: Promise<boolean> | null = null;
  private failed = false;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly localState = new Map<string, object>();
  /** ms the background program waits for startIdle (0: it begins with the worker) */
  private idleLater = 0;

  constructor(
    private readonly path: string,
    private readonly local: Database.Database,
    private readonly programs: Record<string, ModuleProgram>,
    private readonly enabled = path !== ':memory:',
    /** run in the worker between the programs once it starts (or, deferred by warmUp, once startIdle says so; only where the worker runs) */
    private readonly idle: IdleProgram | null = null,
    /** SQLite's page cache of the worker's connection */
    private readonly pageCacheBytes = DEFAULT_PAGE_CACHE_BYTES,
    /** a function of no arguments run in the worker as it starts, before its first program (the lexical code's warm-up) */
    private readonly startProgram: { module: string; name: string } | null = null,
  ) {}

  private start(): Promise<boolean> {
    if (this.ready) return this.ready;
    const programs = Object.fromEntries(
      Object.entries(this.programs).map(([k, p]) => [k, { module: p.module, name: p.name, state: p.state }]),
    );
    const workerData: ReadWorkerData = {
      path: this.path,
      programs,
      idle: this.idle,
      idleLater: this.idleLater,
      pageCacheBytes: this.pageCacheBytes,
      start: this.startProgram,
    };
    const w = moduleWorker(require.resolve('./sqlite-read.worker'), { workerData });
    this.worker = w;
    w.unref();
    this.ready = new Promise<boolean>((resolve) => {
      w.on('message', (m: { ready?: boolean; id?: number; result?: unknown; error?: string }) => {
        if (m.ready) return resolve(true);
        const p = this.pending.get(m.id!);
        if (!p) return;
        this.pending.delete(m.id!);
        if (!this.pending.size) w.unref();
        if (m.error !== undefined) p.reject(new Error(m.error));
        else p.resolve(m.result);
      });
      const down = (err: Error) => {
        resolve(false);
        for (const p of this.pending.values()) p.reject(err);
        this.pending.clear();
        if (this.worker === w) {
          this.worker = null;
          this.ready = null;
        }
      };
      w.on('error', (err) => {
        this.failed = true; // it could not open the file, or crashed: read on the caller's connection
        down(err);
      });
      w.on('exit', () => down(new Error('the index read worker exited')));
    });
    return this.ready;
  }

  /** Runs `program` with `input`: in the worker where it runs, else here. */
  async run<T>(program: string, input: unknown): Promise<T> {
    if (this.enabled && !this.failed && (await this.start()) && this.worker) {
      const w = this.worker;
      const id = this.nextId++;
      const result = new Promise<T>((resolve, reject) =>
        this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }),
      );
      w.ref();
      w.postMessage({ id, program, input });
      return result;
    }
    const name = this.programs[program].state ?? program;
    let state = this.localState.get(name);
    if (!state) this.localState.set(name, (state = {}));
    return this.programs[program].fn(this.local, input, state) as T;
  }

  /**
   * Starts the worker now, if it runs, rather than with the first program (a server calls this while it
   * starts). With `idleLater` (ms), its background program waits for `startIdle`, or that long: what a
   * start does beside it is not slowed by it.
   */
  warmUp(idleLater = 0): void {
    if (!this.enabled || this.failed || this.ready) return;
    this.idleLater = idleLater;
    void this.start();
  }

  /** The background program begins now (where `warmUp` deferred it). */
  startIdle(): void {
    // (a worker started again, after a close or an exit, begins it at once)
    this.idleLater = 0;
    const w = this.worker;
    if (w) w.postMessage({ idle: true });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.ready = null;
    if (w) await w.terminate();
  }
}
