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
 * reads a moment later, from a position inside a batch read recently (or being read, from before its
 * position), is answered from that batch:
 * a read answers a contiguous part of the log that no later append can add to (the event stores read
 * only what was committed before every transaction still open), so its tail is the log's. Batches
 * are read-only to the loops.
 */
export class SharedLogReader {
  private readonly reading = new Map<string, { after: Position; events: Promise<RecordedEvent[]> }>();
  private recent: Segment[] = [];

  constructor(private readonly store: EventStore) {}

  async read(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    const kept = this.kept(after, maxCount);
    if (kept) return kept;
    const key = `${after.commit}:${after.prepare}:${maxCount}`;
    const same = this.reading.get(key);
    if (same) return same.events;
    // A read in flight from before `after` may hold it: wait for it and answer from what it kept (loops
    // woken by one append, a little apart, then share one read); a loop past its end reads for itself.
    const earlier = [...this.reading.values()].find((r) => comparePositions(r.after, after) < 0);
    if (earlier) {
      await earlier.events.catch(() => undefined);
      const then = this.kept(after, maxCount);
      if (then) return then;
    }
    return this.readStore(after, maxCount, key);
  }

  private readStore(after: Position, maxCount: number, key: string): Promise<RecordedEvent[]> {
    const running = this.reading.get(key);
    if (running) return running.events;
    const events = this.store.readAll({ after, maxCount }).finally(() => this.reading.delete(key));
    events.then((e) => this.keep(after, e)).catch(() => undefined);
    this.reading.set(key, { after, events });
    return events;
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
