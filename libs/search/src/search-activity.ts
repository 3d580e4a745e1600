import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { streamName } from '@larder/kernel';
import { EVENT_STORE, EventStore } from '@larder/event-store';
import { SearchActivityEvent } from './events';

/**
 * Appends search and grep activity events off the request's critical path: a request queues its
 * event and answers; a background flush appends queued events per organization in batches. A clean
 * shutdown flushes everything that was queued. (A crash may lose the events of the last ~100 ms of
 * searches: they are activity records, never acknowledged to anyone.)
 */
@Injectable()
export class SearchActivity implements OnApplicationShutdown {
  private readonly logger = new Logger('SearchActivity');
  private queue: Array<{ organizationId: string; event: SearchActivityEvent }> = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  record(organizationId: string, event: SearchActivityEvent): void {
    this.queue.push({ organizationId, event });
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), 100);
      this.timer.unref();
    }
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.flushing) await this.flushing;
    const batch = this.queue;
    this.queue = [];
    if (!batch.length) return;
    this.flushing = (async () => {
      const byOrg = new Map<string, SearchActivityEvent[]>();
      for (const { organizationId, event } of batch) byOrg.set(organizationId, [...(byOrg.get(organizationId) ?? []), event]);
      for (const [org, events] of byOrg) {
        try {
          await this.store.appendToStream(
            streamName('search_activity', org),
            events.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown>, metadata: { orgId: org, actor: e.data.apiKeyId } })),
            { expectedRevision: 'any' },
          );
        } catch (err) {
          this.logger.warn(`could not record ${events.length} search activity events: ${(err as Error).message}`);
        }
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}
