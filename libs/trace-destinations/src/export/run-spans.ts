import { createHash } from 'crypto';
import { Attributes, HrTime, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
/*
 * The OpenTelemetry GenAI semantic conventions (semantic-conventions 1.45, still "development"):
 * `@opentelemetry/semantic-conventions` ships them only from its `incubating` entry point and asks users
 * to copy unstable names into their own code rather than depend on it, so gen-ai.semconv.json holds the
 * ones used here, by their upstream names.
 */
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_REQUEST_TOP_K,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_RETRIEVAL_DOCUMENTS,
  ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from './gen-ai.semconv.json';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  eventResults,
  type AgenticToolCallRecorded,
  type RecordedResults,
  type TokenUsage,
} from '@larder/search/events';
import { FinishedRun, traceKindOf } from './finished-run';

/** The instrumentation scope of every exported span: nothing else (no span of Larder's own) is ever exported. */
export const TRACE_EXPORT_SCOPE = { name: 'larder.trace-export', version: '1' };

/** Deterministic ids: the same run always becomes the same trace, so a redelivery is recognised as such. */
const hexId = (text: string, bytes: number) =>
  createHash('sha256')
    .update(text)
    .digest('hex')
    .slice(0, bytes * 2);
export const traceIdOf = (eventId: string) => hexId(`larder-trace:${eventId}`, 16);
const spanIdOf = (eventId: string, index: number) => hexId(`larder-span:${eventId}:${index}`, 8);

function hrTime(ms: number): HrTime {
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  return [Math.floor(whole / 1000), (whole % 1000) * 1e6 + nanos];
}

const json = (v: unknown) => JSON.stringify(v);
/** A model turn's tool call as its generation record names it: `{id, name}`, or the name alone. */
const toolCallName = (c: unknown): string =>
  c && typeof c === 'object' && typeof (c as { name?: unknown }).name === 'string'
    ? (c as { name: string }).name
    : String(c);
const text = (role: string, content: string, extra: Record<string, unknown> = {}) =>
  json([{ role, parts: [{ type: 'text', content }], ...extra }]);

/** Attributes with absent values left out (OTLP has no null). */
function attrs(
  entries: Record<string, string | number | boolean | string[] | number[] | null | undefined>,
): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(entries)) if (v !== null && v !== undefined) out[k] = v;
  return out;
}

function usageAttrs(u: { prompt_tokens?: number; completion_tokens?: number } | null | undefined): Attributes {
  if (!u) return {};
  return attrs({
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: u.prompt_tokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: u.completion_tokens,
  });
}

/** The returned chunks (the events API's `results`), as the retrieval convention and in full. */
function resultAttrs(recorded: RecordedResults | undefined, storeIds: readonly string[]): Attributes {
  if (!recorded) return {};
  const results = eventResults(recorded, storeIds);
  return {
    [ATTR_GEN_AI_RETRIEVAL_DOCUMENTS]: json(
      results.map((r) => ({ id: `${r.file_id}:${r.chunk_index}`, score: r.score })),
    ),
    'larder.results': json(results),
    'larder.result_count': results.length,
  };
}

interface SpanInput {
  index: number;
  parent: number | null;
  name: string;
  kind: SpanKind;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  error?: string | null;
}

/**
 * A finished run as OpenTelemetry spans (GenAI semantic conventions): the root `invoke_agent <kind>`
 * span, a `chat <model>` span per model turn (with its token usage) and an `execute_tool <tool>` span
 * per tool call (arguments and result), children of the root, timed as the run recorded them.
 */
export function runSpans(run: FinishedRun, resource: Resource): ReadableSpan[] {
  const traceId = traceIdOf(run.eventId);
  const kind = traceKindOf(run);
  const d = run.data;
  const inputs: SpanInput[] = [];
  const common = attrs({
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
    [ATTR_GEN_AI_AGENT_NAME]: kind,
    [ATTR_GEN_AI_REQUEST_MODEL]: d.model,
    'larder.run.kind': kind,
    'larder.store_ids': d.storeIds,
    'larder.api_key_id': d.apiKeyId,
  });
  let root: Omit<SpanInput, 'index' | 'parent' | 'name' | 'kind'>;
  let calls: AgenticToolCallRecorded[];
  let usage: TokenUsage;
  switch (run.type) {
    case 'StoreAgenticSearchPerformed': {
      const a = run.data;
      const endMs = Date.parse(a.at);
      calls = a.toolCalls;
      usage = a.tokenUsage;
      root = {
        startMs: Math.min(Date.parse(a.startedAt), endMs - a.searchTimeMs),
        endMs,
        attributes: {
          ...common,
          ...attrs({
            [ATTR_GEN_AI_RESPONSE_ID]: a.searchId,
            [ATTR_GEN_AI_INPUT_MESSAGES]: text('user', a.query),
            [ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]: a.instructions
              ? json([{ type: 'text', content: a.instructions }])
              : null,
            [ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT]: a.query,
            [ATTR_GEN_AI_REQUEST_TOP_K]: a.topK,
            'larder.run.id': a.searchId,
            'larder.search.rounds_executed': a.roundsExecuted,
            'larder.search.ranking_strategy': a.rankingStrategy,
            'larder.search.filters': a.filters === null || a.filters === undefined ? null : json(a.filters),
          }),
          ...resultAttrs(a.results, a.storeIds),
        },
      };
      break;
    }
    case 'StoreQuestionAnswered': {
      const q = run.data;
      const endMs = Date.parse(q.at);
      calls = q.toolCalls ?? [];
      usage = q.tokenUsage;
      root = {
        startMs: q.startedAt ? Math.min(Date.parse(q.startedAt), endMs - q.searchTimeMs) : endMs - q.searchTimeMs,
        endMs,
        attributes: {
          ...common,
          ...attrs({
            [ATTR_GEN_AI_RESPONSE_ID]: q.searchId,
            [ATTR_GEN_AI_INPUT_MESSAGES]: text('user', q.query),
            [ATTR_GEN_AI_OUTPUT_MESSAGES]: text('assistant', q.answer, { finish_reason: 'stop' }),
            [ATTR_GEN_AI_SYSTEM_INSTRUCTIONS]: q.instructions
              ? json([{ type: 'text', content: q.instructions }])
              : null,
            [ATTR_GEN_AI_RETRIEVAL_QUERY_TEXT]: q.query,
            [ATTR_GEN_AI_REQUEST_TOP_K]: q.topK,
            'larder.run.id': q.searchId,
            'larder.qa.mode': q.mode,
            'larder.qa.agentic': q.agentic,
            'larder.qa.citations': q.citations,
            'larder.search.filters': q.filters === null || q.filters === undefined ? null : json(q.filters),
          }),
          ...resultAttrs(q.results, q.storeIds),
        },
      };
      break;
    }
    case 'ChatCompletionCreated': {
      const c = run.data;
      const startMs = Date.parse(c.startedAt);
      calls = c.toolCalls;
      usage = c.tokenUsage;
      root = {
        startMs,
        endMs: startMs + c.completionTimeMs,
        attributes: {
          ...common,
          ...attrs({
            [ATTR_GEN_AI_RESPONSE_ID]: c.completionId,
            [ATTR_GEN_AI_RESPONSE_MODEL]: c.responseModel,
            [ATTR_GEN_AI_CONVERSATION_ID]: c.rootCompletionId,
            [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [c.finishReason],
            [ATTR_GEN_AI_REQUEST_STREAM]: c.stream,
            [ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK]:
              c.timeToFirstTokenMs === null ? null : c.timeToFirstTokenMs / 1000,
            'larder.run.id': c.completionId,
            'larder.chat.previous_completion_id': c.previousCompletionId,
            'larder.chat.messages_count': c.messagesCount,
            'larder.chat.stored': c.stored,
            'larder.chat.client_tool_calls': c.clientToolCalls.length ? c.clientToolCalls : null,
            'larder.chat.metadata': c.metadata ? json(c.metadata) : null,
          }),
        },
      };
      break;
    }
  }
  Object.assign(root.attributes, usageAttrs(usage));
  inputs.push({
    index: 0,
    parent: null,
    name: `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${kind}`,
    kind: SpanKind.INTERNAL,
    ...root,
  });

  calls.forEach((call, i) => {
    const startMs = Date.parse(call.started_at);
    const endMs = startMs + call.duration_ms;
    const result = call.result ?? {};
    if (call.tool_name === 'generation') {
      const args = call.arguments ?? {};
      const responseModel = typeof args.model === 'string' ? args.model : null;
      const finish =
        typeof result.finish_reason === 'string'
          ? result.finish_reason
          : typeof result.tool === 'string'
            ? 'tool_calls'
            : null;
      inputs.push({
        index: i + 1,
        parent: 0,
        name: `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${d.model}`,
        kind: SpanKind.CLIENT,
        startMs,
        endMs,
        error: call.error,
        attributes: {
          ...attrs({
            [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
            [ATTR_GEN_AI_REQUEST_MODEL]: d.model,
            [ATTR_GEN_AI_RESPONSE_MODEL]: responseModel,
            [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: finish ? [finish] : null,
            'larder.turn.id': call.tool_call_id,
            'larder.turn.tool_calls': Array.isArray(result.tool_calls)
              ? (result.tool_calls as unknown[]).map(toolCallName)
              : typeof result.tool === 'string'
                ? [result.tool]
                : null,
            'larder.turn.round': typeof args.round === 'number' ? args.round : null,
          }),
          ...usageAttrs(result.usage as TokenUsage | undefined),
        },
      });
      return;
    }
    inputs.push({
      index: i + 1,
      parent: 0,
      name: `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${call.tool_name}`,
      kind: SpanKind.INTERNAL,
      startMs,
      endMs,
      error: call.error,
      attributes: attrs({
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [ATTR_GEN_AI_TOOL_NAME]: call.tool_name,
        [ATTR_GEN_AI_TOOL_CALL_ID]: call.tool_call_id,
        [ATTR_GEN_AI_TOOL_TYPE]: call.tool_type,
        [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: call.arguments === null ? null : json(call.arguments),
        [ATTR_GEN_AI_TOOL_CALL_RESULT]: call.result === null ? null : json(call.result),
        [ATTR_ERROR_TYPE]: call.error ? 'tool_error' : null,
      }),
    });
  });

  return inputs.map((s) => readableSpan(traceId, run.eventId, s, resource));
}

function readableSpan(traceId: string, eventId: string, s: SpanInput, resource: Resource): ReadableSpan {
  const spanId = spanIdOf(eventId, s.index);
  const endMs = Math.max(s.startMs, s.endMs);
  const context = { traceId, spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: s.name,
    kind: s.kind,
    spanContext: () => context,
    parentSpanContext:
      s.parent === null ? undefined : { traceId, spanId: spanIdOf(eventId, s.parent), traceFlags: TraceFlags.SAMPLED },
    startTime: hrTime(s.startMs),
    endTime: hrTime(endMs),
    duration: hrTime(endMs - s.startMs),
    status: s.error ? { code: SpanStatusCode.ERROR, message: s.error } : { code: SpanStatusCode.UNSET },
    attributes: s.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: TRACE_EXPORT_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
