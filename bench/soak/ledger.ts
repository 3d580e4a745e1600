import { APIError } from '@mixedbread/sdk';

/**
 * How a request ended, as the client saw it: `ok` answered 2xx, `refused` answered 4xx/5xx,
 * `unknown` no answer (the connection was cut, e.g. by the kill: it may or may not have been
 * applied), `down` the connection was refused (no server listening: nothing was sent).
 */
export type Outcome = 'ok' | 'refused' | 'unknown' | 'down';

/** One request of the soak, client side. Times are ms since the soak started. */
export interface Op {
  seq: number;
  worker: number;
  kind: 'upload' | 'attach' | 'delete-store-file' | 'delete-file' | 'search' | 'qa';
  /** What it was, for a report line: `attach private external_id overwrite:false`. */
  label: string;
  outcome: Outcome;
  status?: number;
  start: number;
  end: number;
  /** An attach: the file and the external id it asked for. */
  file?: string;
  externalId?: string;
}

/** What the client expects of one thing at the end: there, gone, or unknowable (an unknown outcome decided it). */
export type Expect = 'yes' | 'no' | 'maybe';

/** One uploaded file of a worker, and what its acknowledged writes say it must be at the end. */
export interface FileModel {
  worker: number;
  filename: string;
  /** null while its upload had no answer or was refused. */
  fileId: string | null;
  /** The organization's file (`GET /v1/files/{id}`) and the write that decided it. */
  org: Expect;
  orgBy: Op;
  /** The store file, and the write that decided it (null: never attached). */
  store: Expect;
  storeBy: Op | null;
  externalId: string | null;
  /** Attached with an external id other workers attach too: its presence is decided by the race, checked per id. */
  shared: boolean;
  /** An unknown outcome left what it holds uncertain: the worker leaves it alone from then on. */
  retired: boolean;
  /** Every request that concerned it, in order (the last one explains a finding). */
  touches: Op[];
  /** Every external id it was attached with (the attaches of others to them may concern it too). */
  idsHeld: string[];
}

/** A search or question answering request, matched in `/v1/events` by its query. */
export interface QueryModel {
  kind: 'search' | 'qa';
  query: string;
  op: Op;
}

/** The error code an SDK connection error carries somewhere in its chain of causes. */
function causeCode(err: unknown): string | null {
  for (let e = err as { cause?: unknown; code?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++)
    if (typeof e.code === 'string') return e.code;
  return null;
}

/** Every request of the soak, the files they made and the queries they asked. */
export class Ledger {
  readonly ops: Op[] = [];
  readonly files: FileModel[] = [];
  readonly queries: QueryModel[] = [];
  /** Attaches to the shared external ids, by id: the race the check judges. */
  readonly sharedAttaches = new Map<string, Array<{ op: Op; file: FileModel; overwrite: boolean }>>();
  /** Attaches with overwrite:false answered 2xx while another file of the same worker held the id (per its acknowledged writes). */
  readonly conflictsAccepted: Array<{ op: Op; file: FileModel; holder: FileModel; holderDecidedBy: Op | null }> = [];
  /** Files a refused attach removed: a read right after the refusal found them gone. */
  readonly goneAfterRefusal: Array<{ op: Op; file: FileModel; decidedBy: Op | null }> = [];
  private readonly t0 = performance.now();

  now(): number {
    return performance.now() - this.t0;
  }

  /** Runs one request and records how it ended; `value` only when it was answered 2xx. */
  async track<T>(
    worker: number,
    kind: Op['kind'],
    label: string,
    call: () => Promise<T>,
  ): Promise<{ op: Op; value?: T }> {
    const op: Op = { seq: this.ops.length, worker, kind, label, outcome: 'unknown', start: this.now(), end: 0 };
    this.ops.push(op);
    try {
      const value = await call();
      op.outcome = 'ok';
      return { op, value };
    } catch (err) {
      if (err instanceof APIError && typeof err.status === 'number') {
        op.outcome = 'refused';
        op.status = err.status;
      } else if (causeCode(err) === 'ECONNREFUSED') op.outcome = 'down';
      else if (!(err instanceof APIError)) throw err; // a bug of the bench, not an outcome
      return { op };
    } finally {
      op.end = this.now();
    }
  }

  count(pred: (op: Op) => boolean): number {
    return this.ops.reduce((n, op) => n + (pred(op) ? 1 : 0), 0);
  }
}

/** A write moves an expectation only by what its outcome says: 2xx to `ok`, no answer to `maybe`, refused or not sent leaves it. */
export function after(op: Op, current: Expect, ifApplied: Expect): Expect {
  if (op.outcome === 'ok') return ifApplied;
  if (op.outcome === 'unknown') return current === ifApplied ? current : 'maybe';
  return current;
}
