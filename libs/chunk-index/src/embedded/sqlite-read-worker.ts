import Database from 'better-sqlite3';
import { Worker } from 'worker_threads';

/** A read program: a function of a connection, an input and state kept where it runs (passed as a function, self-contained: the worker runs its source text). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReadProgram = (db: Database.Database, input: any, state: any) => unknown;

/**
 * A read program that the worker loads from its module (so it may import other modules): `fn` is the
 * module's export `name`, which runs here when the worker cannot. A `.ts` module (tests, run from the
 * sources) is compiled on load with @swc/core.
 */
export interface ModuleProgram {
  module: string;
  name: string;
  fn: ReadProgram;
}

const WORKER = `
const { parentPort, workerData, receiveMessageOnPort } = require('worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('cache_size = -65536');
if (workerData.swc) {
  const swc = require(workerData.swc);
  const fs = require('fs');
  require.extensions['.ts'] = (m, filename) =>
    m._compile(swc.transformSync(fs.readFileSync(filename, 'utf8'), { filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }).code, filename);
}
const programs = {};
for (const [name, p] of Object.entries(workerData.programs)) programs[name] = typeof p === 'string' ? (0, eval)('(' + p + ')') : require(p.module)[p.name];
const state = {};
// messages taken while a background slice ran (it asked whether a query waits: shouldYield), handled right after it
const taken = [];
const handle = ({ id, program, input, idle: go }) => {
  if (go) return beginIdle();
  try {
    // one snapshot per program run: its statements all see the same committed state
    const result = db.transaction(() => programs[program](db, input, (state[program] ??= {})))();
    parentPort.postMessage({ id, result });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
};
const shouldYield = () => {
  if (taken.length) return true;
  const m = receiveMessageOnPort(parentPort);
  if (!m) return false;
  taken.push(m.message);
  return true;
};
// a background program (the lexical preload): run in slices, each in a read transaction of its own, while it
// returns true; a slice runs only when no query's message waits (messages are taken between slices, and a
// slice ends after its current step once one comes: shouldYield). Deferred (workerData.idleLater), it begins
// with an 'idle' message, or after idleLater ms without one.
const idle = workerData.idle;
let beginIdle = () => {};
if (idle) {
  const fn = require(idle.module)[idle.name];
  const slice = () => {
    let more = false;
    try {
      more = db.transaction(() => fn(db, idle.input, (state[idle.state] ??= {}), shouldYield))();
    } catch (err) {
      more = false;
    }
    while (taken.length) handle(taken.shift());
    if (more) setImmediate(slice);
  };
  let begun = false;
  beginIdle = () => {
    if (begun) return;
    begun = true;
    setImmediate(slice);
  };
  if (workerData.idleLater) setTimeout(beginIdle, workerData.idleLater).unref();
  else beginIdle();
}
parentPort.on('message', handle);
parentPort.postMessage({ ready: true });
`;

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
    private readonly programs: Record<string, ReadProgram | ModuleProgram>,
    private readonly enabled = path !== ':memory:',
    /** run in the worker between the programs once it starts (or, deferred by warmUp, once startIdle says so; only where the worker runs) */
    private readonly idle: IdleProgram | null = null,
  ) {}

  private start(): Promise<boolean> {
    if (this.ready) return this.ready;
    const programs = Object.fromEntries(Object.entries(this.programs).map(([k, p]) => [k, typeof p === 'function' ? p.toString() : { module: p.module, name: p.name }]));
    const fromSources = Object.values(this.programs).some((p) => typeof p !== 'function' && p.module.endsWith('.ts'));
    const swc = fromSources ? require.resolve('@swc/core') : null;
    const w = new Worker(WORKER, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), path: this.path, programs, swc, idle: this.idle, idleLater: this.idleLater } });
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
      const result = new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
      w.ref();
      w.postMessage({ id, program, input });
      return result;
    }
    let state = this.localState.get(program);
    if (!state) this.localState.set(program, (state = {}));
    const p = this.programs[program];
    return (typeof p === 'function' ? p : p.fn)(this.local, input, state) as T;
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
