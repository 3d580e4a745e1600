/** OpenAiLlm chat against the chat-completions double, and the double's own scripted behaviour. */
import { startChatCompletionsDouble } from '../testing/chat-completions-double';
import { KEY, ask, chatDoubleHarness, collect, contentOf } from '../testing/openai-llm.support';
import { OpenAiLlm } from './openai.llm';

describe('OpenAiLlm against a chat-completions double', () => {
  const h = chatDoubleHarness();
  const llm = h.llm;

  describe('chat', () => {
    it('answers a plain completion with its usage and model, and sends the request in the wire format', async () => {
      h.double.reply({
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
      expect(h.double.requests).toHaveLength(1);
      const { body, headers } = h.double.requests[0];
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
      await h.double.close();
      h.double = await startChatCompletionsDouble();
      h.double.reply({ content: 'hi', usage: null });
      const response = await new OpenAiLlm({ baseUrl: `${h.double.url}/`, apiKey: null, model: 'm' }).chat(
        ask('hello'),
      );
      expect(response.usage).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
      expect(response.message.content).toBe('hi');
      expect(h.double.requests[0].headers.authorization).toBeUndefined();
    });

    it('returns tool calls and sends tools, tool choice and a tool round trip in the wire format', async () => {
      h.double.reply({
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
      const { body } = h.double.requests[0];
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
      expect(h.double.requests[0].body).not.toHaveProperty('tools');
      expect(h.double.requests[0].body).not.toHaveProperty('tool_choice');
      expect(h.double.requests[0].body).not.toHaveProperty('parallel_tool_calls');
    });
  });

  describe('the double', () => {
    it('echoes the last user message by default and lets a handler script a tool loop', async () => {
      expect((await llm().chat(ask('echo me'))).message.content).toBe('echo me');
      h.double.handle((body) =>
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
      h.double.reply({ content: 'slow and steady', tokenDelayMs: 5 });
      const { events, error } = await collect(llm().stream(ask('hi')));
      expect(error).toBeNull();
      expect(contentOf(events)).toEqual(['slow ', 'and ', 'steady']);
    });

    it('refuses what OpenAI refuses, in its error shape', async () => {
      const res = await fetch(`${h.double.url}/chat/completions`, {
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
});
