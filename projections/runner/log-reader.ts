import { Position, RecordedEvent, comparePositions } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';

/** Recent batches kept for loops that read the same part of the log a little later... */
const RECENT_BATCHES = 4;
/** ...for this long after they were read. */
const RECENT_MS = 2000;

/** A batch as read: every event of the log after `after`, up to the last one, with nothing between them. */
interface Segment {
  after: Position;
  events: RecordedEvent[];
  at: number;
}

/**
 * Reads of the same batch by loops at the same position share one query: a nudge wakes every loop
 * at the head at once, and each would otherwise read (and decode) the same new events. A loop that
 * reads a moment later, from a position inside a batch read recently, is answered from that batch:
 * a read answers a contiguous part of the log that no later append can add to (the event stores read
 * only what was committed before every transaction still open), so its tail is the log's. Batches
 * are read-only to the loops.
 */
export class SharedLogReader {
  private readonly reading = new Map<string, Promise<RecordedEvent[]>>();
  private recent: Segment[] = [];

  constructor(private readonly store: EventStore) {}

  read(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    const kept = this.kept(after, maxCount);
    if (kept) return Promise.resolve(kept);
    const key = `${after.commit}:${after.prepare}:${maxCount}`;
    let r = this.reading.get(key);
    if (!r) {
      r = this.store.readAll({ after, maxCount }).finally(() => this.reading.delete(key));
      r.then((events) => this.keep(after, events)).catch(() => undefined);
      this.reading.set(key, r);
    }
    return r;
  }

  /** The events after `after` from a recent batch that holds them, at most `maxCount`; null when none does. */
  private kept(after: Position, maxCount: number): RecordedEvent[] | null {
    const now = performance.now();
    this.recent = this.recent.filter((s) => now - s.at < RECENT_MS);
    for (let k = this.recent.length - 1; k >= 0; k--) {
      const { after: from, events } = this.recent[k];
      if (comparePositions(after, from) < 0 || comparePositions(after, events[events.length - 1].position) >= 0)
        continue;
      let lo = 0;
      let hi = events.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (comparePositions(events[mid].position, after) > 0) hi = mid;
        else lo = mid + 1;
      }
      return events.slice(lo, lo + maxCount);
    }
    return null;
  }

  private keep(after: Position, events: RecordedEvent[]): void {
    if (!events.length) return;
    this.recent.push({ after, events, at: performance.now() });
    if (this.recent.length > RECENT_BATCHES) this.recent.shift();
  }
}
