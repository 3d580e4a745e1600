import type { DeliveryRetry } from './delivery/trace-deliveries.port';

/** How trace export runs (docs/configuration.md: LARDER_TRACE_EXPORT_*). */
export interface TraceExportConfig {
  /** Whether this process runs the delivery loop (where reactors run). */
  runWorker: boolean;
  /** One exchange with a destination (its check, or one export), redirects included. */
  timeoutMs: number;
  /** How often the delivery loop looks for due deliveries when nothing wakes it. */
  pollMs: number;
  /** Destinations sent to at once (one request each). */
  concurrency: number;
  /** Runs per export request. */
  batchSize: number;
  retry: DeliveryRetry;
  /** `service.version` of the exported resource. */
  serviceVersion: string;
}
export const TRACE_EXPORT_CONFIG = Symbol('TRACE_EXPORT_CONFIG');

/** The purpose the vault seals destination credentials under (bound into the ciphertext). */
export const CREDENTIALS_PURPOSE = 'trace_destination';
