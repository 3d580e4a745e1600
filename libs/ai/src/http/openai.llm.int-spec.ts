import { inspect } from 'util';
import { LlmError, LlmRequest, LlmStreamEvent } from '../llm.port';
import { ChatCompletionsDouble, startChatCompletionsDouble } from '../testing/chat-completions-double';
import { OpenAiLlm, OpenAiLlmOptions } from './openai.llm';

const KEY = 'sk-test-4f1c9a77e0b2d5';
const ask = (text: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  messages: [{ role: 'user', content: text }],
  ...extra,
});

async function collect(events: AsyncIterable<LlmStreamEvent>): Promise<{ events: LlmStreamEvent[]; error: unknown }> {
  const seen: LlmStreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { events: seen, error };
  }
  return { events: seen, error: null };
}

const contentOf = (events: LlmStreamEvent[]) => events.flatMap((e) => (e.type === 'content' ? [e.delta] : []));
const doneOf = (events: LlmStreamEvent[]) => {
  const done = events.filter((e) => e.type === 'done');
  expect(done).toHaveLength(1);
  expect(events[events.length - 1]).toBe(done[0]);
  return done[0].type === 'done' ? done[0].response : null;
};

async function rejection(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}

describe('OpenAiLlm against a chat-completions double', () => {
  let double: ChatCompletionsDouble;
  const llm = (options: Partial<OpenAiLlmOptions> = {}) =>
    new OpenAiLlm({ baseUrl: double.url, apiKey: KEY, model: 'test-model', retryBaseMs: 1, ...options });

  beforeEach(async () => {
    double = await startChatCompletionsDouble({ apiKey: KEY });
  });
  afterEach(() => double.close());

  describe('chat', () => {
    it('answers a plain completion with its usage and model, and sends the request in the wire format', async () => {
      double.reply({
        content: 'Tea is a drink.',
        usage: { prompt_tokens: 11, completion_tokens: 4 },
        model: 'test-model-2024',
      });
      const response = await llm().chat({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'What is tea?' },
        ],
        temperature: 0.2,
        topP: 0.9,
        maxTokens: 64,
        json: true,
      });
      expect(response).toEqual({
        message: { role: 'assistant', content: 'Tea is a drink.' },
        finishReason: 'stop',
        usage: { promptTokens: 11, completionTokens: 4, totalTokens: 15 },
        model: 'test-model-2024',
      });
      expect(double.requests).toHaveLength(1);
      const { body, headers } = double.requests[0];
      expect(headers.authorization).toBe(`Bearer ${KEY}`);
      expect(headers['content-type']).toBe('application/json');
      expect(body).toEqual({
        model: 'test-model',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'What is tea?' },
        ],
        temperature: 0.2,
        top_p: 0.9,
        max_tokens: 64,
        response_format: { type: 'json_object' },
      });
    });

    it('sends no Authorization header without a key, takes the base URL with a trailing slash, and reports zero usage when the server reports none', async () => {
      await double.close();
      double = await startChatCompletionsDouble();
      double.reply({ content: 'hi', usage: null });
      const response = await new OpenAiLlm({ baseUrl: `${double.url}/`, apiKey: null, model: 'm' }).chat(ask('hello'));
      expect(response.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
      expect(response.message.content).toBe('hi');
      expect(double.requests[0].headers.authorization).toBeUndefined();
    });

    it('returns tool calls and sends tools, tool choice and a tool round trip in the wire format', async () => {
      double.reply({
        toolCalls: [
          { id: 'call_a', name: 'search', arguments: { query: 'green tea' } },
          { id: 'call_b', name: 'search', arguments: '{"query":"black tea"}' },
        ],
      });
      const tools = [
        {
          type: 'function' as const,
          function: {
            name: 'search',
            description: 'Searches the store',
            parameters: { type: 'object', properties: { query: { type: 'string' } } },
          },
        },
      ];
      const response = await llm().chat({
        messages: [
          { role: 'user', content: 'Compare teas' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_0', type: 'function', function: { name: 'search', arguments: '{"query":"tea"}' } },
            ],
          },
          { role: 'tool', content: 'Tea is a drink.', tool_call_id: 'call_0', name: 'search' },
        ],
        tools,
        toolChoice: 'auto',
        parallelToolCalls: true,
      });
      expect(response.finishReason).toBe('tool_calls');
      expect(response.message).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'search', arguments: '{"query":"green tea"}' } },
          { id: 'call_b', type: 'function', function: { name: 'search', arguments: '{"query":"black tea"}' } },
        ],
      });
      const { body } = double.requests[0];
      expect(body.tools).toEqual(tools);
      expect(body.tool_choice).toBe('auto');
      expect(body.parallel_tool_calls).toBe(true);
      expect(body.messages[1]).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'search', arguments: '{"query":"tea"}' } }],
      });
      expect(body.messages[2]).toEqual({
        role: 'tool',
        content: 'Tea is a drink.',
        tool_call_id: 'call_0',
        name: 'search',
      });
    });

    it('leaves tool choice and parallel tool calls out when there are no tools (servers refuse them)', async () => {
      await llm().chat(ask('hi', { tools: [], toolChoice: 'auto', parallelToolCalls: false }));
      expect(double.requests[0].body).not.toHaveProperty('tools');
      expect(double.requests[0].body).not.toHaveProperty('tool_choice');
      expect(double.requests[0].body).not.toHaveProperty('parallel_tool_calls');
    });
  });

  describe('stream', () => {
    it('streams content deltas in order, then one done with the assembled text and the usage chunk', async () => {
      double.reply({
        content: 'Green tea is unoxidised.',
        tokens: ['Green', ' tea', ' is', ' un', 'oxidised', '.'],
        usage: { prompt_tokens: 7, completion_tokens: 6 },
      });
      const { events, error } = await collect(llm().stream(ask('What is green tea?')));
      expect(error).toBeNull();
      expect(contentOf(events)).toEqual(['Green', ' tea', ' is', ' un', 'oxidised', '.']);
      expect(doneOf(events)).toEqual({
        message: { role: 'assistant', content: 'Green tea is unoxidised.' },
        finishReason: 'stop',
        usage: { promptTokens: 7, completionTokens: 6, totalTokens: 13 },
        model: 'test-model',
      });
      expect(double.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      expect(double.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('assembles parallel tool calls streamed in interleaved pieces by their index', async () => {
      double.reply({
        content: null,
        toolCalls: [
          { id: 'call_x', name: 'search', arguments: { query: 'oolong', top_k: 5 } },
          { id: 'call_y', name: 'grep', arguments: { pattern: 'camellia sinensis' } },
        ],
        argumentPieces: 4,
        interleaveToolCalls: true,
      });
      const { events, error } = await collect(
        llm().stream(ask('Find oolong', { tools: [{ type: 'function', function: { name: 'search' } }] })),
      );
      expect(error).toBeNull();
      const pieces = events.filter((e) => e.type === 'tool_call');
      expect(pieces.map((e) => e.index)).toEqual([0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
      expect(pieces[0]).toEqual({ type: 'tool_call', index: 0, id: 'call_x', name: 'search', argumentsDelta: '' });
      expect(pieces[1]).toEqual({ type: 'tool_call', index: 1, id: 'call_y', name: 'grep', argumentsDelta: '' });
      expect(
        pieces.slice(2).every((e) => e.id === undefined && e.name === undefined && e.argumentsDelta.length > 0),
      ).toBe(true);
      const response = doneOf(events)!;
      expect(response.finishReason).toBe('tool_calls');
      expect(response.message).toEqual({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_x', type: 'function', function: { name: 'search', arguments: '{"query":"oolong","top_k":5}' } },
          { id: 'call_y', type: 'function', function: { name: 'grep', arguments: '{"pattern":"camellia sinensis"}' } },
        ],
      });
    });

    it('reads the same events when the event stream arrives split at arbitrary bytes (inside lines and UTF-8 characters)', async () => {
      const content = 'Grüße aus Köln: 緑茶 🍵 ist gut.';
      const toolCalls = [{ id: 'call_u', name: 'note', arguments: { text: 'Ünïcödé ✓ 🍵' } }];
      for (const byteSize of [1, 2, 3, 5, 7, 13]) {
        double.reply({ content, toolCalls, byteSize, usage: { prompt_tokens: 3, completion_tokens: 9 } });
        const { events, error } = await collect(llm().stream(ask('hi')));
        expect(error).toBeNull();
        expect(contentOf(events).join('')).toBe(content);
        const response = doneOf(events)!;
        expect(response.message).toEqual({
          role: 'assistant',
          content,
          tool_calls: [
            { id: 'call_u', type: 'function', function: { name: 'note', arguments: '{"text":"Ünïcödé ✓ 🍵"}' } },
          ],
        });
        expect(response.usage).toEqual({ promptTokens: 3, completionTokens: 9, totalTokens: 12 });
      }
    });

    it('takes a whole JSON completion from a server that ignores stream: true', async () => {
      const completion = {
        id: 'c',
        object: 'chat.completion',
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: 'whole' }, finish_reason: 'stop' }],
      };
      double.reply({
        kind: 'raw',
        headers: { 'content-type': 'application/json' },
        chunks: [JSON.stringify(completion)],
      });
      const { events, error } = await collect(llm().stream(ask('hi')));
      expect(error).toBeNull();
      expect(contentOf(events)).toEqual(['whole']);
      expect(doneOf(events)?.message.content).toBe('whole');
    });

    it('fails with bad_response on a stream that ends without [DONE], and does not retry it', async () => {
      double.reply({ content: 'one two three four', endAfterEvents: 3 });
      const { events, error } = await collect(llm().stream(ask('count')));
      expect(contentOf(events)).toEqual(['one ', 'two ']);
      expect(error).toBeInstanceOf(LlmError);
      expect(error).toMatchObject({ kind: 'bad_response', status: 502, type: 'llm_bad_response' });
      expect(double.requests).toHaveLength(1);
    });

    it('fails with bad_response on a malformed chunk, and with unavailable on an error chunk', async () => {
      const ok =
        'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n';
      double.reply({
        kind: 'raw',
        chunks: [ok, 'data: {"id":"c","choices":[{"index":0,"delta":{"content":\n\n', 'data: [DONE]\n\n'],
      });
      const malformed = await collect(llm().stream(ask('hi')));
      expect(contentOf(malformed.events)).toEqual(['hi']);
      expect(malformed.error).toMatchObject({ kind: 'bad_response', status: 502 });

      double.reply({
        kind: 'raw',
        chunks: [ok, 'data: {"error":{"message":"The model is overloaded","type":"server_error"}}\n\n'],
      });
      const failed = await collect(llm().stream(ask('hi')));
      expect(failed.error).toMatchObject({ kind: 'unavailable', status: 502 });
      expect((failed.error as Error).message).toContain('The model is overloaded');
      expect(double.requests).toHaveLength(2);
    });

    it('closes the upstream request when the caller aborts its signal midway', async () => {
      double.reply({ content: 'one two three four five', stallAfterEvents: 3 });
      const controller = new AbortController();
      const seen: LlmStreamEvent[] = [];
      const iteration = (async () => {
        for await (const event of llm().stream(ask('count', { signal: controller.signal }))) {
          seen.push(event);
          if (event.type === 'content') controller.abort();
        }
      })();
      await expect(iteration).rejects.toMatchObject({ name: 'AbortError' });
      expect(contentOf(seen)).toEqual(['one ']);
      await expect(double.requests[0].closed).resolves.toBe('aborted');
    });

    it('closes the upstream request when the consumer leaves the iteration early', async () => {
      double.reply({ content: 'one two three four five', stallAfterEvents: 3 });
      for await (const event of llm().stream(ask('count'))) if (event.type === 'content') break;
      await expect(double.requests[0].closed).resolves.toBe('aborted');
    });

    it('does not send a request when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(collect(llm().stream(ask('hi', { signal: controller.signal })))).resolves.toMatchObject({
        error: { name: 'AbortError' },
      });
      await expect(llm().chat(ask('hi', { signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });
      expect(double.requests).toHaveLength(0);
    });
  });

  describe('failures', () => {
    it('retries a 429 with Retry-After: 0 and then succeeds', async () => {
      double.reply(
        { kind: 'error', status: 429, message: 'Rate limit reached', type: 'rate_limit_exceeded', retryAfter: 0 },
        'after the wait',
      );
      const response = await llm({ retryBaseMs: 60_000 }).chat(ask('hi'));
      expect(response.message.content).toBe('after the wait');
      expect(double.requests).toHaveLength(2);
    });

    it('retries a stream refused with 503 before it started', async () => {
      double.reply({ kind: 'error', status: 503, retryAfter: 0 }, { content: 'streamed after all' });
      const { events, error } = await collect(llm().stream(ask('hi')));
      expect(error).toBeNull();
      expect(doneOf(events)?.message.content).toBe('streamed after all');
      expect(double.requests).toHaveLength(2);
    });

    it('retries a dropped connection (a network failure before any byte)', async () => {
      double.reply({ kind: 'drop' }, 'reconnected');
      expect((await llm().chat(ask('hi'))).message.content).toBe('reconnected');
      expect(double.requests).toHaveLength(2);
    });

    it('gives up after maxRetries + 1 answers of 500 with LlmError unavailable (502)', async () => {
      double.reply(
        ...Array.from({ length: 3 }, () => ({ kind: 'error' as const, status: 500, message: 'upstream exploded' })),
        'too late',
      );
      const error = await rejection(llm({ maxRetries: 2 }).chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'unavailable', status: 502, type: 'llm_unavailable', upstreamStatus: 500 });
      expect(error.message).toContain('upstream exploded');
      expect(double.requests).toHaveLength(3);
    });

    it('fails at once with refused and the upstream message on a 400', async () => {
      double.reply({
        kind: 'error',
        status: 400,
        type: 'invalid_request_error',
        message: "This model's maximum context length is 8192 tokens.",
      });
      const error = await rejection(llm().chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'refused', status: 502, type: 'llm_refused', upstreamStatus: 400 });
      expect(error.message).toContain("This model's maximum context length is 8192 tokens.");
      expect(double.requests).toHaveLength(1);
    });

    it('refuses a redirect instead of following it (the key stays with the configured host)', async () => {
      double.reply({
        kind: 'raw',
        status: 301,
        headers: { location: 'http://elsewhere.invalid/v1/chat/completions' },
        chunks: [],
      });
      const error = await rejection(llm().chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'refused', upstreamStatus: 301 });
      expect(double.requests).toHaveLength(1);
    });

    it('times out (504) on a server that never answers, chat and stream alike, without retrying', async () => {
      double.reply({ kind: 'hang' }, { kind: 'hang' });
      const chat = await rejection(llm({ timeoutMs: 200 }).chat(ask('hi')));
      expect(chat).toMatchObject({ kind: 'timeout', status: 504, type: 'llm_timeout' });
      const stream = await collect(llm({ timeoutMs: 200 }).stream(ask('hi')));
      expect(stream.error).toMatchObject({ kind: 'timeout', status: 504 });
      expect(double.requests).toHaveLength(2);
      await expect(double.requests[0].closed).resolves.toBe('aborted');
    });

    it('times out (504) on a stream whose first chunk never comes', async () => {
      double.reply({ content: 'never', stallAfterEvents: 0 });
      const { events, error } = await collect(llm({ timeoutMs: 200 }).stream(ask('hi')));
      expect(events).toEqual([]);
      expect(error).toMatchObject({ kind: 'timeout', status: 504 });
    });

    it('times out (504) on a stream that goes silent midway', async () => {
      double.reply({ content: 'one two three four five', stallAfterEvents: 3 });
      const { events, error } = await collect(llm({ streamIdleTimeoutMs: 200 }).stream(ask('count')));
      expect(contentOf(events)).toEqual(['one ', 'two ']);
      expect(error).toMatchObject({ kind: 'timeout', status: 504 });
      await expect(double.requests[0].closed).resolves.toBe('aborted');
    });

    it('fails with unavailable when nothing listens at the URL', async () => {
      const url = double.url;
      await double.close();
      const error = await rejection(
        new OpenAiLlm({ baseUrl: url, apiKey: KEY, model: 'm', maxRetries: 1, retryBaseMs: 1 }).chat(ask('hi')),
      );
      expect(error).toMatchObject({ kind: 'unavailable', status: 502, upstreamStatus: null });
      expect(error.message).toContain('unreachable');
      double = await startChatCompletionsDouble();
    });
  });

  describe('the double', () => {
    it('echoes the last user message by default and lets a handler script a tool loop', async () => {
      expect((await llm().chat(ask('echo me'))).message.content).toBe('echo me');
      double.handle((body) =>
        body.messages.some((m) => m.role === 'tool')
          ? 'Found it.'
          : { toolCalls: [{ name: 'search', arguments: { query: 'x' } }] },
      );
      const tools = [{ type: 'function' as const, function: { name: 'search' } }];
      const first = await llm().chat(ask('find x', { tools }));
      expect(first.message.tool_calls?.[0].function).toEqual({ name: 'search', arguments: '{"query":"x"}' });
      const second = await llm().chat({
        messages: [
          ...ask('find x').messages,
          first.message,
          { role: 'tool', content: 'x is here', tool_call_id: first.message.tool_calls![0].id },
        ],
        tools,
      });
      expect(second.message.content).toBe('Found it.');
    });

    it('streams with a per-token delay', async () => {
      double.reply({ content: 'slow and steady', tokenDelayMs: 5 });
      const { events, error } = await collect(llm().stream(ask('hi')));
      expect(error).toBeNull();
      expect(contentOf(events)).toEqual(['slow ', 'and ', 'steady']);
    });

    it('refuses what OpenAI refuses, in its error shape', async () => {
      const res = await fetch(`${double.url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          messages: [{ role: 'user', content: 'hi' }],
          stream_options: { include_usage: true },
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'stream_options' } });
    });
  });

  describe('the API key', () => {
    it('never appears in the adapter as JSON, as inspected, or as a string', () => {
      const adapter = llm();
      expect(JSON.stringify(adapter)).not.toContain(KEY);
      expect(inspect(adapter, { depth: 5, showHidden: true })).not.toContain(KEY);
      expect(String(adapter)).not.toContain(KEY);
      expect(Object.values(adapter).map(String).join(' ')).not.toContain(KEY);
    });

    it('is replaced in upstream messages that echo it', async () => {
      const wrong = 'sk-wrong-9d8c7b6a5e4f';
      const adapter = new OpenAiLlm({ baseUrl: double.url, apiKey: wrong, model: 'm', retryBaseMs: 1 });
      const unauthorized = await rejection(adapter.chat(ask('hi')));
      expect(unauthorized).toMatchObject({ kind: 'refused', upstreamStatus: 401 });
      expect(double.requests[0].headers.authorization).toBe(`Bearer ${wrong}`);
      expect(unauthorized.message).toContain('Incorrect API key provided');
      expect(unauthorized.message).not.toContain(wrong);

      double.reply(
        ...Array.from({ length: 3 }, () => ({
          kind: 'error' as const,
          status: 502,
          message: `${'x'.repeat(290)} gateway saw key ${KEY} and gave up`,
        })),
      );
      const exhausted = await rejection(llm().chat(ask('hi')));
      expect(exhausted.message).not.toContain(KEY);
      expect(exhausted.message).not.toContain(KEY.slice(0, 8));
      expect(JSON.stringify(exhausted)).not.toContain(KEY);

      double.reply({ kind: 'raw', chunks: [`data: {"error":{"message":"bad key ${KEY}"}}\n\n`] });
      const midway = await collect(llm().stream(ask('hi')));
      expect((midway.error as Error).message).not.toContain(KEY);
      expect(inspect(midway.error)).not.toContain(KEY);
    });
  });

  describe('what it reads is bounded', () => {
    const big = 'word '.repeat(2000);

    it('refuses a completion larger than maxResponseBytes', async () => {
      double.reply({ content: big });
      const error = await rejection(llm({ maxResponseBytes: 4096 }).chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'bad_response', status: 502 });
      expect(error.message).toContain('exceeded 4096 bytes');
    });

    it('stops a stream once it has sent more than maxResponseBytes', async () => {
      double.reply({ content: big });
      const { events, error } = await collect(llm({ maxResponseBytes: 4096 }).stream(ask('hi')));
      expect(error).toBeInstanceOf(LlmError);
      expect((error as LlmError).kind).toBe('bad_response');
      expect(events.some((e) => e.type === 'done')).toBe(false);
    });

    it('reads an answer within the limit whole', async () => {
      double.reply({ content: big });
      expect((await llm({ maxResponseBytes: 64 * 1024 }).chat(ask('hi'))).message.content).toBe(big);
    });
  });
});
