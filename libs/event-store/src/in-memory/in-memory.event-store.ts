import { randomUUID } from 'crypto';
import { NewEvent, Position, RecordedEvent, START, comparePositions } from '@larder/kernel';
import {
  AppendResult,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  StreamAppend,
  StreamAppendOutcome,
  SubscribeOptions,
} from '../event-store.port';
import { appendOneByOne } from '../append-groups';
import { Wakeable, pollAll } from '../wait';
import { checkExpected, sameBatch } from '../expected-revision';

/** For unit tests: the whole log in memory, same semantics as the durable adapters. */
export class InMemoryEventStore implements EventStore {
  readonly kind = 'in-memory';
  private log: RecordedEvent[] = [];
  private streams = new Map<string, RecordedEvent[]>();
  private byId = new Map<string, RecordedEvent>();
  private wakeable = new Wakeable();

  async appendToStream(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const existing = this.streams.get(stream) ?? [];
    const ids = events.map((e) => e.id).filter((id): id is string => !!id);
    const already = ids.map((id) => this.byId.get(id)).filter((e): e is RecordedEvent => !!e);
    if (already.length) {
      const found = sameBatch(stream, events, already);
      if (found) return found;
    }
    const current = existing.length ? existing.length - 1 : 'no_stream';
    checkExpected(stream, options.expectedRevision ?? 'any', current);
    let last!: RecordedEvent;
    for (const e of events) {
      const seq = BigInt(this.log.length + 1);
      last = {
        id: e.id ?? randomUUID(),
        type: e.type,
        data: structuredClone(e.data),
        metadata: structuredClone(e.metadata ?? { orgId: '' }),
        streamId: stream,
        revision: existing.length,
        position: { commit: seq, prepare: seq },
        createdAt: new Date(),
      };
      existing.push(last);
      this.log.push(last);
      this.byId.set(last.id, last);
    }
    this.streams.set(stream, existing);
    this.wakeable.wake();
    return { nextRevision: last.revision, position: last.position };
  }

  /** Stream by stream, in order (`appendOneByOne`): each append is stored or refused on its own. */
  appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    return appendOneByOne(this, appends);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const events = this.streams.get(stream) ?? [];
    const max = options.maxCount ?? Number.MAX_SAFE_INTEGER;
    if (options.direction === 'backwards') {
      const from = options.fromRevision ?? events.length - 1;
      return events
        .filter((e) => e.revision <= from)
        .reverse()
        .slice(0, max);
    }
    const from = options.fromRevision ?? 0;
    return events.filter((e) => e.revision >= from).slice(0, max);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    return this.log.filter((e) => comparePositions(e.position, after) > 0).slice(0, options.maxCount ?? 1000);
  }

  async headPosition(): Promise<Position> {
    return this.log.length ? this.log[this.log.length - 1].position : START;
  }

  subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<RecordedEvent> {
    return pollAll(
      (after) => this.readAll({ after, maxCount: 500 }),
      options.after ?? START,
      this.wakeable,
      50,
      options.signal,
    );
  }

  async close(): Promise<void> {
    this.wakeable.wake();
  }
}
