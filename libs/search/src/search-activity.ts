import { randomUUID } from 'crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, LIMITS, Principal, eventBytes } from '@larder/kernel';
import { EVENT_STORE, EventStore, appendIsolating } from '@larder/event-store';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import { RecordedResult, SearchActivityCommon, SearchActivityEvent } from './events';
import { searchActivityStream } from './streams';
import { ActivityJournal, JournalRecord } from './activity-journal';
import { SEARCH_CONFIG, SearchConfig } from './search.config';
import type { RankedChunk } from './retrieval';
import type { CommonParams } from './store-query.request.dto';

/** Characters of a file name a recorded result keeps (the response has the whole name). */
export const RECORDED_FILENAME_CHARS = 256;

/** The first `n` characters of `s`, never ending in half a surrogate pair. */
const cut = (s: string, n: number) => (s.length <= n ? s : s.slice(0, /[\ud800-\udbff]/.test(s[n - 1]) ? n - 1 : n));

/** A returned chunk as its event records it (`RecordedResult`; `storeIds`: the event's stores). */
const recordedResult = (c: RankedChunk, storeIds: string[]): RecordedResult => {
  const store = storeIds.indexOf(c.storeId);
  return [
    store >= 0 ? store : c.storeId,
    c.fileId,
    cut(c.filename, RECORDED_FILENAME_CHARS),
    c.chunkIndex,
    c.score,
    c.firstStagePosition ?? null,
    c.firstStageSource ?? null,
  ];
};

/** Results an activity event records of one search (the response still has all of them). */
export const RECORDED_RESULTS = 100;

/** The flush waits for this long without a new event (a pause in the searches)... */
export const FLUSH_IDLE_MS = 100;
/** ...but never longer than this after the oldest queued event... */
export const FLUSH_MAX_DELAY_MS = 1000;
/** ...nor once this many events are queued. */
export const FLUSH_MAX_QUEUED = 1000;

/**
 * Appends search and grep activity events off the request's critical path: a request queues its
 * event and answers; a background flush appends queued events per organization in batches. On the
 * embedded default an append, and the projections and reactors it wakes (activity, billing, the
 * activity stream, every loop's checkpoint), run in the single-threaded embedded database on the
 * event loop, stalling whatever search is in flight. So the flush waits for a pause in the searches
 * (none under way, and none ended or recorded for `FLUSH_IDLE_MS`), at most `FLUSH_MAX_DELAY_MS` after the oldest queued event
 * or until `FLUSH_MAX_QUEUED` are queued: a steady stream of searches costs one append (and one round
 * of projection work) a second instead of one every 100 ms. A clean shutdown flushes
 * everything that was queued; with a journal (`activityJournalDir`), a record is also written to the
 * process's journal before its request is answered, so a crash loses none: the next start appends what
 * the process that died had not stored.
 */
@Injectable()
export class SearchActivity implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SearchActivity');
  private queue: JournalRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  /** When the oldest queued event was queued, and when the last event was queued or search ended (performance.now()). */
  private oldestAt = 0;
  private newestAt = 0;
  /** Searches under way (`searching`): the flush waits for them too. */
  private inFlight = 0;

  /** Where queued records are kept until they are stored (null: in memory only). */
  private readonly journal: ActivityJournal | null;
  /** Segments whose flush failed: appended again by the next flush. */
  private unstored: string[] = [];

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    @Optional() @Inject(SEARCH_CONFIG) config?: SearchConfig | null,
  ) {
    this.journal = config?.activityJournalDir ? new ActivityJournal(config.activityJournalDir) : null;
  }

  /** The records of processes that ended before they stored them (a crash) are appended now, in the background. */
  onApplicationBootstrap(): void {
    if (!this.journal) return;
    const left = this.journal.leftovers();
    if (left.length) void this.storeSegments(left);
  }

  /** Appends journaled segments (ids make a repeat a no-op) and removes each once stored; answers those that failed. */
  private async storeSegments(paths: string[]): Promise<string[]> {
    const failed: string[] = [];
    for (const path of paths) {
      const records = ActivityJournal.read(path);
      if (await this.append(records)) this.journal!.remove(path);
      else failed.push(path);
    }
    const n = paths.length - failed.length;
    if (n) this.logger.log(`stored the request records of ${n} journal segment(s) left unstored`);
    return failed;
  }

  /** The fields every search activity event has: who asked, over which stores, what came back, how fast (since `t0`). */
  common(
    p: Principal,
    stores: StoreRef[],
    params: Pick<CommonParams, 'rawFilters' | 'topK'>,
    results: RankedChunk[],
    t0: number,
  ): SearchActivityCommon {
    const storeIds = stores.map((s) => s.id);
    return {
      searchId: this.ids.uuid(),
      organizationId: p.organizationId,
      apiKeyId: p.apiKeyId,
      storeIds,
      filters: params.rawFilters,
      topK: params.topK,
      // the first 100 results: with the query and filters within their limits the event stays within LIMITS.eventBytes
      results: results.slice(0, RECORDED_RESULTS).map((c) => recordedResult(c, storeIds)),
      searchTimeMs: performance.now() - t0,
      at: this.clock.now().toISOString(),
      // a chat completion's tool call (hosted, or a redeemed ticket): linked and billed at the agent rate
      ...(p.toolCall ? { toolCall: p.toolCall } : {}),
    };
  }

  /**
   * Queues a request's record. A record never fails the request it records: one over the event size
   * limit is cut down (`withinEventSize`) first.
   */
  record(organizationId: string, event: SearchActivityEvent): void {
    const id = randomUUID();
    let record: JournalRecord = { organizationId, event: { id, type: event.type, data: event.data } };
    let line = JSON.stringify(record);
    // a UTF-16 unit is at most 3 bytes and the metadata (`orgId`, `actor`) far below 1 KiB: most records
    // are within the limit without measuring them
    if (line.length * 3 + 1024 > LIMITS.eventBytes) {
      event = withinEventSize(event, this.logger);
      record = { organizationId, event: { id, type: event.type, data: event.data } };
      line = JSON.stringify(record);
    }
    try {
      this.journal?.write(line);
    } catch (err) {
      this.logger.warn(`could not journal a ${event.type} record: ${(err as Error).message}`);
    }
    const now = performance.now();
    if (!this.queue.length) this.oldestAt = now;
    this.newestAt = now;
    this.queue.push(record);
    if (this.queue.length === FLUSH_MAX_QUEUED) {
      void this.flush();
      return;
    }
    if (!this.timer) this.arm(FLUSH_IDLE_MS);
  }

  /**
   * A search began; call what this returns when it ends (answered or failed). While searches are
   * under way, and for FLUSH_IDLE_MS after the last one ended, the flush waits (FLUSH_MAX_DELAY_MS at most).
   */
  searching(): () => void {
    this.inFlight++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.newestAt = performance.now();
    };
  }

  /** Searches under way in this process now. */
  get searchesInFlight(): number {
    return this.inFlight;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.due(), Math.max(1, ms));
    this.timer.unref();
  }

  /** Flushes once the searches pause or the oldest event has waited long enough; else waits on. */
  private due(): void {
    this.timer = null;
    if (!this.queue.length) return;
    const now = performance.now();
    const idle = this.inFlight > 0 ? FLUSH_IDLE_MS : FLUSH_IDLE_MS - (now - this.newestAt);
    const left = FLUSH_MAX_DELAY_MS - (now - this.oldestAt);
    if (idle > 0 && left > 0) this.arm(Math.min(idle, left));
    else void this.flush();
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.flushing) await this.flushing;
    const batch = this.queue;
    this.queue = [];
    const segment = this.journal?.rotate() ?? null;
    if (!batch.length && !this.unstored.length) return;
    this.flushing = (async () => {
      const stored = await this.append(batch);
      if (segment && stored) this.journal!.remove(segment);
      else if (segment) this.unstored.push(segment);
      // a segment an earlier flush could not store is tried again (its records keep their ids)
      if (stored && this.unstored.length) {
        const again = this.unstored;
        this.unstored = [];
        this.unstored.push(...(await this.storeSegments(again)));
      }
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  /** Appends records per organization (a refused record is quarantined alone); false when the store could not be reached. */
  private async append(records: JournalRecord[]): Promise<boolean> {
    const byOrg = new Map<string, JournalRecord['event'][]>();
    for (const { organizationId, event } of records) {
      const events = byOrg.get(organizationId);
      if (events) events.push(event);
      else byOrg.set(organizationId, [event]);
    }
    let ok = true;
    for (const [org, events] of byOrg) {
      try {
        await appendIsolating(
          this.store,
          searchActivityStream(org),
          events.map((e) => ({
            id: e.id,
            type: e.type,
            data: e.data,
            metadata: { orgId: org, actor: String(e.data.apiKeyId) },
          })),
          this.logger,
          () => this.clock.now(),
        );
      } catch (err) {
        ok = false;
        this.logger.warn(`could not record ${events.length} search activity events: ${(err as Error).message}`);
      }
    }
    return ok;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.flush();
  }
}

/**
 * A record within LIMITS.eventBytes: the recorded results and tool calls are halved until it fits (the
 * counts and usage it is billed by stay). One that still does not fit is queued as it is: its append
 * quarantines it alone.
 */
export function withinEventSize(
  event: SearchActivityEvent,
  logger: { warn(message: string): void },
): SearchActivityEvent {
  const size = (e: SearchActivityEvent) =>
    eventBytes({ data: e.data, metadata: { orgId: e.data.organizationId, actor: e.data.apiKeyId } });
  let e = event;
  while (size(e) > LIMITS.eventBytes) {
    const d = e.data as { results?: unknown[]; toolCalls?: unknown[] };
    const results = d.results?.length ?? 0;
    const calls = d.toolCalls?.length ?? 0;
    if (!results && !calls) {
      logger.warn(
        `a ${e.type} record is ${size(e)} bytes without results or tool calls; it is kept aside when appended`,
      );
      return e;
    }
    const data = { ...e.data } as Record<string, unknown>;
    if (results >= calls) data.results = d.results!.slice(0, Math.floor(results / 2));
    else data.toolCalls = d.toolCalls!.slice(0, Math.floor(calls / 2));
    e = { ...e, data } as SearchActivityEvent;
  }
  return e;
}
