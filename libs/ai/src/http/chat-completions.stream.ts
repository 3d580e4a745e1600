import { LlmError, LlmResponse, LlmStreamEvent, LlmToolCall, LlmUsage, NO_USAGE } from '../llm.port';
import { argumentsText, finishReason, isRecord, upstreamMessage, usageOf } from './chat-completions.wire';

/** Folds the chunks of a `chat.completion.chunk` stream into deltas and, at the end, the whole response. */
export class StreamAssembly {
  private text = '';
  private readonly calls = new Map<number, { id: string | null; name: string | null; arguments: string }>();
  private finish: unknown = null;
  private usage: LlmUsage | null = null;

  constructor(
    private model: string,
    private readonly error: (message: string, kind: LlmError['kind']) => LlmError,
  ) {}

  add(data: string): LlmStreamEvent[] {
    if (data.trim() === '') return [];
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw this.error(`The LLM stream carried a chunk that is not JSON: ${data}`, 'bad_response');
    }
    if (!isRecord(chunk)) throw this.error('The LLM stream carried a chunk that is not an object', 'bad_response');
    if (chunk.error != null)
      throw this.error(
        `The LLM endpoint failed midway through the stream: ${upstreamMessage(chunk.error)}`,
        'unavailable',
      );
    if (typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (isRecord(chunk.usage)) this.usage = usageOf(chunk.usage);
    if (chunk.choices == null) return [];
    if (!Array.isArray(chunk.choices))
      throw this.error('The LLM stream carried a chunk whose choices are not a list', 'bad_response');
    const events: LlmStreamEvent[] = [];
    for (const choice of chunk.choices) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0) continue;
      if (typeof choice.finish_reason === 'string') this.finish = choice.finish_reason;
      const delta = choice.delta;
      if (!isRecord(delta)) continue;
      if (typeof delta.content === 'string' && delta.content) {
        this.text += delta.content;
        events.push({ type: 'content', delta: delta.content });
      }
      if (!Array.isArray(delta.tool_calls)) continue;
      for (const [position, piece] of delta.tool_calls.entries()) {
        if (!isRecord(piece))
          throw this.error('The LLM stream carried a tool call piece that is not an object', 'bad_response');
        const index =
          typeof piece.index === 'number' && Number.isInteger(piece.index) && piece.index >= 0 ? piece.index : position;
        const fn = isRecord(piece.function) ? piece.function : {};
        let call = this.calls.get(index);
        if (!call) this.calls.set(index, (call = { id: null, name: null, arguments: '' }));
        const event: LlmStreamEvent & { type: 'tool_call' } = {
          type: 'tool_call',
          index,
          argumentsDelta: fn.arguments == null ? '' : argumentsText(fn.arguments),
        };
        if (typeof piece.id === 'string' && piece.id && call.id === null) event.id = call.id = piece.id;
        if (typeof fn.name === 'string' && fn.name && call.name === null) event.name = call.name = fn.name;
        call.arguments += event.argumentsDelta;
        if (event.id !== undefined || event.name !== undefined || event.argumentsDelta) events.push(event);
      }
    }
    return events;
  }

  response(): LlmResponse {
    const toolCalls: LlmToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => {
        if (call.name === null)
          throw this.error(`The LLM stream's tool call ${index} has no function name`, 'bad_response');
        return {
          id: call.id ?? `call_${index}`,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        };
      });
    return {
      message: {
        role: 'assistant',
        content: this.text !== '' ? this.text : toolCalls.length ? null : '',
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      },
      finishReason: finishReason(this.finish, toolCalls.length > 0),
      usage: this.usage ?? { ...NO_USAGE },
      model: this.model,
    };
  }
}
