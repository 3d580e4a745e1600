import { EntityManager } from 'typeorm';
import { Position, RecordedEvent } from '@larder/kernel';

/**
 * A projector builds derived state from events. It must be idempotent (guard rows by stream revision)
 * and deterministic, because it is replayed. Its version appears in its table names so that a new
 * version is built from scratch beside the old one.
 */
export interface Projection {
  readonly name: string;
  readonly version: number;
  /** Event types it reads; others only advance its checkpoint. */
  readonly handles: readonly string[];
  /** This version's tables; replay and version changes empty them. */
  readonly tables: readonly string[];
  /** Create this version's tables (idempotent). */
  setup(manager: EntityManager): Promise<void>;
  /** Applies one event in the batch's transaction, through `manager.query` (the runner opens and commits the transaction). */
  apply(event: RecordedEvent, manager: EntityManager): Promise<void>;
  /**
   * The handled events of one batch at once, in order, in the batch's transaction (optional): lets a
   * projection write many rows in one statement. Must leave the same rows as `apply` event by event.
   */
  applyBatch?(events: RecordedEvent[], manager: EntityManager): Promise<void>;
}

/**
 * A reactor performs side effects (publishing, ingestion, export). It has its own checkpoint and is never
 * replayed; the checkpoint is written at most every two seconds while it works (and once idle or
 * stopping), so its handling must be idempotent: a restart re-handles what the checkpoint had not reached.
 */
export interface Reactor {
  readonly name: string;
  /** Event types it acts on; absent = every event. Batches without any skip the checkpoint write. */
  readonly handles?: readonly string[];
  handle(event: RecordedEvent): Promise<void>;
  /**
   * The events of one batch at once, in order (optional): lets a reactor group its side effects (one
   * append for many entries). Must be as idempotent as `handle`; a batch that fails is retried event by
   * event through `handle`.
   */
  handleBatch?(events: RecordedEvent[]): Promise<void>;
}

/**
 * A projector whose state lives outside the read-model database (the chunk index): it keeps its own
 * checkpoint and writes it with each batch, atomically or idempotently.
 */
export interface ExternalProjection {
  readonly name: string;
  readonly version: number;
  readonly handles: readonly string[];
  /** Prepares storage; a stored version different from `version` is reset (rebuilt from the start). */
  setup(): Promise<void>;
  readCheckpoint(): Promise<Position>;
  applyBatch(events: RecordedEvent[], last: Position): Promise<void>;
  /** Empties the derived state and moves the checkpoint to START. */
  reset(): Promise<void>;
}
