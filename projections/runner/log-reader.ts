import { Position, RecordedEvent } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';

/**
 * Reads of the same batch by loops at the same position share one query: a nudge wakes every loop
 * at the head at once, and each would otherwise read (and decode) the same new events. Batches are
 * read-only to the loops.
 */
export class SharedLogReader {
  private readonly reading = new Map<string, Promise<RecordedEvent[]>>();

  constructor(private readonly store: EventStore) {}

  read(after: Position, maxCount: number): Promise<RecordedEvent[]> {
    const key = `${after.commit}:${after.prepare}:${maxCount}`;
    let r = this.reading.get(key);
    if (!r) {
      r = this.store.readAll({ after, maxCount }).finally(() => this.reading.delete(key));
      this.reading.set(key, r);
    }
    return r;
  }
}
