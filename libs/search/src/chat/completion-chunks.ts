import type { FileCitation } from './citations';

/** Where streamed chunks go (an `EventStream`: one unnamed `data:` event each, then `[DONE]`). */
export interface ChunkSink {
  start(): void;
  data(payload: Record<string, unknown>): void;
}

/**
 * OpenAI-style `chat.completion.chunk` events of one completion: the role first, then content
 * deltas (citation markers already removed), `hosted_tool_calls` as extra chunks with no choices
 * (in progress, then done), client tool calls, and a last chunk with the finish reason, the
 * annotations, the tool tickets and the usage. The caller ends the stream with `[DONE]`.
 */
export class CompletionChunks {
  private opened = false;

  constructor(
    private readonly sink: ChunkSink,
    private readonly id: string,
    private readonly created: number,
    private readonly model: string,
  ) {}

  private chunk(choices: unknown[], extra: Record<string, unknown> = {}): void {
    this.sink.data({
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices,
      ...extra,
    });
  }

  open(): void {
    if (this.opened) return;
    this.opened = true;
    this.sink.start();
    this.chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
  }

  content(text: string): void {
    if (!text) return;
    this.open();
    this.chunk([{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]);
  }

  hostedToolCall(item: Record<string, unknown>): void {
    this.open();
    this.chunk([], { hosted_tool_calls: [item] });
  }

  toolCalls(calls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>): void {
    if (!calls.length) return;
    this.open();
    this.chunk([
      {
        index: 0,
        delta: { tool_calls: calls.map((c, index) => ({ index, ...c })) },
        logprobs: null,
        finish_reason: null,
      },
    ]);
  }

  finish(finishReason: string, annotations: FileCitation[], extra: Record<string, unknown>): void {
    this.open();
    this.chunk(
      [{ index: 0, delta: annotations.length ? { annotations } : {}, logprobs: null, finish_reason: finishReason }],
      extra,
    );
  }
}
