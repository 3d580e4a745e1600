import { Llm, LlmError, LlmMessage, LlmUsage } from '@larder/ai';
import { citeMarker } from './extractive-answer';
import { spentSoFar } from './spent-so-far';

/** Characters of one source passage put before the model (longer passages are cut). */
const SOURCE_CHARS = 2_000;
/** Characters of all passages together. */
const CONTEXT_CHARS = 24_000;

export interface LlmAnswer {
  answer: string;
  cited: number[];
  usage: LlmUsage;
  model: string;
  /** Why the model stopped, and how many messages it was sent (for the run's record of its model turn). */
  finishReason: string;
  messages: number;
  /** The client hung up: `answer` is what was streamed until then, `usage` the estimate of what that cost. */
  interrupted?: boolean;
}

/** The messages that ask the model to answer from numbered sources, citing them. */
export function answerMessages(
  question: string,
  sources: Array<{ text: string; filename: string }>,
  options: { cite: boolean; instructions: string | null },
): LlmMessage[] {
  const rules = [
    'You answer questions using only the numbered sources the user gives you.',
    options.cite
      ? `After each statement, cite the source it comes from as ${citeMarker(0).replace('0', 'N')} where N is the source number (for example ${citeMarker(2)}); cite several sources with several markers.`
      : 'Do not cite sources or mention their numbers.',
    'If the sources do not contain the answer, say that they do not; never answer from other knowledge.',
    'Answer concisely, in the language of the question.',
  ];
  if (options.instructions)
    rules.push(
      `Additional instructions (follow them unless they conflict with the rules above): ${options.instructions}`,
    );
  let budget = CONTEXT_CHARS;
  const blocks: string[] = [];
  sources.forEach((s, i) => {
    if (budget <= 0) return;
    const text = s.text.slice(0, Math.min(SOURCE_CHARS, budget));
    budget -= text.length;
    blocks.push(`[${i}] ${s.filename}\n${text}`);
  });
  return [
    { role: 'system', content: rules.join('\n') },
    { role: 'user', content: `Sources:\n\n${blocks.join('\n\n')}\n\nQuestion: ${question}` },
  ];
}

/** Source indices cited in an answer (`<cite i="N"/>` and `<cite i="N-M"/>`), in order of first citation, within range. */
export function citedSources(answer: string, sourceCount: number): number[] {
  const out: number[] = [];
  for (const m of answer.matchAll(/<cite i="(\d+)(?:-(\d+))?"/g)) {
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    for (let i = from; i <= Math.min(to, from + 50); i++) if (i < sourceCount && !out.includes(i)) out.push(i);
  }
  return out;
}

/**
 * Generates the answer with the model, streaming its text through `onDelta` as it arrives. A model
 * error ends the request with its 502/504 (no answer is invented instead). When `signal` aborts (the
 * client hung up) it answers what was streamed until then, marked `interrupted`.
 */
export async function llmAnswer(
  llm: Llm,
  question: string,
  sources: Array<{ text: string; filename: string }>,
  options: { cite: boolean; instructions: string | null; signal?: AbortSignal; onDelta?: (delta: string) => void },
): Promise<LlmAnswer> {
  const messages = answerMessages(question, sources, options);
  let delivered = '';
  /** `called`: the model was asked (its prompt counts). */
  const partial = (called = true): LlmAnswer => ({
    answer: delivered,
    cited: options.cite ? citedSources(delivered, sources.length) : [],
    usage: called ? spentSoFar(messages, delivered) : { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    model: llm.model,
    finishReason: 'client_disconnected',
    messages: messages.length,
    interrupted: true,
  });
  if (options.signal?.aborted) return partial(false);
  try {
    for await (const e of llm.stream({ messages, temperature: 0, signal: options.signal })) {
      if (e.type === 'content') {
        delivered += e.delta;
        options.onDelta?.(e.delta);
      } else if (e.type === 'done') {
        const answer = e.response.message.content ?? '';
        return {
          answer,
          cited: options.cite ? citedSources(answer, sources.length) : [],
          usage: e.response.usage,
          model: e.response.model || llm.model,
          finishReason: e.response.finishReason,
          messages: messages.length,
        };
      }
    }
  } catch (err) {
    // a client that hung up: what the model had done until then is answered (and recorded by the caller)
    if (options.signal?.aborted) return partial();
    throw err;
  }
  if (options.signal?.aborted) return partial();
  throw new LlmError('The model stream ended without a final response', 'bad_response');
}
