/** The public event families of the activity API (`/v1/events`), plus Larder's `completion`, `qa`, `embedding` and `reranking`. */
export const ACTIVITY_KINDS = [
  'ingestion',
  'search',
  'agentic_search',
  'grep',
  'completion',
  'qa',
  'embedding',
  'reranking',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/**
 * One entry of an organization's activity stream (`activity-<org>`), appended by the activity
 * reactor with an id derived from its source event, so a rebuild never duplicates it. `event` is the
 * public activity event without `id` and `created_at` (those are the entry's own), its `results` as
 * their source event recorded them (`RecordedResult` tuples, expanded by `toActivityEventResponse`).
 */
export interface ActivityRecorded {
  type: 'ActivityRecorded';
  data: {
    activityId: string;
    organizationId: string;
    kind: ActivityKind;
    /** Stores the event concerns (none for an organization-level completion, embedding or reranking). */
    storeIds: string[];
    sourceEventId: string;
    at: string;
    event: Record<string, unknown>;
  };
}
export type ActivityEvent = ActivityRecorded;
export const ACTIVITY_EVENT_TYPES = ['ActivityRecorded'] as const;
