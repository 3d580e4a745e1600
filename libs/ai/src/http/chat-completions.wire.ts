import { LlmError, LlmFinishReason, LlmRequest, LlmResponse, LlmToolCall, LlmUsage, NO_USAGE } from '../llm.port';

/** Makes the error for a malformed or failed answer (the adapter scrubs and shortens its message). */
export type WireError = (message: string, kind: LlmError['kind'], upstreamStatus: number | null) => LlmError;

/** The `POST /chat/completions` body of a request, streamed or not. */
export function requestBody(model: string, request: LlmRequest, stream: boolean): Record<string, unknown> {
  const tools = request.tools?.length ? request.tools : undefined;
  return {
    model,
    messages: request.messages.map((m) => ({
      role: m.role,
      content: m.content,
      ...(m.tool_calls?.length
        ? {
            tool_calls: m.tool_calls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.function.name, arguments: c.function.arguments },
            })),
          }
        : {}),
      ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
      ...(m.name !== undefined ? { name: m.name } : {}),
    })),
    // servers refuse tool_choice and parallel_tool_calls without tools
    ...(tools ? { tools, tool_choice: request.toolChoice, parallel_tool_calls: request.parallelToolCalls } : {}),
    temperature: request.temperature,
    top_p: request.topP,
    max_tokens: request.maxTokens,
    ...(request.json ? { response_format: { type: 'json_object' } } : {}),
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** A whole `chat.completion` object as a response; `error` makes the error thrown for a malformed one. */
export function parseCompletion(text: string, model: string, error: WireError): LlmResponse {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw error(`The LLM endpoint answered something that is not JSON: ${text}`, 'bad_response', null);
  }
  if (!isRecord(body))
    throw error('The LLM endpoint answered JSON that is not a chat completion', 'bad_response', null);
  const choice: unknown = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice) || !isRecord(choice.message)) {
    if (body.error != null) throw error(`The LLM endpoint failed: ${upstreamMessage(body.error)}`, 'unavailable', null);
    throw error('The LLM endpoint answered a chat completion without a message', 'bad_response', null);
  }
  const message = choice.message;
  const content = contentText(message.content);
  if (content === undefined)
    throw error('The LLM endpoint answered a message whose content is neither text nor null', 'bad_response', null);
  const toolCalls: LlmToolCall[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const [i, call] of message.tool_calls.entries()) {
      const fn: unknown = isRecord(call) ? call.function : undefined;
      if (!isRecord(call) || !isRecord(fn) || typeof fn.name !== 'string' || !fn.name)
        throw error(`The LLM endpoint answered tool call ${i} without a function name`, 'bad_response', null);
      toolCalls.push({
        id: typeof call.id === 'string' && call.id ? call.id : `call_${i}`,
        type: 'function',
        function: { name: fn.name, arguments: argumentsText(fn.arguments) },
      });
    }
  }
  return {
    message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
    finishReason: finishReason(choice.finish_reason, toolCalls.length > 0),
    usage: isRecord(body.usage) ? usageOf(body.usage) : { ...NO_USAGE },
    model: typeof body.model === 'string' && body.model ? body.model : model,
  };
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The human part of an upstream error body: `{error:{message}}`, `{error:"…"}`, `{message}`, `{detail}`, or the text itself. */
export function upstreamMessage(body: unknown): string {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      value = body;
    }
  }
  if (isRecord(value)) {
    const inner = isRecord(value.error) ? value.error : value;
    for (const candidate of [value.error, inner.message, value.message, value.detail])
      if (typeof candidate === 'string' && candidate.trim()) return candidate.trim();
  }
  const text = typeof value === 'string' ? value : typeof body === 'string' ? body : JSON.stringify(body);
  return text.trim() || '(empty body)';
}

/** Message content: text, null, or a list of text parts (joined); undefined when it is none of these. */
function contentText(content: unknown): string | null | undefined {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return undefined;
}

/** Tool arguments as JSON text (some servers send an object). */
export const argumentsText = (args: unknown): string =>
  typeof args === 'string' ? args : args === undefined || args === null ? '{}' : JSON.stringify(args);

export function finishReason(raw: unknown, hasToolCalls: boolean): LlmFinishReason {
  if (raw === 'length' || raw === 'content_filter') return raw;
  if (raw === 'tool_calls' || raw === 'function_call' || hasToolCalls) return 'tool_calls';
  return 'stop';
}

export function usageOf(usage: Record<string, unknown>): LlmUsage {
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  return { promptTokens, completionTokens, totalTokens: count(usage.total_tokens) || promptTokens + completionTokens };
}
