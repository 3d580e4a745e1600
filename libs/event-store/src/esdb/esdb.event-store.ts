import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as ESDB_START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  AllStreamResolvedEvent,
  ResolvedEvent,
  AppendExpectedRevision,
} from '@eventstore/db-client';
import { randomUUID } from 'crypto';
import {
  NewEvent,
  Position,
  RecordedEvent,
  START,
  comparePositions,
  WrongExpectedRevisionError,
  EventMetadata,
} from '@larder/kernel';
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

/**
 * Event store on EventStoreDB through the official gRPC client. Idempotent appends, optimistic
 * concurrency and the gap-free `$all` order are the server's own guarantees.
 */
export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb';
  constructor(private readonly client: EventStoreDBClient) {}

  static fromConnectionString(url: string): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(url));
  }

  async appendToStream(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const expected = options.expectedRevision ?? 'any';
    const esdbExpected: AppendExpectedRevision =
      expected === 'any'
        ? ANY
        : expected === 'no_stream'
          ? NO_STREAM
          : expected === 'stream_exists'
            ? STREAM_EXISTS
            : BigInt(expected);
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((e) =>
          jsonEvent({
            id: e.id ?? randomUUID(),
            type: e.type,
            data: e.data as never,
            metadata: (e.metadata ?? { orgId: '' }) as never,
          }),
        ),
        { expectedRevision: esdbExpected },
      );
      const pos = result.position ?? { commit: 0n, prepare: 0n };
      return {
        nextRevision: Number(result.nextExpectedRevision),
        position: { commit: pos.commit, prepare: pos.prepare },
      };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = typeof err.actualVersion === 'bigint' ? Number(err.actualVersion) : 'no_stream';
        throw new WrongExpectedRevisionError(stream, expected, actual);
      }
      throw err;
    }
  }

  /** Stream by stream, in order (`appendOneByOne`): each append is stored or refused on its own. */
  appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    return appendOneByOne(this, appends);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision: options.fromRevision !== undefined ? BigInt(options.fromRevision) : backwards ? END : ESDB_START,
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
      })) {
        const e = toRecorded(resolved);
        if (e) out.push(e);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? START;
    const max = options.maxCount ?? 1000;
    const out: RecordedEvent[] = [];
    const fromPosition =
      comparePositions(after, START) === 0 ? ESDB_START : { commit: after.commit, prepare: after.prepare };
    for await (const resolved of this.client.readAll({ fromPosition, direction: FORWARDS, maxCount: max + 1 })) {
      const e = toRecorded(resolved);
      if (!e || e.type.startsWith('$') || comparePositions(e.position, after) <= 0) continue;
      out.push(e);
      if (out.length >= max) break;
    }
    return out;
  }

  async headPosition(): Promise<Position> {
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 50 })) {
      const e = toRecorded(resolved);
      if (e && !e.type.startsWith('$')) return e.position;
    }
    return START;
  }

  async *subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<RecordedEvent> {
    const after = options.after ?? START;
    const sub = this.client.subscribeToAll({
      fromPosition:
        comparePositions(after, START) === 0 ? ESDB_START : { commit: after.commit, prepare: after.prepare },
      filter: excludeSystemEvents(),
    });
    const stop = () => void sub.unsubscribe();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      for await (const resolved of sub) {
        if (options.signal?.aborted) return;
        const e = toRecorded(resolved);
        if (e && comparePositions(e.position, after) > 0) yield e;
      }
    } finally {
      options.signal?.removeEventListener('abort', stop);
      await sub.unsubscribe().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

function toRecorded(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const ev = resolved.event;
  if (!ev || !ev.isJson) return null;
  const pos = ev.position ?? { commit: resolved.commitPosition ?? 0n, prepare: resolved.commitPosition ?? 0n };
  return {
    id: ev.id,
    type: ev.type,
    data: ev.data as Record<string, unknown>,
    metadata: (ev.metadata ?? { orgId: '' }) as EventMetadata,
    streamId: ev.streamId,
    revision: Number(ev.revision),
    position: { commit: pos.commit, prepare: pos.prepare },
    createdAt: ev.created,
  };
}
