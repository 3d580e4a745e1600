/** OpenAiLlm streaming: deltas, tool-call assembly, split bytes, broken streams and aborts. */
import { LlmError, LlmStreamEvent } from '../llm.port';
import { KEY, ask, chatDoubleHarness, collect, contentOf, doneOf } from '../testing/openai-llm.support';

describe('OpenAiLlm against a chat-completions double', () => {
  const h = chatDoubleHarness();
  const llm = h.llm;

  describe('stream', () => {
    it('streams content deltas in order, then one done with the assembled text and the usage chunk', async () => {
      h.double.reply({
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
      expect(h.double.requests[0].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      expect(h.double.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
    });

    it('assembles parallel tool calls streamed in interleaved pieces by their index', async () => {
      h.double.reply({
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
        h.double.reply({ content, toolCalls, byteSize, usage: { prompt_tokens: 3, completion_tokens: 9 } });
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
      h.double.reply({
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
      h.double.reply({ content: 'one two three four', endAfterEvents: 3 });
      const { events, error } = await collect(llm().stream(ask('count')));
      expect(contentOf(events)).toEqual(['one ', 'two ']);
      expect(error).toBeInstanceOf(LlmError);
      expect(error).toMatchObject({ kind: 'bad_response', status: 502, type: 'llm_bad_response' });
      expect(h.double.requests).toHaveLength(1);
    });

    it('fails with bad_response on a malformed chunk, and with unavailable on an error chunk', async () => {
      const ok =
        'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n';
      h.double.reply({
        kind: 'raw',
        chunks: [ok, 'data: {"id":"c","choices":[{"index":0,"delta":{"content":\n\n', 'data: [DONE]\n\n'],
      });
      const malformed = await collect(llm().stream(ask('hi')));
      expect(contentOf(malformed.events)).toEqual(['hi']);
      expect(malformed.error).toMatchObject({ kind: 'bad_response', status: 502 });

      h.double.reply({
        kind: 'raw',
        chunks: [ok, 'data: {"error":{"message":"The model is overloaded","type":"server_error"}}\n\n'],
      });
      const failed = await collect(llm().stream(ask('hi')));
      expect(failed.error).toMatchObject({ kind: 'unavailable', status: 502 });
      expect((failed.error as Error).message).toContain('The model is overloaded');
      expect(h.double.requests).toHaveLength(2);
    });

    it('closes the upstream request when the caller aborts its signal midway', async () => {
      h.double.reply({ content: 'one two three four five', stallAfterEvents: 3 });
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
      await expect(h.double.requests[0].closed).resolves.toBe('aborted');
    });

    it('closes the upstream request when the consumer leaves the iteration early', async () => {
      h.double.reply({ content: 'one two three four five', stallAfterEvents: 3 });
      for await (const event of llm().stream(ask('count'))) if (event.type === 'content') break;
      await expect(h.double.requests[0].closed).resolves.toBe('aborted');
    });

    it('does not send a request when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(collect(llm().stream(ask('hi', { signal: controller.signal })))).resolves.toMatchObject({
        error: { name: 'AbortError' },
      });
      await expect(llm().chat(ask('hi', { signal: controller.signal }))).rejects.toMatchObject({ name: 'AbortError' });
      expect(h.double.requests).toHaveLength(0);
    });
  });
});
