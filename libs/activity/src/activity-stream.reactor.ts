import { Logger } from '@nestjs/common';
import { isoDuration, NewEvent, RecordedEvent, streamName, uuidFrom } from '@larder/kernel';
import { appendIsolating, EventStore } from '@larder/event-store';
import type { StoreFileIngested } from '@larder/stores/events';
import {
  ChatCompletionCreated,
  DocumentsReranked,
  EmbeddingsCreated,
  publicToolCall,
  SEARCH_ACTIVITY_EVENT_TYPES,
  StoreAgenticSearchPerformed,
  StoreChunksListed,
  StoreGrepPerformed,
  StoreQuestionAnswered,
  StoreSearchPerformed,
} from '@larder/search/events';
import { ActivityKind, ActivityRecorded } from './events';

type Activity = { kind: ActivityKind; storeIds: string[]; at: string; event: Record<string, unknown> };

/** A `search` activity event (`StoreSearchEvent`) of a search, a chunk listing or a facet count. */
function searchActivity(
  d: StoreChunksListed['data'] | StoreSearchPerformed['data'],
  query: string | null,
  rewrittenQuery: string | null,
  rerank: boolean,
): Activity {
  return {
    kind: 'search',
    storeIds: d.storeIds,
    at: d.at,
    event: {
      type: 'search',
      store_ids: d.storeIds,
      search_time: isoDuration(d.searchTimeMs),
      query,
      rewritten_query: rewrittenQuery,
      rewritten_filters: null,
      rewrite_rank_by: null,
      rewrite_rank_direction: null,
      rewrite_rank_mode: null,
      rerank,
      filters: d.filters ?? null,
      results: d.results,
      ...toolCallOf(d),
    },
  };
}

/** A search or grep a chat completion made (hosted tool, or a redeemed tool ticket): the completion and tool call it belongs to. */
const toolCallOf = (d: { toolCall?: { completionId: string; toolCallId: string; via: string } }) =>
  d.toolCall
    ? { completion_id: d.toolCall.completionId, tool_call_id: d.toolCall.toolCallId, tool_call_via: d.toolCall.via }
    : {};

/** An `embedding` or `reranking` activity event: a model call on no store, its own `fields` between the models and the usage. */
function modelCallActivity(
  kind: 'embedding' | 'reranking',
  d: EmbeddingsCreated['data'] | DocumentsReranked['data'],
  fields: Record<string, unknown>,
): Activity {
  return {
    kind,
    storeIds: [],
    at: d.at,
    event: {
      type: kind,
      store_ids: [],
      model: d.model,
      requested_model: d.requestedModel,
      ...fields,
      token_usage: d.tokenUsage,
      duration: isoDuration(d.durationMs),
    },
  };
}

/** The public activity event (without id and created_at) a domain event amounts to, if any. */
export function activityOf(e: RecordedEvent): Activity | null {
  switch (e.type) {
    case 'StoreFileIngested': {
      const d = e.data as unknown as StoreFileIngested['data'];
      return {
        kind: 'ingestion',
        storeIds: [d.storeId],
        at: d.at,
        event: {
          type: 'ingestion',
          store_id: d.storeId,
          store_file_id: d.fileId,
          total_time: isoDuration(d.totalMs),
          queue_time: isoDuration(d.queueMs),
          ingestion_time: isoDuration(d.ingestionMs),
          chunk_count: d.chunkCount,
          contextualization: d.contextualization,
          mode: d.mode,
          filename: d.filename,
        },
      };
    }
    case 'StoreSearchPerformed': {
      const d = e.data as unknown as StoreSearchPerformed['data'];
      return searchActivity(d, d.query, d.rewrittenQuery, d.rerank);
    }
    // list-chunks and facets are no searches: they stay in the log (search_activity) with no public event
    case 'StoreChunksListed':
      return null;
    case 'StoreGrepPerformed': {
      const d = e.data as unknown as StoreGrepPerformed['data'];
      return {
        kind: 'grep',
        storeIds: d.storeIds,
        at: d.at,
        event: {
          type: 'grep',
          store_ids: d.storeIds,
          pattern: d.pattern,
          case_sensitive: d.caseSensitive,
          search_time: isoDuration(d.searchTimeMs),
          filters: d.filters ?? null,
          results: d.results,
          ...toolCallOf(d),
        },
      };
    }
    case 'StoreAgenticSearchPerformed': {
      const d = e.data as unknown as StoreAgenticSearchPerformed['data'];
      return {
        kind: 'agentic_search',
        storeIds: d.storeIds,
        at: d.at,
        event: {
          type: 'agentic_search',
          store_ids: d.storeIds,
          started_at: d.startedAt,
          search_time: isoDuration(d.searchTimeMs),
          query: d.query,
          instructions: d.instructions,
          ranking_strategy: d.rankingStrategy,
          rounds_executed: d.roundsExecuted,
          model: d.model,
          filters: d.filters ?? null,
          token_usage: d.tokenUsage,
          tool_calls: d.toolCalls.map(publicToolCall),
          results: d.results,
        },
      };
    }
    case 'StoreQuestionAnswered': {
      const d = e.data as unknown as StoreQuestionAnswered['data'];
      return {
        kind: 'qa',
        storeIds: d.storeIds,
        at: d.at,
        event: {
          type: 'qa',
          store_ids: d.storeIds,
          search_time: isoDuration(d.searchTimeMs),
          query: d.query,
          instructions: d.instructions,
          model: d.model,
          mode: d.mode,
          agentic: d.agentic,
          answer: d.answer,
          citations: d.citations,
          filters: d.filters ?? null,
          token_usage: d.tokenUsage,
          results: d.results,
        },
      };
    }
    case 'ChatCompletionCreated': {
      const d = e.data as unknown as ChatCompletionCreated['data'];
      return {
        kind: 'completion',
        storeIds: d.storeIds,
        at: d.at,
        event: {
          type: 'completion',
          endpoint: d.endpoint ?? 'chat.completions',
          store_ids: d.storeIds,
          completion_id: d.completionId,
          root_completion_id: d.rootCompletionId,
          previous_completion_id: d.previousCompletionId,
          started_at: d.startedAt,
          completion_time: isoDuration(d.completionTimeMs),
          time_to_first_token: d.timeToFirstTokenMs === null ? null : isoDuration(d.timeToFirstTokenMs),
          model: d.model,
          response_model: d.responseModel,
          messages_count: d.messagesCount,
          finish_reason: d.finishReason,
          stream: d.stream,
          stored: d.stored,
          token_usage: d.tokenUsage,
          tool_calls: d.toolCalls.map(publicToolCall),
          client_tool_calls: d.clientToolCalls,
          metadata: d.metadata,
          title: d.title ?? null,
          user_message: d.userMessage ?? null,
          answer: d.answer ?? null,
          persisted: d.stored,
          total_time: isoDuration(d.completionTimeMs),
        },
      };
    }
    case 'EmbeddingsCreated': {
      const d = e.data as unknown as EmbeddingsCreated['data'];
      return modelCallActivity('embedding', d, {
        input_count: d.inputs,
        dimensions: d.dimensions,
        encoding_formats: d.encodingFormats,
        normalized: d.normalized,
      });
    }
    case 'DocumentsReranked': {
      const d = e.data as unknown as DocumentsReranked['data'];
      return modelCallActivity('reranking', d, {
        method: d.method,
        document_count: d.documents,
        top_k: d.topK,
        result_count: d.returned,
      });
    }
    default:
      return null;
  }
}

/**
 * Reactor: turns domain activity (ingestions, searches, greps) into the organization's activity
 * stream. Each entry's id is derived from its source event's id, and the event store accepts an
 * append of known ids as a no-op, so re-running it (after a crash, or from the start) never
 * duplicates an entry.
 */
export class ActivityStreamReactor {
  readonly name = 'activity-streams';
  readonly handles = ['StoreFileIngested', ...SEARCH_ACTIVITY_EVENT_TYPES] as const;
  private readonly logger = new Logger('ActivityStreamReactor');
  constructor(private readonly store: EventStore) {}

  async handle(e: RecordedEvent): Promise<void> {
    await this.handleBatch([e]);
  }

  /**
   * One append per organization for a whole batch: under search load each search used to cost its own
   * transaction here, which on the single-threaded embedded database starved every other write. A
   * batch that overlaps entries already appended (a re-run after a crash, cut differently) falls back
   * to one append per entry, each a no-op when it exists; an entry the store refuses for what it holds
   * is quarantined (`appendIsolating`) instead of holding up every later entry.
   */
  async handleBatch(events: RecordedEvent[]): Promise<void> {
    const byOrg = new Map<string, NewEvent[]>();
    for (const e of events) {
      const a = activityOf(e);
      if (!a) continue;
      const organizationId = e.metadata.orgId;
      const activityId = uuidFrom(`activity:${e.id}`);
      const entry: ActivityRecorded = {
        type: 'ActivityRecorded',
        data: {
          activityId,
          organizationId,
          kind: a.kind,
          storeIds: a.storeIds,
          sourceEventId: e.id,
          at: a.at,
          event: a.event,
        },
      };
      const list = byOrg.get(organizationId) ?? [];
      list.push({
        id: activityId,
        type: entry.type,
        data: entry.data,
        metadata: { orgId: organizationId, actor: 'system' },
      });
      byOrg.set(organizationId, list);
    }
    for (const [organizationId, entries] of byOrg) {
      await appendIsolating(this.store, streamName('activity', organizationId), entries, this.logger);
    }
  }
}
