import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock, Decider, EventMetadata, ID_GENERATOR, IdGenerator, Position, ProjectionName, READ_MODEL_CONSISTENCY, ReadModelConsistency, settle } from '@larder/kernel';
import { EVENT_STORE, EventStore } from './event-store.port';
import { BoundCommandHandler, CommandResult, foldStream } from './handle-command';

/**
 * What every writer needs, in one injectable: the event store, the clock, ids and the read models'
 * consistency. `run` appends one decision and never waits; `settle` waits afterwards (a late read model
 * marks the response, never fails the write); `fold` reads an aggregate's state from its own stream.
 */
@Injectable()
export class Writes {
  constructor(
    @Inject(EVENT_STORE) readonly store: EventStore,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(ID_GENERATOR) readonly ids: IdGenerator,
    @Inject(READ_MODEL_CONSISTENCY) readonly consistency: ReadModelConsistency,
  ) {}

  now(): Date {
    return this.clock.now();
  }

  run<TState, TCommand>(handler: BoundCommandHandler<TState, TCommand>, command: TCommand, metadata: EventMetadata, options: { retries?: number } = {}): Promise<CommandResult<TState>> {
    return handler(this.store, command, metadata, { ...options, newIds: () => this.ids.uuid() });
  }

  settle(projections: readonly ProjectionName[], position: Position | null): Promise<boolean> {
    return settle(this.consistency, projections, position);
  }

  fold<TState, TCommand, TEvent extends { type: string; data: unknown }>(decider: Decider<TState, TCommand, TEvent>, stream: string): Promise<TState> {
    return foldStream(this.store, stream, decider);
  }
}
