/** OpenAiLlm spec support: a double per test, its API key, a request builder, and stream and rejection collectors. */
import { OpenAiLlm, OpenAiLlmOptions } from '../http/openai.llm';
import { LlmError, LlmRequest, LlmStreamEvent } from '../llm.port';
import { ChatCompletionsDouble, startChatCompletionsDouble } from './chat-completions-double';

/** The API key the double requires. */
export const KEY = 'sk-test-4f1c9a77e0b2d5';
/**
 * A chat-completions double started before each test of the calling `describe` and closed after it
 * (`h.double`, which a test may replace), and an `OpenAiLlm` on it with fast retries (`h.llm`).
 */
export function chatDoubleHarness() {
  const h = {
    double: undefined as unknown as ChatCompletionsDouble,
    llm: (options: Partial<OpenAiLlmOptions> = {}) =>
      new OpenAiLlm({ baseUrl: h.double.url, apiKey: KEY, model: 'test-model', retryBaseMs: 1, ...options }),
  };
  beforeEach(async () => {
    h.double = await startChatCompletionsDouble({ apiKey: KEY });
  });
  afterEach(() => h.double.close());
  return h;
}

export const ask = (text: string, extra: Partial<LlmRequest> = {}): LlmRequest => ({
  messages: [{ role: 'user', content: text }],
  ...extra,
});

export async function collect(
  events: AsyncIterable<LlmStreamEvent>,
): Promise<{ events: LlmStreamEvent[]; error: unknown }> {
  const seen: LlmStreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { events: seen, error };
  }
  return { events: seen, error: null };
}

export const contentOf = (events: LlmStreamEvent[]) => events.flatMap((e) => (e.type === 'content' ? [e.delta] : []));
export const doneOf = (events: LlmStreamEvent[]) => {
  const done = events.filter((e) => e.type === 'done');
  expect(done).toHaveLength(1);
  expect(events[events.length - 1]).toBe(done[0]);
  return done[0].type === 'done' ? done[0].response : null;
};

export async function rejection(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(LlmError);
  return error as LlmError;
}
