import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { CLOCK, Clock } from '@larder/kernel';
import { RetryPolicy } from '@larder/outbound';
import { SECRET_VAULT, SecretVault } from '@larder/secrets';
import {
  TraceDestinationRow,
  TraceDestinationsReader,
} from '@larder/projections/trace-destinations/trace-destinations.reader';
import { runSpans } from '../export/run-spans';
import { CREDENTIALS_PURPOSE, TRACE_EXPORT_CONFIG, TraceExportConfig } from '../trace-destinations.config';
import { TRACE_DESTINATION_CLIENT, TraceCredentials, TraceDestinationClient } from './destination-client';
import { DeliveryBackoff, TRACE_DELIVERIES, TraceDeliveries } from './trace-deliveries.port';
import { TRACE_DELIVERY_SIGNAL, TraceDeliverySignal } from './delivery-signal';

/**
 * The delivery loop: finds destinations with due deliveries and sends each its runs as OTLP spans, one
 * request per destination at a time and several destinations at once, so a destination that is slow
 * or down delays only its own deliveries. A failed request is retried with the shared outbound
 * back-off (exponential, jittered, a longer `Retry-After` honoured up to an hour) until the last
 * attempt, then dropped and counted; every attempt's outcome
 * is recorded per destination. Claims are leases: deliveries of a worker that died are sent again
 * (at least once, never lost).
 */
@Injectable()
export class TraceDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TraceExport');
  private readonly active = new Map<string, Promise<void>>();
  private stopped = false;
  private wake: (() => void) | null = null;
  private loopPromise: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    @Inject(TRACE_EXPORT_CONFIG) private readonly config: TraceExportConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TRACE_DELIVERIES) private readonly deliveries: TraceDeliveries,
    @Inject(SECRET_VAULT) private readonly vault: SecretVault,
    @Inject(TRACE_DESTINATION_CLIENT) private readonly client: TraceDestinationClient,
    @Inject(TRACE_DELIVERY_SIGNAL) private readonly signal: TraceDeliverySignal,
    private readonly reader: TraceDestinationsReader,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runWorker) return;
    this.unsubscribe = this.signal.subscribe(() => this.wake?.());
    this.loopPromise = this.loop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake?.();
    await this.loopPromise;
    await Promise.allSettled(this.active.values());
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const free = this.config.concurrency - this.active.size;
        if (free > 0) {
          const due = await this.deliveries.dueDestinations(
            this.clock.now(),
            this.config.concurrency + this.active.size,
          );
          for (const d of due) {
            if (this.active.size >= this.config.concurrency) break;
            if (!this.active.has(d.destinationId)) this.start(d.destinationId, d.organizationId);
          }
        }
      } catch (err) {
        if (!this.stopped) this.logger.warn(`looking for due trace deliveries failed: ${(err as Error).message}`);
      }
      if (this.stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.config.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private start(destinationId: string, organizationId: string): void {
    const run = this.deliver(destinationId, organizationId)
      .catch((err: Error) =>
        this.logger.error(
          `trace delivery to destination ${destinationId} failed unexpectedly: ${err.message}`,
          err.stack,
        ),
      )
      .finally(() => {
        this.active.delete(destinationId);
        this.wake?.();
      });
    this.active.set(destinationId, run);
  }

  /** One export request to one destination: its oldest due runs, claimed under a lease. */
  private async deliver(destinationId: string, organizationId: string): Promise<void> {
    const destination = await this.reader.get(organizationId, destinationId);
    if (!destination || !destination.enabled) {
      // deleted or disabled: its queued runs are not sent
      await this.deliveries.discard(destinationId);
      return;
    }
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + 4 * this.config.timeoutMs + 30_000);
    const claimed = await this.deliveries.claim(destinationId, now, this.config.batchSize, leaseUntil);
    if (!claimed.length) return;
    const unwanted = claimed.filter((c) => !destination.traceKinds.includes(c.traceKind));
    if (unwanted.length)
      await this.deliveries.discard(
        destinationId,
        unwanted.map((c) => c.sourceEventId),
      );
    // loaded with the first delivery, not at start
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
    const resource = resourceFromAttributes({
      [ATTR_SERVICE_NAME]: 'larder',
      [ATTR_SERVICE_VERSION]: this.config.serviceVersion,
      'larder.organization.id': organizationId,
    });
    const spans: ReadableSpan[] = [];
    const sending: string[] = [];
    for (const c of claimed) {
      if (!destination.traceKinds.includes(c.traceKind)) continue;
      try {
        spans.push(...runSpans(c.run, resource));
        sending.push(c.sourceEventId);
      } catch (err) {
        // a run whose record cannot be read as a trace will never be: not retried
        this.logger.warn(
          `run ${c.sourceEventId} (${c.run.type}) cannot be converted to spans (${(err as Error).message}); it is not exported`,
        );
        await this.deliveries.discard(destinationId, [c.sourceEventId]);
      }
    }
    if (!sending.length) return;
    const at = () => this.clock.now();
    let credentials: TraceCredentials;
    try {
      credentials = await this.credentialsOf(destination);
    } catch (err) {
      await this.fail(
        destination,
        sending,
        at(),
        `the stored credentials cannot be opened (${(err as Error).message})`,
        null,
        claimed[0].attempts,
      );
      return;
    }
    const outcome = await this.client.send(destination.target, credentials, spans);
    if (outcome.ok) {
      await this.deliveries.succeeded(destinationId, organizationId, sending, at());
      // more may be due: the loop looks again at once
      this.wake?.();
      return;
    }
    await this.fail(destination, sending, at(), outcome.error, outcome.retryAfterMs, claimed[0].attempts);
  }

  private async credentialsOf(d: TraceDestinationRow): Promise<TraceCredentials> {
    if (d.credentialsRef === null) return { kind: 'otlp', headers: {} };
    return JSON.parse(
      await this.vault.get(d.organizationId, CREDENTIALS_PURPOSE, d.credentialsRef),
    ) as TraceCredentials;
  }

  /** The waits after each failed attempt: the back-off, or the destination's `Retry-After` (up to an hour) when that is longer. */
  private backoff(retryAfterMs: number | null): DeliveryBackoff {
    const { maxAttempts, baseMs, maxMs } = this.config.retry;
    const policy = new RetryPolicy({
      maxRetries: maxAttempts - 1,
      baseMs,
      maxDelayMs: maxMs,
      maxRetryAfterMs: 3_600_000,
    });
    const delaysMs = Array.from({ length: Math.max(1, maxAttempts) }, (_, n) =>
      Math.max(policy.delayMs(n), retryAfterMs === null ? 0 : policy.delayMs(n, retryAfterMs)),
    );
    return { maxAttempts, delaysMs };
  }

  private async fail(
    d: TraceDestinationRow,
    ids: string[],
    at: Date,
    error: string,
    retryAfterMs: number | null,
    attempts: number,
  ): Promise<void> {
    const { dropped } = await this.deliveries.failed(
      d.id,
      d.organizationId,
      ids,
      at,
      error,
      this.backoff(retryAfterMs),
    );
    const attempt = attempts + 1;
    // the first failure and then attempts 2, 4, 8, … (the error is the destination's answer, credentials cut out)
    if ((attempt & (attempt - 1)) === 0 || dropped) {
      this.logger.warn(
        `trace delivery of ${ids.length} run${ids.length === 1 ? '' : 's'} to destination ${d.id} failed (attempt ${attempt}): ${error}${dropped ? `; ${dropped} dropped after the last attempt` : '; retrying with back-off'}`,
      );
    }
  }
}
