import { Decider, EventMetadata, RecordedEvent } from '../events';
import { uuidFrom } from '../ports';

type AnyEvent = { type: string; data: unknown };

/**
 * An in-memory log of recorded events for projection specs: streams get revisions from 0, the log
 * gets global positions, ids are derived from (stream, revision) so two builds of one history are
 * equal. `decide` runs a decider against a stream's history, so the events are the ones production
 * code would append.
 */
export class TestEventLog {
  private readonly log: RecordedEvent[] = [];
  private readonly streams = new Map<string, AnyEvent[]>();

  constructor(private readonly epoch = Date.UTC(2026, 0, 1)) {}

  /** Every event appended so far, in log order. */
  get events(): RecordedEvent[] {
    return [...this.log];
  }

  /** Appends events to a stream as they are (`data` is copied through JSON, as a store would). */
  append(stream: string, metadata: EventMetadata, ...events: AnyEvent[]): RecordedEvent[] {
    const history = this.streams.get(stream) ?? [];
    this.streams.set(stream, history);
    return events.map((e) => {
      const revision = history.length;
      const sequence = BigInt(this.log.length + 1);
      const data = JSON.parse(JSON.stringify(e.data)) as Record<string, unknown>;
      const recorded: RecordedEvent = {
        id: uuidFrom(`test-event:${stream}:${revision}`),
        type: e.type,
        data,
        metadata: { ...metadata },
        streamId: stream,
        revision,
        position: { commit: sequence, prepare: sequence },
        createdAt: new Date(this.epoch + this.log.length * 1000),
      };
      history.push({ type: e.type, data });
      this.log.push(recorded);
      return recorded;
    });
  }

  /** Folds the stream's history, decides the command and appends what it decided. */
  decide<TState, TCommand, TEvent extends AnyEvent>(
    decider: Decider<TState, TCommand, TEvent>,
    stream: string,
    command: TCommand,
    metadata: EventMetadata,
  ): TEvent[] {
    const history = (this.streams.get(stream) ?? []) as TEvent[];
    const state = history.reduce(decider.evolve, decider.initialState());
    const events = decider.decide(command, state);
    this.append(stream, metadata, ...events);
    return events;
  }
}
