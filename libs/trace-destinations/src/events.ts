/**
 * Trace destinations (Larder's own design: no upstream schema exists, docs/api.md "Trace destinations").
 * Events carry only non-secret facts and a secret-vault reference (`sec_…`) to the credentials, never
 * the credentials themselves, in clear or sealed.
 */

/** Which finished runs a destination receives. */
export type TraceKind = 'agentic_search' | 'question_answering' | 'chat_completion';
export const TRACE_KINDS: readonly TraceKind[] = ['agentic_search', 'question_answering', 'chat_completion'];

export type TraceDestinationKind = 'langfuse' | 'otlp';
export const TRACE_DESTINATION_KINDS: readonly TraceDestinationKind[] = ['langfuse', 'otlp'];

/** OTLP/HTTP encodings of `ExportTraceServiceRequest`. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';
export const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];

/**
 * Where spans go, without secrets: a Langfuse host (spans go to its OTLP endpoint with basic auth), or
 * an OTLP/HTTP traces endpoint with the names (never the values) of the headers sent to it.
 */
export type TraceTarget =
  | { kind: 'langfuse'; host: string }
  | { kind: 'otlp'; endpoint: string; protocol: OtlpProtocol; headerNames: string[] };

export interface TraceDestinationCreated {
  type: 'TraceDestinationCreated';
  data: {
    destinationId: string;
    organizationId: string;
    name: string;
    target: TraceTarget;
    enabled: boolean;
    traceKinds: TraceKind[];
    /** The credentials in the secret vault (Langfuse key pair, OTLP header values); null: none (an OTLP endpoint without headers). */
    credentialsRef: string | null;
    credentialsVersion: number;
    createdAt: string;
  };
}

/** Only what changed; a new `credentialsRef` (and version) is a rotation. */
export interface TraceDestinationUpdated {
  type: 'TraceDestinationUpdated';
  data: {
    destinationId: string;
    name?: string;
    enabled?: boolean;
    traceKinds?: TraceKind[];
    target?: TraceTarget;
    credentialsRef?: string | null;
    credentialsVersion?: number;
    updatedAt: string;
  };
}

export interface TraceDestinationDeleted {
  type: 'TraceDestinationDeleted';
  data: { destinationId: string; deletedAt: string };
}

export type TraceDestinationEvent = TraceDestinationCreated | TraceDestinationUpdated | TraceDestinationDeleted;
export const TRACE_DESTINATION_EVENT_TYPES = [
  'TraceDestinationCreated',
  'TraceDestinationUpdated',
  'TraceDestinationDeleted',
] as const;
export const isTraceDestinationEvent = (e: { type: string }): e is TraceDestinationEvent =>
  (TRACE_DESTINATION_EVENT_TYPES as readonly string[]).includes(e.type);
