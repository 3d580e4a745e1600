import { NewEvent, RecordedEvent, WrongExpectedRevisionError } from '@larder/kernel';
import { AppendResult, ExpectedRevision } from './event-store.port';

export function checkExpected(stream: string, expected: ExpectedRevision, current: number | 'no_stream'): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === 'no_stream') ||
    (expected === 'stream_exists' && current !== 'no_stream') ||
    (typeof expected === 'number' && current === expected);
  if (!ok) throw new WrongExpectedRevisionError(stream, expected, current);
}

/**
 * Idempotent append: when every event id of the batch is already stored in that stream, in order, the
 * earlier append's result is returned. A partial overlap is a conflict.
 */
export function sameBatch(stream: string, events: NewEvent[], stored: RecordedEvent[]): AppendResult | null {
  const byId = new Map(stored.map((e) => [e.id, e]));
  const matches = events.map((e) => (e.id ? byId.get(e.id) : undefined));
  if (matches.every((m) => m && m.streamId === stream)) {
    const last = matches.reduce((a, b) => (b!.revision > a!.revision ? b : a))!;
    return { nextRevision: last.revision, position: last.position };
  }
  throw new WrongExpectedRevisionError(stream, 'a batch of new event ids', 'some event ids already exist');
}
