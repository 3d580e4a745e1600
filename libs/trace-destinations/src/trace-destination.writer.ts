import { Inject, Injectable } from '@nestjs/common';
import { DomainError, NotFoundError, ValidationFailedError, isUuid } from '@larder/kernel';
import { CommandResult, commandHandler, CommandWriter, WithoutClock, Writes } from '@larder/event-store';
import { SECRET_VAULT, SecretVault } from '@larder/secrets';
import { TraceDestinationsReader } from '@larder/projections/trace-destinations/trace-destinations.reader';
import { TraceDestinationCommand, traceDestinationDecider, TraceDestinationState } from './trace-destination.aggregate';
import { traceDestinationStream } from './streams';
import type { TraceTarget } from './events';
import {
  DestinationCheckError,
  TRACE_DESTINATION_CLIENT,
  TraceCredentials,
  TraceDestinationClient,
} from './delivery/destination-client';
import { TRACE_DELIVERIES, TraceDeliveries } from './delivery/trace-deliveries.port';
import { CREDENTIALS_PURPOSE } from './trace-destinations.config';
import { TraceDestinationResponse, toTraceDestinationResponse } from './trace-destination.response';

/** One decider bound to its stream: every write to a trace destination goes through it. */
export const handleTraceDestination = commandHandler(traceDestinationDecider, (c: TraceDestinationCommand) =>
  traceDestinationStream(c.destinationId),
);

/** The destination did not pass its check (it refused the credentials, has no such endpoint, could not be reached): nothing was stored. */
export class DestinationRejectedError extends DomainError {
  readonly status = 400;
  readonly type = 'destination_check_failed';
}

/** Reads and writes credentials in the vault, checks destinations, appends decisions and answers with the destination as stored. */
@Injectable()
export class TraceDestinationWriter {
  private readonly destinations: CommandWriter<TraceDestinationState, TraceDestinationCommand>;

  constructor(
    readonly writes: Writes,
    private readonly reader: TraceDestinationsReader,
    @Inject(SECRET_VAULT) private readonly vault: SecretVault,
    @Inject(TRACE_DELIVERIES) readonly deliveries: TraceDeliveries,
    @Inject(TRACE_DESTINATION_CLIENT) private readonly client: TraceDestinationClient,
  ) {
    this.destinations = writes.writer(handleTraceDestination, ['trace-destinations']);
  }

  /** The destination's decided state from its own stream (NotFound for another organization's). */
  async state(organizationId: string, id: string): Promise<TraceDestinationState> {
    const state = isUuid(id) ? await this.writes.fold(traceDestinationDecider, traceDestinationStream(id)) : null;
    if (!state || state.status !== 'active' || state.organizationId !== organizationId)
      throw new NotFoundError(`Trace destination ${id} not found`);
    return state;
  }

  /**
   * Checks the destination with these credentials before anything is stored: a URL the outbound policy
   * refuses is a 422 at its field; a destination that says no (or cannot be reached) a 400 with why.
   */
  async check(target: TraceTarget, credentials: TraceCredentials): Promise<void> {
    try {
      await this.client.check(target, credentials);
    } catch (err) {
      if (!(err instanceof DestinationCheckError)) throw err;
      if (err.kind === 'refused') {
        const loc = target.kind === 'langfuse' ? ['body', 'langfuse', 'host'] : ['body', 'otlp', 'endpoint'];
        throw new ValidationFailedError([
          { loc, msg: `Larder does not connect there: ${err.message}`, type: 'value_error' },
        ]);
      }
      throw new DestinationRejectedError(
        `The trace destination did not pass its check, so nothing was stored: ${err.message}`,
      );
    }
  }

  /** Seals credentials in the vault; null when there is nothing secret (an OTLP endpoint without headers). */
  async seal(organizationId: string, credentials: TraceCredentials): Promise<string | null> {
    if (credentials.kind === 'otlp' && !Object.keys(credentials.headers).length) return null;
    return this.vault.put(organizationId, CREDENTIALS_PURPOSE, JSON.stringify(credentials));
  }

  /** The stored credentials (none stored: an OTLP endpoint without headers). */
  async unseal(organizationId: string, ref: string | null, kind: TraceTarget['kind']): Promise<TraceCredentials> {
    if (ref === null) {
      if (kind === 'otlp') return { kind: 'otlp', headers: {} };
      throw new Error('a Langfuse destination without stored credentials');
    }
    return JSON.parse(await this.vault.get(organizationId, CREDENTIALS_PURPOSE, ref)) as TraceCredentials;
  }

  /** Forgets a sealed secret (its destination no longer refers to it). */
  discard(organizationId: string, ref: string | null): Promise<void> {
    return ref ? this.vault.remove(organizationId, ref) : Promise.resolve();
  }

  /** Appends a decision; a secret sealed for it is removed again when the append fails. */
  async run(
    command: WithoutClock<TraceDestinationCommand>,
    actor: string,
    sealed: string | null = null,
  ): Promise<CommandResult<TraceDestinationState>> {
    try {
      return await this.destinations.run(command, actor);
    } catch (err) {
      await this.discard(command.organizationId, sealed).catch(() => undefined);
      throw err;
    }
  }

  /** The destination as stored: from the read model once it has caught up, else from the decided state. */
  async respond(
    organizationId: string,
    id: string,
    result: CommandResult<TraceDestinationState>,
  ): Promise<TraceDestinationResponse> {
    const view = await this.destinations.answer(
      result,
      () => this.reader.get(organizationId, id),
      (s) => ({
        id,
        name: s.name,
        target: s.target!,
        enabled: s.enabled,
        traceKinds: s.traceKinds,
        credentialsVersion: s.credentialsVersion,
        credentialsUpdatedAt: new Date(s.credentialsUpdatedAt ?? 0),
        createdAt: new Date(s.createdAt ?? 0),
        updatedAt: new Date(s.updatedAt ?? s.createdAt ?? 0),
      }),
    );
    const outcome = (await this.deliveries.outcomes([id])).get(id)!;
    return toTraceDestinationResponse(view, outcome);
  }
}
