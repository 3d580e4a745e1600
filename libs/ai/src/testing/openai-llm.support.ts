/** OpenAiLlm spec support: the double's API key, a request builder, and stream and rejection collectors. */
import { LlmError, LlmRequest, LlmStreamEvent } from '../llm.port';

/** The API key the double requires. */
export const KEY = 'sk-test-4f1c9a77e0b2d5';
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
