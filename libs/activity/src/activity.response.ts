import type { ActivityRow } from '@larder/projections/activity/activity.reader';
import { eventResults, RecordedResults } from '@larder/search/events';
import { ACTIVITY_KINDS } from './events';

/** The kinds a store's listing and histogram accept: every kind, as the organization's listing does (a store has none of some). */
export const STORE_KINDS: string[] = [...ACTIVITY_KINDS];

/** The kinds a histogram counts without `event_types`: the four ingestion and search kinds of the public API. */
export const HISTOGRAM_DEFAULT_KINDS = ['ingestion', 'search', 'agentic_search', 'grep'];

/** Platform event names of the histogram buckets. */
export const PLATFORM_EVENT: Record<string, string> = {
  ingestion: 'store.file.completed',
  search: 'store.search',
  agentic_search: 'store.search',
  grep: 'store.grep',
  qa: 'store.question_answer',
  completion: 'model_request',
  embedding: 'model_request',
  reranking: 'model_request',
};

/** One public activity event, as `GET /v1/events` lists it (its recorded results as the API's objects). */
export function toActivityEventResponse(r: ActivityRow) {
  const e = r.event as Record<string, unknown> & { results?: RecordedResults; store_ids?: string[] };
  return {
    id: r.id,
    created_at: r.createdAt.toISOString(),
    ...e,
    ...(Array.isArray(e.results) ? { results: eventResults(e.results, e.store_ids ?? []) } : {}),
  };
}
export type ActivityEventResponse = ReturnType<typeof toActivityEventResponse>;
