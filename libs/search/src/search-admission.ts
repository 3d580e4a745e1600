import { AsyncLocalStorage } from 'async_hooks';
import { availableParallelism } from 'os';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ServiceUnavailableError } from '@larder/kernel';
import { AdmissionLimits, SEARCH_CONFIG, SearchConfig } from './search.config';

/** The defaults: two searches per core at once, 256 waiting, no limit on a wait (0). */
export function defaultAdmissionLimits(cores = availableParallelism()): AdmissionLimits {
  return { concurrency: 2 * Math.max(1, cores), queue: 256, queueWaitMs: 0 };
}

/** Seconds a refused search is told to wait (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 1;

/** A request's turn: held while its search runs, given up while it waits on a model (`outside`). */
interface Slot {
  held: boolean;
  /** Calls of `outside` under way in this slot's request (parallel branches share the slot). */
  away: number;
}

interface Waiter {
  slot: Slot;
  admit: () => void;
  refuse: (err: Error) => void;
  timer: NodeJS.Timeout | null;
}

/**
 * Admission of search work (store, file and vector-store search, QA, agentic search, grep, and the
 * searches of chat tools): at most `concurrency` run at once in the process; the others wait in one
 * FIFO queue of at most `queue`, and a search is refused with 503 and `Retry-After` when the queue is
 * full (or, where `queueWaitMs` is set, once it waited that long). Searches share the event loop with writes, projections and
 * ingestion (whose database round trips wait behind every ready search callback), so bounding them
 * bounds how long a write's steps wait. A freed turn is handed on from `setImmediate`: the replies
 * already waiting on the event loop (a write's next database round trip) run before the next search
 * starts. A search nested in another (a vector-store search running the store search) runs in its
 * caller's turn; a model call inside a search (`outside`) gives the turn up meanwhile and takes it
 * back ahead of the queue, never refused.
 */
@Injectable()
export class SearchAdmission {
  readonly limits: AdmissionLimits;
  private runningCount = 0;
  private readonly waiting: Waiter[] = [];
  private granting = false;
  private readonly slots = new AsyncLocalStorage<Slot>();
  /** Searches refused since the start, by why. */
  readonly refused = { queueFull: 0, queueWait: 0 };

  constructor(@Optional() @Inject(SEARCH_CONFIG) config?: SearchConfig | null) {
    this.limits = config?.admission ?? defaultAdmissionLimits();
  }

  /** Searches running now. */
  get running(): number {
    return this.runningCount;
  }

  /** Searches waiting for their turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `search` in its turn: at once when one is free and nobody waits, else after those queued
   * before it. Refused (503) when the queue is full (or the wait outlasts a set `queueWaitMs`); a search whose
   * client hung up (`signal`) leaves the queue.
   */
  async run<T>(search: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.slots.getStore()?.held) return search();
    const slot: Slot = { held: false, away: 0 };
    await this.acquire(slot, false, signal);
    try {
      return await this.slots.run(slot, search);
    } finally {
      if (slot.held) this.release(slot);
    }
  }

  /** Runs `wait` (a model call) without the caller's turn, then takes it back ahead of the queue. */
  async outside<T>(wait: () => Promise<T>): Promise<T> {
    const slot = this.slots.getStore();
    if (!slot || (!slot.held && slot.away === 0)) return wait();
    if (slot.away++ === 0) this.release(slot);
    try {
      return await wait();
    } finally {
      if (--slot.away === 0) await this.acquire(slot, true);
    }
  }

  private acquire(slot: Slot, back: boolean, signal?: AbortSignal): Promise<void> {
    if (this.runningCount < this.limits.concurrency && (back || this.waiting.length === 0)) {
      this.take(slot);
      return Promise.resolve();
    }
    if (!back && this.waiting.length >= this.limits.queue) {
      this.refused.queueFull++;
      return Promise.reject(
        new ServiceUnavailableError(
          `Too many searches are waiting (${this.limits.queue}); retry shortly.`,
          RETRY_AFTER_SECONDS,
        ),
      );
    }
    signal?.throwIfAborted();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        slot,
        timer: null,
        admit: () => {
          settle();
          resolve();
        },
        refuse: (err) => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          settle();
          reject(err);
        },
      };
      const onAbort = () => waiter.refuse(signal!.reason as Error);
      const settle = () => {
        if (waiter.timer) clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (back) {
        this.waiting.unshift(waiter);
      } else {
        this.waiting.push(waiter);
        if (this.limits.queueWaitMs > 0) {
          waiter.timer = setTimeout(() => {
            this.refused.queueWait++;
            waiter.refuse(
              new ServiceUnavailableError(
                `The search waited ${this.limits.queueWaitMs} ms for its turn; retry shortly.`,
                RETRY_AFTER_SECONDS,
              ),
            );
          }, this.limits.queueWaitMs);
          waiter.timer.unref();
        }
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      // a turn freed before this search queued is handed on now
      this.grantLater();
    });
  }

  private take(slot: Slot): void {
    this.runningCount++;
    slot.held = true;
  }

  private release(slot: Slot): void {
    slot.held = false;
    this.runningCount--;
    this.grantLater();
  }

  /** Hands free turns to the queue's head from `setImmediate`, after the I/O callbacks already due. */
  private grantLater(): void {
    if (this.granting || !this.waiting.length || this.runningCount >= this.limits.concurrency) return;
    this.granting = true;
    setImmediate(() => {
      this.granting = false;
      while (this.waiting.length && this.runningCount < this.limits.concurrency) {
        const w = this.waiting.shift()!;
        this.take(w.slot);
        w.admit();
      }
    });
  }
}
