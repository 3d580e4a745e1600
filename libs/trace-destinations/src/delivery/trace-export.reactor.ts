import { Clock, RecordedEvent, ReadModelConsistency, comparePositions, domainEvent } from '@larder/kernel';
import type { EventStore } from '@larder/event-store';
import type { SecretVault } from '@larder/secrets';
import type { TraceDestinationRow } from '@larder/projections/trace-destinations/trace-destinations.reader';
import type { TraceDestinationEvent } from '../events';
import { RUN_EVENT_TYPES, finishedRunOf, traceKindOf } from '../export/finished-run';
import type { PendingDelivery, TraceDeliveries } from './trace-deliveries.port';
import type { TraceDeliverySignal } from './delivery-signal';

/**
 * Reactor: every finished agentic search, question answering and chat completion run is queued for
 * each enabled destination of its organization that exports its kind and existed before it (the
 * durable queue of `TraceDeliveries`; the delivery loop sends it). Queuing is idempotent per
 * (destination, run), so a re-run after a crash queues nothing twice; a destination that is down never
 * holds this reactor up (it only writes the queue), let alone the request that recorded the run.
 *
 * It also finishes what a rotation or a deletion leaves behind, durably: superseded credentials are
 * removed from the vault, and a deleted destination's queue and outcome are dropped.
 */
export class TraceExportReactor {
  readonly name = 'trace-export';
  readonly handles = [...RUN_EVENT_TYPES, 'TraceDestinationUpdated', 'TraceDestinationDeleted'];

  constructor(
    private readonly store: EventStore,
    private readonly consistency: Pick<ReadModelConsistency, 'waitFor'>,
    private readonly destinations: { enabledOf(organizationIds: string[]): Promise<TraceDestinationRow[]> },
    private readonly deliveries: TraceDeliveries,
    private readonly vault: Pick<SecretVault, 'remove'>,
    private readonly clock: Clock,
    private readonly signal: TraceDeliverySignal | null = null,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    await this.handleBatch([event]);
  }

  async handleBatch(events: RecordedEvent[]): Promise<void> {
    const runs = events.flatMap((e) => {
      const run = finishedRunOf(e);
      return run ? [{ run, position: e.position }] : [];
    });
    if (runs.length) {
      // the destinations as of these runs at least (one created just before a run receives it)
      await this.consistency.waitFor(['trace-destinations'], runs[runs.length - 1].position);
      const destinations = await this.destinations.enabledOf([...new Set(runs.map((r) => r.run.organizationId))]);
      const items: Array<Omit<PendingDelivery, 'attempts'>> = [];
      for (const { run, position } of runs) {
        const kind = traceKindOf(run);
        for (const d of destinations) {
          if (
            d.organizationId !== run.organizationId ||
            !d.traceKinds.includes(kind) ||
            comparePositions(position, d.createdPosition) <= 0
          )
            continue;
          items.push({
            destinationId: d.id,
            organizationId: run.organizationId,
            sourceEventId: run.eventId,
            traceKind: kind,
            run,
          });
        }
      }
      if (items.length && (await this.deliveries.enqueue(items, this.clock.now())) > 0) this.signal?.notify();
    }
    for (const e of events)
      if (e.type === 'TraceDestinationUpdated' || e.type === 'TraceDestinationDeleted') await this.cleanUp(e);
  }

  /** Removes the credentials no longer in use after this event (idempotent: a removed secret stays removed). */
  private async cleanUp(event: RecordedEvent): Promise<void> {
    const e = domainEvent<TraceDestinationEvent>(event);
    if (e.type === 'TraceDestinationUpdated' && e.data.credentialsRef === undefined) return;
    const history = await this.store.readStream(event.streamId);
    const refs = new Set<string>();
    for (const h of history) {
      if (h.revision >= event.revision && e.type === 'TraceDestinationUpdated') break;
      const d = h.data as { credentialsRef?: string | null };
      if (d.credentialsRef) refs.add(d.credentialsRef);
    }
    if (e.type === 'TraceDestinationUpdated' && e.data.credentialsRef) refs.delete(e.data.credentialsRef);
    for (const ref of refs) await this.vault.remove(event.metadata.orgId, ref);
    if (e.type === 'TraceDestinationDeleted') await this.deliveries.forget(e.data.destinationId);
  }
}
