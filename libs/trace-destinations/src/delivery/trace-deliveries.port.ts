import type { TraceKind } from '../events';
import type { FinishedRun } from '../export/finished-run';

/** One run waiting to be sent to one destination. */
export interface PendingDelivery {
  destinationId: string;
  organizationId: string;
  sourceEventId: string;
  traceKind: TraceKind;
  run: FinishedRun;
  /** Failed attempts so far. */
  attempts: number;
}

/** A destination's delivery record (not derived from events: replay never touches it). */
export interface DeliveryOutcome {
  lastAttemptAt: Date | null;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  /** Why the last failed attempt failed (kept after later successes, with its time). */
  lastError: string | null;
  consecutiveFailures: number;
  delivered: number;
  /** Runs given up on after the last retry. */
  dropped: number;
  /** Runs waiting (new, or failed and due again). */
  pending: number;
}

export const NO_OUTCOME: DeliveryOutcome = {
  lastAttemptAt: null,
  lastSuccessAt: null,
  lastFailureAt: null,
  lastError: null,
  consecutiveFailures: 0,
  delivered: 0,
  dropped: 0,
  pending: 0,
};

/** The delivery back-off settings (the waits themselves come from the shared outbound retry policy). */
export interface DeliveryRetry {
  /** First back-off; it doubles per failed attempt up to `maxMs`. */
  baseMs: number;
  maxMs: number;
  /** A run is dropped (counted in `dropped`) after this many failed attempts. */
  maxAttempts: number;
}

/** The waits of one failed delivery, per attempt, and after how many failed attempts it is dropped. */
export interface DeliveryBackoff {
  maxAttempts: number;
  delaysMs: readonly number[];
}

/**
 * The durable queue between the export reactor and the delivery loop (an outbox): the reactor enqueues
 * one delivery per (destination, run), idempotently; the loop claims due deliveries of one destination
 * under a lease, sends them, and records the outcome. Nothing enqueued is lost across a restart: a
 * claim whose worker died is due again when its lease ends.
 */
export interface TraceDeliveries {
  setup(): Promise<void>;
  /** Enqueues deliveries (a (destination, run) pair already queued is left as it is); resolves to how many are new. */
  enqueue(items: Array<Omit<PendingDelivery, 'attempts'>>, now: Date): Promise<number>;
  /** Destinations with a delivery due at `now`, oldest first. */
  dueDestinations(now: Date, limit: number): Promise<Array<{ destinationId: string; organizationId: string }>>;
  /** Claims up to `limit` due deliveries of one destination until `leaseUntil` (others skip them). */
  claim(destinationId: string, now: Date, limit: number, leaseUntil: Date): Promise<PendingDelivery[]>;
  /** The claimed deliveries were accepted: they leave the queue; the outcome records the success. */
  succeeded(destinationId: string, organizationId: string, sourceEventIds: string[], at: Date): Promise<void>;
  /**
   * The claimed deliveries failed: each is due again after `delaysMs[n]` (n: its failed attempts before
   * this one; the last entry past the list's end), or dropped after its `maxAttempts`th; the outcome
   * records the failure and why.
   */
  failed(
    destinationId: string,
    organizationId: string,
    sourceEventIds: string[],
    at: Date,
    error: string,
    retry: DeliveryBackoff,
  ): Promise<{ dropped: number }>;
  /** Removes queued deliveries of a destination (all, or these) without sending them. */
  discard(destinationId: string, sourceEventIds?: string[]): Promise<number>;
  /** Removes everything of a deleted destination: its queue and its outcome. */
  forget(destinationId: string): Promise<void>;
  /** The outcome of each destination (with its pending count); destinations never tried get NO_OUTCOME. */
  outcomes(destinationIds: string[]): Promise<Map<string, DeliveryOutcome>>;
}

export const TRACE_DELIVERIES = Symbol('TRACE_DELIVERIES');
