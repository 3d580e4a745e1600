/** OpenAiLlm failures: retries, refusals, timeouts, the API key kept out of errors, and read bounds. */
import { inspect } from 'util';
import { LlmError } from '../llm.port';
import { startChatCompletionsDouble } from '../testing/chat-completions-double';
import { KEY, ask, chatDoubleHarness, collect, contentOf, doneOf, rejection } from '../testing/openai-llm.support';
import { OpenAiLlm } from './openai.llm';

describe('OpenAiLlm against a chat-completions double', () => {
  const h = chatDoubleHarness();
  const llm = h.llm;

  describe('failures', () => {
    it('retries a 429 with Retry-After: 0 and then succeeds', async () => {
      h.double.reply(
        { kind: 'error', status: 429, message: 'Rate limit reached', type: 'rate_limit_exceeded', retryAfter: 0 },
        'after the wait',
      );
      const response = await llm({ retryBaseMs: 60_000 }).chat(ask('hi'));
      expect(response.message.content).toBe('after the wait');
      expect(h.double.requests).toHaveLength(2);
    });

    it('retries a stream refused with 503 before it started', async () => {
      h.double.reply({ kind: 'error', status: 503, retryAfter: 0 }, { content: 'streamed after all' });
      const { events, error } = await collect(llm().stream(ask('hi')));
      expect(error).toBeNull();
      expect(doneOf(events)?.message.content).toBe('streamed after all');
      expect(h.double.requests).toHaveLength(2);
    });

    it('retries a dropped connection (a network failure before any byte)', async () => {
      h.double.reply({ kind: 'drop' }, 'reconnected');
      expect((await llm().chat(ask('hi'))).message.content).toBe('reconnected');
      expect(h.double.requests).toHaveLength(2);
    });

    it('gives up after maxRetries + 1 answers of 500 with LlmError unavailable (502)', async () => {
      h.double.reply(
        ...Array.from({ length: 3 }, () => ({ kind: 'error' as const, status: 500, message: 'upstream exploded' })),
        'too late',
      );
      const error = await rejection(llm({ maxRetries: 2 }).chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'unavailable', status: 502, type: 'llm_unavailable', upstreamStatus: 500 });
      expect(error.message).toContain('upstream exploded');
      expect(h.double.requests).toHaveLength(3);
    });

    it('fails at once with refused and the upstream message on a 400', async () => {
      h.double.reply({
        kind: 'error',
        status: 400,
        type: 'invalid_request_error',
        message: "This model's maximum context length is 8192 tokens.",
      });
      const error = await rejection(llm().chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'refused', status: 502, type: 'llm_refused', upstreamStatus: 400 });
      expect(error.message).toContain("This model's maximum context length is 8192 tokens.");
      expect(h.double.requests).toHaveLength(1);
    });

    it('refuses a redirect instead of following it (the key stays with the configured host)', async () => {
      h.double.reply({
        kind: 'raw',
        status: 301,
        headers: { location: 'http://elsewhere.invalid/v1/chat/completions' },
        chunks: [],
      });
      const error = await rejection(llm().chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'refused', upstreamStatus: 301 });
      expect(h.double.requests).toHaveLength(1);
    });

    it('times out (504) on a server that never answers, chat and stream alike, without retrying', async () => {
      h.double.reply({ kind: 'hang' }, { kind: 'hang' });
      const chat = await rejection(llm({ timeoutMs: 200 }).chat(ask('hi')));
      expect(chat).toMatchObject({ kind: 'timeout', status: 504, type: 'llm_timeout' });
      const stream = await collect(llm({ timeoutMs: 200 }).stream(ask('hi')));
      expect(stream.error).toMatchObject({ kind: 'timeout', status: 504 });
      expect(h.double.requests).toHaveLength(2);
      await expect(h.double.requests[0].closed).resolves.toBe('aborted');
    });

    it('times out (504) on a stream whose first chunk never comes', async () => {
      h.double.reply({ content: 'never', stallAfterEvents: 0 });
      const { events, error } = await collect(llm({ timeoutMs: 200 }).stream(ask('hi')));
      expect(events).toEqual([]);
      expect(error).toMatchObject({ kind: 'timeout', status: 504 });
    });

    it('times out (504) on a stream that goes silent midway', async () => {
      h.double.reply({ content: 'one two three four five', stallAfterEvents: 3 });
      const { events, error } = await collect(llm({ streamIdleTimeoutMs: 200 }).stream(ask('count')));
      expect(contentOf(events)).toEqual(['one ', 'two ']);
      expect(error).toMatchObject({ kind: 'timeout', status: 504 });
      await expect(h.double.requests[0].closed).resolves.toBe('aborted');
    });

    it('fails with unavailable when nothing listens at the URL', async () => {
      const url = h.double.url;
      await h.double.close();
      const error = await rejection(
        new OpenAiLlm({ baseUrl: url, apiKey: KEY, model: 'm', maxRetries: 1, retryBaseMs: 1 }).chat(ask('hi')),
      );
      expect(error).toMatchObject({ kind: 'unavailable', status: 502, upstreamStatus: null });
      expect(error.message).toContain('unreachable');
      h.double = await startChatCompletionsDouble();
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
      const adapter = new OpenAiLlm({ baseUrl: h.double.url, apiKey: wrong, model: 'm', retryBaseMs: 1 });
      const unauthorized = await rejection(adapter.chat(ask('hi')));
      expect(unauthorized).toMatchObject({ kind: 'refused', upstreamStatus: 401 });
      expect(h.double.requests[0].headers.authorization).toBe(`Bearer ${wrong}`);
      expect(unauthorized.message).toContain('Incorrect API key provided');
      expect(unauthorized.message).not.toContain(wrong);

      h.double.reply(
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

      h.double.reply({ kind: 'raw', chunks: [`data: {"error":{"message":"bad key ${KEY}"}}\n\n`] });
      const midway = await collect(llm().stream(ask('hi')));
      expect((midway.error as Error).message).not.toContain(KEY);
      expect(inspect(midway.error)).not.toContain(KEY);
    });
  });

  describe('what it reads is bounded', () => {
    const big = 'word '.repeat(2000);

    it('refuses a completion larger than maxResponseBytes', async () => {
      h.double.reply({ content: big });
      const error = await rejection(llm({ maxResponseBytes: 4096 }).chat(ask('hi')));
      expect(error).toMatchObject({ kind: 'bad_response', status: 502 });
      expect(error.message).toContain('exceeded 4096 bytes');
    });

    it('stops a stream once it has sent more than maxResponseBytes', async () => {
      h.double.reply({ content: big });
      const { events, error } = await collect(llm({ maxResponseBytes: 4096 }).stream(ask('hi')));
      expect(error).toBeInstanceOf(LlmError);
      expect((error as LlmError).kind).toBe('bad_response');
      expect(events.some((e) => e.type === 'done')).toBe(false);
    });

    it('reads an answer within the limit whole', async () => {
      h.double.reply({ content: big });
      expect((await llm({ maxResponseBytes: 64 * 1024 }).chat(ask('hi'))).message.content).toBe(big);
    });
  });
});
