import { ConflictError, Decider, NotFoundError, ValidationFailedError } from '@larder/kernel';
import { TraceDestinationEvent, TraceKind, TraceTarget } from './events';

export interface TraceDestinationState {
  status: 'absent' | 'active' | 'deleted';
  organizationId: string | null;
  name: string;
  target: TraceTarget | null;
  enabled: boolean;
  traceKinds: TraceKind[];
  credentialsRef: string | null;
  credentialsVersion: number;
  credentialsUpdatedAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export type TraceDestinationCommand =
  | {
      type: 'CreateTraceDestination';
      destinationId: string;
      organizationId: string;
      name: string;
      target: TraceTarget;
      enabled: boolean;
      traceKinds: TraceKind[];
      credentialsRef: string | null;
      now: Date;
    }
  | {
      type: 'UpdateTraceDestination';
      destinationId: string;
      organizationId: string;
      name?: string;
      enabled?: boolean;
      traceKinds?: TraceKind[];
      target?: TraceTarget;
      /** Supplied credentials (a rotation): their new vault reference, or null for an OTLP endpoint now without headers. */
      credentialsRef?: string | null;
      now: Date;
    }
  | { type: 'DeleteTraceDestination'; destinationId: string; organizationId: string; now: Date };

export const initialTraceDestinationState = (): TraceDestinationState => ({
  status: 'absent',
  organizationId: null,
  name: '',
  target: null,
  enabled: false,
  traceKinds: [],
  credentialsRef: null,
  credentialsVersion: 0,
  credentialsUpdatedAt: null,
  createdAt: null,
  updatedAt: null,
});

/** The URL spans are sent to changes (another host or endpoint): stored credentials must not follow it unasked. */
export function targetMoves(from: TraceTarget, to: TraceTarget): boolean {
  if (from.kind === 'langfuse' && to.kind === 'langfuse') return from.host !== to.host;
  if (from.kind === 'otlp' && to.kind === 'otlp') return from.endpoint !== to.endpoint;
  return true;
}

const sameKinds = (a: TraceKind[], b: TraceKind[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();
const sameTarget = (a: TraceTarget, b: TraceTarget) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Checks an update against the stored destination (also run by the handler before it contacts the
 * destination): the kind never changes, and a new host or endpoint needs the credentials supplied
 * again, so stored secrets are never sent to a URL they were not given for.
 */
export function checkUpdate(
  state: TraceDestinationState,
  target: TraceTarget | undefined,
  credentialsSupplied: boolean,
): void {
  if (!target || !state.target) return;
  if (target.kind !== state.target.kind) {
    throw new ValidationFailedError([
      {
        loc: ['body', 'kind'],
        msg: `The kind of a trace destination cannot change (this one is ${state.target.kind}); create a new destination`,
        type: 'value_error',
      },
    ]);
  }
  if (targetMoves(state.target, target) && !credentialsSupplied && state.credentialsRef !== null) {
    const loc = target.kind === 'langfuse' ? ['body', 'langfuse', 'secret_key'] : ['body', 'otlp', 'headers'];
    const what =
      target.kind === 'langfuse'
        ? 'the host changes: supply public_key and secret_key again'
        : 'the endpoint changes: supply its headers again';
    throw new ValidationFailedError([
      { loc, msg: `Field required: ${what} (stored credentials are never sent to a new address)`, type: 'missing' },
    ]);
  }
}

export const traceDestinationDecider: Decider<TraceDestinationState, TraceDestinationCommand, TraceDestinationEvent> = {
  initialState: initialTraceDestinationState,

  evolve(state, event) {
    switch (event.type) {
      case 'TraceDestinationCreated': {
        const d = event.data;
        return {
          status: 'active',
          organizationId: d.organizationId,
          name: d.name,
          target: d.target,
          enabled: d.enabled,
          traceKinds: d.traceKinds,
          credentialsRef: d.credentialsRef,
          credentialsVersion: d.credentialsVersion,
          credentialsUpdatedAt: d.createdAt,
          createdAt: d.createdAt,
          updatedAt: d.createdAt,
        };
      }
      case 'TraceDestinationUpdated': {
        const d = event.data;
        const rotated = d.credentialsRef !== undefined;
        return {
          ...state,
          name: d.name ?? state.name,
          enabled: d.enabled ?? state.enabled,
          traceKinds: d.traceKinds ?? state.traceKinds,
          target: d.target ?? state.target,
          credentialsRef: rotated ? (d.credentialsRef ?? null) : state.credentialsRef,
          credentialsVersion: d.credentialsVersion ?? state.credentialsVersion,
          credentialsUpdatedAt: rotated ? d.updatedAt : state.credentialsUpdatedAt,
          updatedAt: d.updatedAt,
        };
      }
      case 'TraceDestinationDeleted':
        return { ...state, status: 'deleted', credentialsRef: null };
    }
  },

  decide(command, state) {
    const now = command.now.toISOString();
    if (command.type === 'CreateTraceDestination') {
      if (state.status !== 'absent')
        throw new ConflictError(`Trace destination ${command.destinationId} already exists`);
      return [
        {
          type: 'TraceDestinationCreated',
          data: {
            destinationId: command.destinationId,
            organizationId: command.organizationId,
            name: command.name,
            target: command.target,
            enabled: command.enabled,
            traceKinds: command.traceKinds,
            credentialsRef: command.credentialsRef,
            credentialsVersion: 1,
            createdAt: now,
          },
        },
      ];
    }
    // another organization's destination does not exist for the caller
    if (state.status !== 'active' || state.organizationId !== command.organizationId)
      throw new NotFoundError(`Trace destination ${command.destinationId} not found`);
    if (command.type === 'DeleteTraceDestination')
      return [{ type: 'TraceDestinationDeleted', data: { destinationId: command.destinationId, deletedAt: now } }];

    const rotating = command.credentialsRef !== undefined;
    checkUpdate(state, command.target, rotating);
    const data: TraceDestinationUpdated['data'] = { destinationId: command.destinationId, updatedAt: now };
    if (command.name !== undefined && command.name !== state.name) data.name = command.name;
    if (command.enabled !== undefined && command.enabled !== state.enabled) data.enabled = command.enabled;
    if (command.traceKinds !== undefined && !sameKinds(command.traceKinds, state.traceKinds))
      data.traceKinds = command.traceKinds;
    if (command.target !== undefined && state.target && !sameTarget(command.target, state.target))
      data.target = command.target;
    if (rotating) {
      data.credentialsRef = command.credentialsRef ?? null;
      data.credentialsVersion = state.credentialsVersion + 1;
    }
    if (Object.keys(data).length === 2) return [];
    return [{ type: 'TraceDestinationUpdated', data }];
  },
};

type TraceDestinationUpdated = Extract<TraceDestinationEvent, { type: 'TraceDestinationUpdated' }>;
