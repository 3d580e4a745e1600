import type { TraceKind, TraceTarget } from './events';
import type { DeliveryOutcome } from './delivery/trace-deliveries.port';

/**
 * `TraceDestination` (Larder's own shape, not upstream: docs/api.md "Trace destinations"). Credentials are
 * write-only: no response carries a key or a header value, only header names and the credentials'
 * version.
 */
export interface TraceDestinationResponse {
  id: string;
  object: 'trace_destination';
  name: string;
  kind: TraceTarget['kind'];
  enabled: boolean;
  trace_kinds: TraceKind[];
  langfuse: { host: string } | null;
  otlp: { endpoint: string; protocol: string; header_names: string[] } | null;
  credentials: { version: number; updated_at: string };
  delivery: {
    /** `idle` (nothing sent yet), `delivering` (the last attempt succeeded), `failing` (the last attempt failed; retrying), `disabled`. */
    status: 'idle' | 'delivering' | 'failing' | 'disabled';
    last_attempt_at: string | null;
    last_success_at: string | null;
    last_failure_at: string | null;
    /** Why the last failed attempt failed. */
    last_error: string | null;
    consecutive_failures: number;
    pending: number;
    delivered: number;
    dropped: number;
  };
  created_at: string;
  updated_at: string;
}

export interface TraceDestinationView {
  id: string;
  name: string;
  target: TraceTarget;
  enabled: boolean;
  traceKinds: TraceKind[];
  credentialsVersion: number;
  credentialsUpdatedAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toTraceDestinationResponse(v: TraceDestinationView, o: DeliveryOutcome): TraceDestinationResponse {
  const t = v.target;
  return {
    id: v.id,
    object: 'trace_destination',
    name: v.name,
    kind: t.kind,
    enabled: v.enabled,
    trace_kinds: v.traceKinds,
    langfuse: t.kind === 'langfuse' ? { host: t.host } : null,
    otlp: t.kind === 'otlp' ? { endpoint: t.endpoint, protocol: t.protocol, header_names: t.headerNames } : null,
    credentials: { version: v.credentialsVersion, updated_at: v.credentialsUpdatedAt.toISOString() },
    delivery: {
      status: !v.enabled ? 'disabled' : o.consecutiveFailures > 0 ? 'failing' : o.lastSuccessAt ? 'delivering' : 'idle',
      last_attempt_at: iso(o.lastAttemptAt),
      last_success_at: iso(o.lastSuccessAt),
      last_failure_at: iso(o.lastFailureAt),
      last_error: o.lastError,
      consecutive_failures: o.consecutiveFailures,
      pending: o.pending,
      delivered: o.delivered,
      dropped: o.dropped,
    },
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
  };
}
