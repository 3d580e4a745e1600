import { resourceFromAttributes } from '@opentelemetry/resources';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { decodeTraceExport } from '../testing/otlp-doubles';
import semconv from './gen-ai.semconv.json';
import { FinishedRun } from './finished-run';
import { runSpans, traceIdOf } from './run-spans';

const results = [
  {
    store_id: 's1',
    file_id: 'f1',
    filename: 'a.md',
    chunk_index: 0,
    score: 0.9,
    first_stage_position: 1,
    first_stage_source: 'both' as const,
  },
  {
    store_id: 's1',
    file_id: 'f2',
    filename: 'b.md',
    chunk_index: 3,
    score: 0.4,
    first_stage_position: 2,
    first_stage_source: 'dense' as const,
  },
];
const common = {
  searchId: 'run-1',
  organizationId: 'org',
  apiKeyId: 'key',
  storeIds: ['s1'],
  filters: null,
  topK: 5,
  results,
  searchTimeMs: 1500,
  at: '2026-01-01T00:00:01.500Z',
};

const qa: FinishedRun = {
  eventId: '0f5c3f0e-3d1c-4e8c-9d8e-7a0d7a1c2b3e',
  organizationId: 'org',
  type: 'StoreQuestionAnswered',
  data: {
    ...common,
    query: 'how long does sauerkraut ferment?',
    instructions: null,
    model: 'gpt-test',
    mode: 'llm',
    answer: 'About three weeks <cite i="0"/>.',
    citations: [0],
    agentic: false,
    tokenUsage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
    startedAt: '2026-01-01T00:00:00.000Z',
    toolCalls: [
      {
        tool_call_id: 'search_1_x',
        tool_name: 'store_search',
        tool_type: 'datastore',
        started_at: '2026-01-01T00:00:00.100Z',
        duration_ms: 200,
        arguments: { query: 'how long does sauerkraut ferment?', top_k: 5 },
        result: { result_count: 2 },
        error: null,
      },
      {
        tool_call_id: 'gen_answer_x',
        tool_name: 'generation',
        tool_type: 'extension',
        started_at: '2026-01-01T00:00:00.400Z',
        duration_ms: 1000.5,
        arguments: { model: 'gpt-test-2026', messages: 2 },
        result: { finish_reason: 'stop', usage: { prompt_tokens: 120, completion_tokens: 9 } },
        error: null,
      },
    ],
  },
};

describe('runSpans: a finished run as OpenTelemetry spans (GenAI conventions)', () => {
  const resource = resourceFromAttributes({ 'service.name': 'larder' });

  it('the GenAI names are those of @opentelemetry/semantic-conventions (incubating)', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const upstream = require('@opentelemetry/semantic-conventions/incubating') as Record<string, string>;
    for (const [name, value] of Object.entries(semconv)) expect([name, upstream[name]]).toEqual([name, value]);
  });

  it.each([
    ['application/x-protobuf', ProtobufTraceSerializer],
    ['application/json', JsonTraceSerializer],
  ] as const)(
    'a question answering run: root, execute_tool and chat spans, decoded from %s',
    (contentType, serializer) => {
      const spans = decodeTraceExport(serializer.serializeRequest(runSpans(qa, resource))!, contentType);
      expect(spans.map((s) => s.name)).toEqual([
        'invoke_agent question_answering',
        'execute_tool store_search',
        'chat gpt-test',
      ]);
      const [root, tool, chat] = spans;
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(qa.eventId)]));
      expect(root.parentSpanId).toBeNull();
      expect(tool.parentSpanId).toBe(root.spanId);
      expect(chat.parentSpanId).toBe(root.spanId);
      expect(root.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'question_answering',
        'gen_ai.request.model': 'gpt-test',
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 9,
        'gen_ai.retrieval.query.text': 'how long does sauerkraut ferment?',
        'larder.qa.citations': [0],
        'larder.store_ids': ['s1'],
      });
      expect(JSON.parse(root.attributes['gen_ai.output.messages'] as string)).toEqual([
        {
          role: 'assistant',
          parts: [{ type: 'text', content: 'About three weeks <cite i="0"/>.' }],
          finish_reason: 'stop',
        },
      ]);
      expect(JSON.parse(root.attributes['larder.results'] as string)).toEqual(results);
      expect(root.startTimeUnixNano).toBe(1767225600000000000n);
      expect(root.endTimeUnixNano).toBe(1767225601500000000n);
      expect(tool.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'store_search',
        'gen_ai.tool.call.id': 'search_1_x',
        'gen_ai.tool.type': 'datastore',
      });
      expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({
        query: 'how long does sauerkraut ferment?',
        top_k: 5,
      });
      expect(chat.kind).toBe(3); // CLIENT
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.response.model': 'gpt-test-2026',
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 9,
      });
      expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
      expect(chat.endTimeUnixNano - chat.startTimeUnixNano).toBe(1000500000n);
      expect(spans.every((s) => s.scope.name === 'larder.trace-export')).toBe(true);
    },
  );

  it('a chat model turn’s tool calls, recorded as {id, name}, are named on its span', () => {
    const turn = {
      ...qa.data.toolCalls![1],
      tool_type: 'function' as const,
      result: { finish_reason: 'tool_calls', tool_calls: [{ id: 'call_1', name: 'store_search' }] },
    };
    const spans = runSpans({ ...qa, data: { ...qa.data, toolCalls: [turn] } }, resource);
    const chat = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat')!;
    expect(chat.attributes['larder.turn.tool_calls']).toEqual(['store_search']);
  });

  it('the same run always becomes the same spans (a redelivery is the same trace); a failed tool call is an error span', () => {
    const failing: FinishedRun = {
      ...qa,
      data: { ...qa.data, toolCalls: [{ ...qa.data.toolCalls![0], error: 'store gone' }] },
    };
    const a = runSpans(failing, resource);
    const b = runSpans(failing, resource);
    expect(a.map((s) => s.spanContext().spanId)).toEqual(b.map((s) => s.spanContext().spanId));
    expect(a[1].status).toEqual({ code: 2, message: 'store gone' });
    expect(a[1].attributes['error.type']).toBe('tool_error');
  });

  it('an older question answering event (no steps recorded) is a root span alone', () => {
    const { toolCalls: _t, startedAt: _s, ...old } = qa.data;
    const spans = runSpans({ ...qa, data: old }, resource);
    expect(spans.map((s) => s.name)).toEqual(['invoke_agent question_answering']);
    expect(spans[0].startTime).toEqual([1767225600, 0]);
  });
});
