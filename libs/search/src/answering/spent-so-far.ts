import type { LlmMessage, LlmUsage } from '@larder/ai';
import { estimateTokens } from '@larder/ingestion';

/**
 * What a model call cut short by a client that hung up spent until then, in Larder's token estimate:
 * the messages it was sent, and the text it had streamed (the model reports no usage for a request
 * it did not finish).
 */
export function spentSoFar(messages: readonly LlmMessage[], delivered: string): LlmUsage {
  const promptTokens = messages.reduce(
    (n, m) => n + estimateTokens(m.content ?? '') + (m.tool_calls ? estimateTokens(JSON.stringify(m.tool_calls)) : 0),
    0,
  );
  const completionTokens = delivered ? estimateTokens(delivered) : 0;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
