import type { ActivityRow } from '@larder/projections/activity/activity.reader';

/** The kinds of activity a store has (completions and QA are organization-level). */
export const STORE_KINDS = ['ingestion', 'search', 'agentic_search', 'grep'];

/** Platform event names of the histogram buckets (§11.2). */
export const PLATFORM_EVENT: Record<string, string> = {
  ingestion: 'store.file.completed',
  search: 'store.search',
  agentic_search: 'store.search',
  grep: 'store.grep',
  qa: 'store.question_answer',
  completion: 'model_request',
};

/** One public activity event (§11.1). */
export function toActivityEventResponse(r: ActivityRow) {
  return { id: r.id, created_at: r.createdAt.toISOString(), ...r.event };
}
export type ActivityEventResponse = ReturnType<typeof toActivityEventResponse>;
