import type { RecordedEvent } from '@larder/kernel';
import type { ChatCompletionCreated, StoreAgenticSearchPerformed, StoreQuestionAnswered } from '@larder/search/events';
import type { TraceKind } from '../events';

/** The run events a trace is made of, by the trace kind a destination chooses. */
export const RUN_EVENT_KINDS = {
  StoreAgenticSearchPerformed: 'agentic_search',
  StoreQuestionAnswered: 'question_answering',
  ChatCompletionCreated: 'chat_completion',
} as const satisfies Record<string, TraceKind>;
export type RunEventType = keyof typeof RUN_EVENT_KINDS;
export const RUN_EVENT_TYPES = Object.keys(RUN_EVENT_KINDS) as RunEventType[];

/**
 * One finished run as a delivery keeps it until it is sent: the event that recorded it (id, type,
 * data). The trace is built from it at send time, so every attempt sends the same spans (ids derived
 * from the event id) and a backend that receives a run twice keeps one trace.
 */
export type FinishedRun =
  | {
      eventId: string;
      organizationId: string;
      type: 'StoreAgenticSearchPerformed';
      data: StoreAgenticSearchPerformed['data'];
    }
  | { eventId: string; organizationId: string; type: 'StoreQuestionAnswered'; data: StoreQuestionAnswered['data'] }
  | { eventId: string; organizationId: string; type: 'ChatCompletionCreated'; data: ChatCompletionCreated['data'] };

export function finishedRunOf(e: RecordedEvent): FinishedRun | null {
  if (!(e.type in RUN_EVENT_KINDS)) return null;
  return { eventId: e.id, organizationId: e.metadata.orgId, type: e.type, data: e.data } as unknown as FinishedRun;
}

export const traceKindOf = (run: Pick<FinishedRun, 'type'>): TraceKind => RUN_EVENT_KINDS[run.type];
