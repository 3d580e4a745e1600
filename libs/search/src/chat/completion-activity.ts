import type { Principal } from '@larder/kernel';
import type { ChatCompletionCreated } from '../events';
import type { SearchActivity } from '../search-activity';
import type { ToolLoopResult } from './tool-loop';
import type { completionSummary } from './completion-summary';

/** What the request answered adds to its tool loop's run in the `completion` activity event. */
export interface CompletionActivityFacts {
  completionId: string;
  organizationId: string;
  apiKeyId: string;
  /** Set for a Responses API call; absent for a chat completion. */
  endpoint?: 'responses';
  rootCompletionId: string;
  previousCompletionId: string | null;
  model: string;
  messagesCount: number;
  stream: boolean;
  stored: boolean;
  startedAt: Date;
  /** `performance.now()` when the request began. */
  t0: number;
  metadata: Record<string, string> | null;
  /** The conversation's title, last user message and answer, bounded (completionSummary). */
  summary: ReturnType<typeof completionSummary>;
  at: string;
}

/** The `ChatCompletionCreated` activity of one answered chat completion or Responses API call (one per request). */
export function chatCompletionCreated(f: CompletionActivityFacts, run: ToolLoopResult): ChatCompletionCreated {
  return {
    type: 'ChatCompletionCreated',
    data: {
      completionId: f.completionId,
      organizationId: f.organizationId,
      apiKeyId: f.apiKeyId,
      ...(f.endpoint ? { endpoint: f.endpoint } : {}),
      storeIds: run.storeIds,
      rootCompletionId: f.rootCompletionId,
      previousCompletionId: f.previousCompletionId,
      model: f.model,
      responseModel: run.responseModel,
      messagesCount: f.messagesCount,
      finishReason: run.finishReason,
      stream: f.stream,
      stored: f.stored,
      toolCalls: run.records
        .slice(0, 100)
        .map((r) => ({ ...r, arguments: truncated(r.arguments), result: truncated(r.result) })),
      clientToolCalls: run.clientToolCalls.map((c) => c.id),
      tokenUsage: {
        prompt_tokens: run.usage.promptTokens,
        completion_tokens: run.usage.completionTokens,
        total_tokens: run.usage.totalTokens,
      },
      startedAt: f.startedAt.toISOString(),
      completionTimeMs: performance.now() - f.t0,
      timeToFirstTokenMs: run.firstContentMs,
      metadata: f.metadata,
      ...f.summary,
      at: f.at,
    },
  };
}

/** A recorded argument or result kept small (an event stays within its size limit). */
export function truncated(v: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!v) return v;
  const text = JSON.stringify(v);
  return text.length <= 2000 ? v : { truncated: text.slice(0, 2000) };
}

/** Records a chat completion's or Responses API call's activity (what is listed in /v1/events and billed). */
export function recordCompletion(
  activity: SearchActivity,
  p: Principal,
  run: ToolLoopResult,
  c: Omit<CompletionActivityFacts, 'organizationId' | 'apiKeyId'>,
): void {
  activity.record(
    p.organizationId,
    chatCompletionCreated({ ...c, organizationId: p.organizationId, apiKeyId: p.apiKeyId }, run),
  );
}
