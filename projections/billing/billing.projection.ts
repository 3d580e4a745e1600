import { EntityManager } from 'typeorm';
import { RecordedEvent, uuidFrom, domainEvent } from '@larder/kernel';
import { StoreEvent, StoreFileEvent } from '@larder/stores/events';
import { SearchActivityEvent } from '@larder/search/events';
import { Projection } from '../runner/projection';
import { BILLING_FREE_TABLE as F, BILLING_STORAGE_TABLE as S, BILLING_USAGE_TABLE as U } from './billing.tables';

/** Usage rows per INSERT statement (6 parameters each). */
const ROWS_PER_INSERT = 500;

/**
 * `billing`: meters activity. Usage records (tokens ingested and parsed, searches, greps, …) keyed by
 * their source event, and storage intervals (bytes held by a store file from its addition to its
 * removal), from which the billing reader prices any period exactly.
 */
export class BillingProjection implements Projection {
  readonly name = 'billing';
  readonly version = 1;
  readonly tables = [U, S, F];
  readonly handles = [
    'StoreFileAdded',
    'StoreFileRemoved',
    'StoreDeleted',
    'StoreFileIngested',
    'StoreFileReingestionRequested',
    'StoreSearchPerformed',
    'StoreGrepPerformed',
    'StoreAgenticSearchPerformed',
    'StoreQuestionAnswered',
    'ChatCompletionCreated',
    'EmbeddingsCreated',
    'DocumentsReranked',
  ];

  async setup(m: EntityManager): Promise<void> {
    await m.query(`CREATE TABLE IF NOT EXISTS ${U} (
      id uuid PRIMARY KEY, organization_id uuid NOT NULL, store_id uuid, metric text NOT NULL, quantity bigint NOT NULL, at timestamptz NOT NULL)`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${U}_org_at ON ${U} (organization_id, at)`);
    await m.query(`CREATE TABLE IF NOT EXISTS ${S} (
      store_id uuid NOT NULL, file_id uuid NOT NULL, generation int NOT NULL, organization_id uuid NOT NULL, bytes bigint NOT NULL,
      from_at timestamptz NOT NULL, to_at timestamptz, PRIMARY KEY (store_id, file_id, generation))`);
    await m.query(`CREATE INDEX IF NOT EXISTS ${S}_org ON ${S} (organization_id, from_at)`);
    await m.query(
      `CREATE TABLE IF NOT EXISTS ${F} (store_id uuid NOT NULL, file_id uuid NOT NULL, generation int NOT NULL, PRIMARY KEY (store_id, file_id, generation))`,
    );
  }

  /** Queues a usage row in `rows` (the batch's, written together at its end). */
  private usage(
    rows: unknown[][],
    event: RecordedEvent,
    storeId: string | null,
    metric: string,
    quantity: number,
    at: string,
  ): void {
    if (!quantity) return;
    rows.push([
      uuidFrom(`billing:${event.id}:${storeId ?? ''}:${metric}`),
      event.metadata.orgId,
      storeId,
      metric,
      quantity,
      at,
    ]);
  }

  private async insertUsage(m: EntityManager, rows: unknown[][]): Promise<void> {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const params: unknown[] = [];
      const values = rows.slice(i, i + ROWS_PER_INSERT).map((r) => {
        const n = params.push(...r);
        return `($${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
      });
      await m.query(
        `INSERT INTO ${U} (id, organization_id, store_id, metric, quantity, at) VALUES ${values.join(', ')} ON CONFLICT (id) DO NOTHING`,
        params,
      );
    }
  }

  /**
   * The batch's events in order, with its usage rows (one per search, the bulk under load) inserted
   * together at the end: nothing in the batch reads them, so the rows are those of `apply` one by one.
   */
  async applyBatch(events: RecordedEvent[], m: EntityManager): Promise<void> {
    const rows: unknown[][] = [];
    for (let i = 0; i < events.length;) {
      const run = runOf(events, i);
      if (run[0].type === 'StoreFileAdded') await this.addAll(run, m);
      else if (run[0].type === 'StoreFileIngested') await this.ingestedAll(run, m, rows);
      else await this.applyOne(events[i], m, rows);
      i += run.length;
    }
    await this.insertUsage(m, rows);
  }

  /**
   * A run of `StoreFileAdded` of distinct files (one or more): each file's earlier generations closed and
   * its new interval opened, in two statements for the run (the rows of the events applied one by one: no
   * row of one file is touched for another).
   */
  private async addAll(run: RecordedEvent[], m: EntityManager): Promise<void> {
    const added = run.map((e) => domainEvent<StoreFileEvent>(e).data as StoreFileAddedData);
    const closing: unknown[] = added.flatMap((d) => [d.storeId, d.fileId, d.at, d.generation]);
    await m.query(
      `UPDATE ${S} SET to_at = v.at FROM (VALUES ${tuples(added.length, ['uuid', 'uuid', 'timestamptz', 'int'])}) AS v(store_id, file_id, at, generation)
        WHERE ${S}.store_id = v.store_id AND ${S}.file_id = v.file_id AND ${S}.to_at IS NULL AND ${S}.generation < v.generation`,
      closing,
    );
    const opening: unknown[] = added.flatMap((d) => [
      d.storeId,
      d.fileId,
      d.generation,
      d.organizationId,
      d.bytes,
      d.at,
    ]);
    await m.query(
      `INSERT INTO ${S} (store_id, file_id, generation, organization_id, bytes, from_at)
        VALUES ${tuples(added.length, ['uuid', 'uuid', 'int', 'uuid', 'bigint', 'timestamptz'])} ON CONFLICT DO NOTHING`,
      opening,
    );
  }

  /** A run of `StoreFileIngested` of distinct files: which are free (re-ingestion) looked up in one statement, the others metered. */
  private async ingestedAll(run: RecordedEvent[], m: EntityManager, usage: unknown[][]): Promise<void> {
    const ingested = run.map((e) => domainEvent<StoreFileEvent>(e).data as StoreFileIngestedData);
    const free: Array<{ store_id: string; file_id: string; generation: number }> = await m.query(
      `SELECT f.store_id, f.file_id, f.generation FROM ${F} f
        JOIN (VALUES ${tuples(ingested.length, ['uuid', 'uuid', 'int'])}) AS v(store_id, file_id, generation)
          ON f.store_id = v.store_id AND f.file_id = v.file_id AND f.generation = v.generation`,
      ingested.flatMap((d) => [d.storeId, d.fileId, d.generation]),
    );
    const isFree = new Set(free.map((r) => `${r.store_id}/${r.file_id}/${Number(r.generation)}`));
    run.forEach((event, k) => {
      const d = ingested[k];
      if (isFree.has(`${d.storeId}/${d.fileId}/${d.generation}`)) return;
      this.usage(usage, event, d.storeId, 'ingestion_tokens', d.usageTokens, d.at);
      if (d.mode === 'high_quality') this.usage(usage, event, d.storeId, 'parsing_tokens', d.usageTokens, d.at);
    });
  }

  async apply(event: RecordedEvent, m: EntityManager): Promise<void> {
    await this.applyBatch([event], m);
  }

  private async applyOne(event: RecordedEvent, m: EntityManager, usage: unknown[][]): Promise<void> {
    const e = domainEvent<StoreFileEvent | StoreEvent | SearchActivityEvent>(event);
    switch (e.type) {
      case 'StoreFileRemoved':
        // only intervals that began before the removal: re-applying the log never closes a later re-add's interval
        await m.query(
          `UPDATE ${S} SET to_at = $3 WHERE store_id = $1 AND file_id = $2 AND to_at IS NULL AND from_at <= $3`,
          [e.data.storeId, e.data.fileId, e.data.at],
        );
        return;
      case 'StoreDeleted':
        await m.query(`UPDATE ${S} SET to_at = $2 WHERE store_id = $1 AND to_at IS NULL AND from_at <= $2`, [
          e.data.storeId,
          e.data.at,
        ]);
        return;
      case 'StoreFileReingestionRequested':
        if (!e.data.billable)
          await m.query(`INSERT INTO ${F} VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
            e.data.storeId,
            e.data.fileId,
            e.data.generation,
          ]);
        return;
      case 'StoreSearchPerformed':
      case 'StoreGrepPerformed':
        // a request over several stores counts once for each store it searched; a chat completion's tool call at the agent rate
        for (const s of e.data.storeIds)
          this.usage(
            usage,
            event,
            s,
            e.data.toolCall ? 'agent_tool_calls' : e.type === 'StoreSearchPerformed' ? 'searches' : 'greps',
            1,
            e.data.at,
          );
        // a query the model rewrote first: its tokens, once per request (on its first store)
        if (e.type === 'StoreSearchPerformed' && e.data.tokenUsage) {
          this.usage(
            usage,
            event,
            e.data.storeIds[0] ?? null,
            'model_prompt_tokens',
            e.data.tokenUsage.prompt_tokens,
            e.data.at,
          );
          this.usage(
            usage,
            event,
            e.data.storeIds[0] ?? null,
            'model_completion_tokens',
            e.data.tokenUsage.completion_tokens,
            e.data.at,
          );
        }
        return;
      case 'ChatCompletionCreated': {
        // once per request (on the first store a hosted tool touched, if any), and the model's tokens
        const d = e.data;
        const store = d.storeIds[0] ?? null;
        this.usage(usage, event, store, 'completions', 1, d.at);
        this.usage(usage, event, store, 'model_prompt_tokens', d.tokenUsage.prompt_tokens, d.at);
        this.usage(usage, event, store, 'model_completion_tokens', d.tokenUsage.completion_tokens, d.at);
        return;
      }
      case 'EmbeddingsCreated':
        // no store: an organization-level product
        this.usage(usage, event, null, 'embedding_tokens', e.data.tokenUsage.prompt_tokens, e.data.at);
        return;
      case 'DocumentsReranked':
        this.usage(usage, event, null, 'rerank_tokens', e.data.tokenUsage.prompt_tokens, e.data.at);
        return;
      case 'StoreAgenticSearchPerformed':
      case 'StoreQuestionAnswered': {
        const d = e.data;
        for (const s of d.storeIds)
          this.usage(usage, event, s, e.type === 'StoreAgenticSearchPerformed' ? 'agentic_searches' : 'qa', 1, d.at);
        // the model's tokens, once per request (on its first store)
        this.usage(usage, event, d.storeIds[0] ?? null, 'model_prompt_tokens', d.tokenUsage.prompt_tokens, d.at);
        this.usage(
          usage,
          event,
          d.storeIds[0] ?? null,
          'model_completion_tokens',
          d.tokenUsage.completion_tokens,
          d.at,
        );
        return;
      }
      default:
        return;
    }
  }
}

type StoreFileAddedData = Extract<StoreFileEvent, { type: 'StoreFileAdded' }>['data'];
type StoreFileIngestedData = Extract<StoreFileEvent, { type: 'StoreFileIngested' }>['data'];

/** Most events in one run: a run's statements take up to 6 parameters an event. */
const MAX_RUN = 1000;

/**
 * The events from `i` on that go together: of one type (`StoreFileAdded` or `StoreFileIngested`), of
 * distinct files (a file seen twice ends the run, so the second sees what the first wrote); any other
 * event is a run of its own.
 */
function runOf(events: RecordedEvent[], i: number): RecordedEvent[] {
  const type = events[i].type;
  if (type !== 'StoreFileAdded' && type !== 'StoreFileIngested') return [events[i]];
  const files = new Set<string>();
  let j = i;
  for (; j < events.length && j - i < MAX_RUN && events[j].type === type; j++) {
    const d = events[j].data as { storeId: string; fileId: string };
    const key = `${d.storeId}/${d.fileId}`;
    if (files.has(key)) break;
    files.add(key);
  }
  return events.slice(i, j);
}

/** `n` VALUES tuples of parameters with these types, numbered from $1. */
function tuples(n: number, types: readonly string[]): string {
  return Array.from(
    { length: n },
    (_, r) => `(${types.map((t, c) => `$${r * types.length + c + 1}::${t}`).join(', ')})`,
  ).join(', ');
}
