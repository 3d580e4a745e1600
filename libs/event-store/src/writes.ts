import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  Clock,
  Decider,
  EventMetadata,
  ID_GENERATOR,
  IdGenerator,
  Position,
  ProjectionName,
  READ_MODEL_CONSISTENCY,
  ReadModelConsistency,
  settle,
} from '@larder/kernel';
import { EVENT_STORE, EventStore } from './event-store.port';
import { BoundCommandHandler, CommandResult, foldStream, HandleOptions } from './handle-command';

/** A command as a writer hands it over: the write stamps it with the clock (a caller may still name its own `now`). */
export type WithoutClock<T> = T extends unknown ? Omit<T, 'now'> & { now?: Date } : never;

/** A stored decision, and whether the read models it waited for showed it within the bound. */
export type Decided<TState> = CommandResult<TState> & { settled: boolean };

/**
 * What every writer needs, in one injectable: the event store, the clock, ids and the read models'
 * consistency. `run` appends one decision and never waits; `settle` waits afterwards (a late read model
 * marks the response, never fails the write); `fold` reads an aggregate's state from its own stream;
 * `writer` binds a command handler to the read models its writes wait for.
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

  run<TState, TCommand>(
    handler: BoundCommandHandler<TState, TCommand>,
    command: TCommand,
    metadata: EventMetadata,
    options: Pick<HandleOptions<TState>, 'retries' | 'history' | 'held'> = {},
  ): Promise<CommandResult<TState>> {
    return handler(this.store, command, metadata, { ...options, newIds: () => this.ids.uuid() });
  }

  settle(projections: readonly ProjectionName[], position: Position | null): Promise<boolean> {
    return settle(this.consistency, projections, position);
  }

  fold<TState, TCommand, TEvent extends { type: string; data: unknown }>(
    decider: Decider<TState, TCommand, TEvent>,
    stream: string,
  ): Promise<TState> {
    return foldStream(this.store, stream, decider);
  }

  writer<TState, TCommand extends { now: Date }>(
    handler: BoundCommandHandler<TState, TCommand>,
    projections: readonly ProjectionName[],
  ): CommandWriter<TState, TCommand> {
    return new CommandWriter(this, handler, projections);
  }
}

/**
 * The one write sequence, for one bound command handler: run (append with the expected revision,
 * retried on a concurrent write) → settle (wait, bounded, for the named read models) → read (the read
 * model's row once it has caught up, else the decided state). Once the append is stored nothing here
 * turns it into an error: a late or failing read model answers from the decided state, and the
 * response carries the read-lag header.
 */
export class CommandWriter<TState, TCommand extends { now: Date }> {
  constructor(
    private readonly writes: Writes,
    private readonly handler: BoundCommandHandler<TState, TCommand>,
    readonly projections: readonly ProjectionName[],
  ) {}

  /**
   * Appends one decision (never waits). `by` is the actor (the command names the organization) or the
   * full metadata; `history` or `held`, the stream as the caller already holds it (`HandleOptions`).
   */
  run(
    command: WithoutClock<TCommand>,
    by: string | EventMetadata,
    options: Pick<HandleOptions<TState>, 'history' | 'held'> = {},
  ): Promise<CommandResult<TState>> {
    const stamped = { ...command, now: command.now ?? this.writes.now() } as unknown as TCommand;
    const metadata =
      typeof by === 'string'
        ? { orgId: (command as unknown as { organizationId: string }).organizationId, actor: by }
        : by;
    return this.writes.run(this.handler, stamped, metadata, options);
  }

  /** Waits for the read models to reach `position`: false (the response is marked) when they are late. */
  settle(position: Position | null): Promise<boolean> {
    return this.writes.settle(this.projections, position);
  }

  /** run → settle; with `wait: false` it does not wait (`settled` is false), for a caller that waits once for many. */
  async decide(
    command: WithoutClock<TCommand>,
    by: string | EventMetadata,
    wait = true,
    options: Pick<HandleOptions<TState>, 'history' | 'held'> = {},
  ): Promise<Decided<TState>> {
    const result = await this.run(command, by, options);
    return { ...result, settled: wait ? await this.settle(result.position) : false };
  }

  /**
   * The answer after a stored decision: `row()` from the read model once it shows the decision (it
   * settled, or nothing was appended), else — or when that read fails — `fromState` of the decided state.
   */
  async read<TRow>(
    decided: Decided<TState>,
    row: () => Promise<TRow | null | undefined>,
    fromState: (state: TState) => TRow | Promise<TRow>,
  ): Promise<TRow> {
    const found = decided.settled || decided.position === null ? await row().catch(() => null) : null;
    return found ?? fromState(decided.state);
  }

  /** settle → read, for a decision `run` has stored. */
  async answer<TRow>(
    result: CommandResult<TState>,
    row: () => Promise<TRow | null | undefined>,
    fromState: (state: TState) => TRow | Promise<TRow>,
  ): Promise<TRow> {
    return this.read({ ...result, settled: await this.settle(result.position) }, row, fromState);
  }
}
