import type { LlmToolCall } from '@larder/ai';
import type { FileCitation } from '../chat/citations';
import type { LoopEvents } from '../chat/tool-loop';

/** Where a streamed response's events go (an `EventStream`: one named server-sent event each). */
export interface ResponseEventSink {
  start(): void;
  event(type: string, payload: Record<string, unknown>): void;
}

type Item = Record<string, unknown> & { id: string; type: string };

/** `file_search_call` result: OpenAI's fields, from a store search's chunk. */
interface ChunkLike {
  file_id: string;
  filename: string;
  score: number;
  text?: string | null;
  summary?: string | null;
  metadata?: unknown;
}

const fileSearchItem = (hosted: Record<string, unknown>, include: boolean): Item => ({
  id: `fs_${String(hosted.id).replace(/^call_/, '')}`,
  type: 'file_search_call',
  status: hosted.status === 'failed' ? 'failed' : hosted.status === 'in_progress' ? 'in_progress' : 'completed',
  queries: Array.isArray(hosted.queries) ? hosted.queries : [],
  results:
    include && Array.isArray(hosted.results)
      ? (hosted.results as ChunkLike[]).map((c) => ({
          file_id: c.file_id,
          filename: c.filename,
          score: c.score,
          text: c.text ?? c.summary ?? '',
          attributes: c.metadata && typeof c.metadata === 'object' && !Array.isArray(c.metadata) ? c.metadata : {},
        }))
      : null,
});

/** OpenAI's `file_citation` annotation (Larder adds the chunk and the store it came from). */
const annotationOf = (a: FileCitation) => ({
  type: 'file_citation',
  file_id: a.file_id,
  filename: a.filename,
  index: a.index,
  chunk_id: a.chunk_id,
  store_id: a.store_id,
});

/**
 * The `output` items of one response as the tool loop produces them: file search calls, function
 * calls and the assistant's message, in the order they happened. With a sink (a streamed response),
 * each step is also sent as OpenAI's events (`response.output_item.added`, `response.file_search_call.*`,
 * `response.output_text.delta`, …), each with its `sequence_number`.
 */
export class ResponseOutput implements LoopEvents {
  readonly items: Item[] = [];
  private message: (Item & { content: Array<Record<string, unknown>> }) | null = null;
  private text = '';
  private sequence = 0;

  constructor(
    private readonly ids: () => string,
    private readonly include: boolean,
    private readonly sink?: ResponseEventSink,
  ) {}

  /** Sends one event (streamed responses only). */
  emit(type: string, payload: Record<string, unknown>): void {
    this.sink?.event(type, { type, sequence_number: this.sequence++, ...payload });
  }

  private indexOf(item: Item): number {
    return this.items.indexOf(item);
  }

  content(delta: string): void {
    if (!delta) return;
    if (!this.message) {
      this.message = {
        id: `msg_${this.ids()}`,
        type: 'message',
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      this.items.push(this.message);
      this.emit('response.output_item.added', {
        output_index: this.indexOf(this.message),
        item: { ...this.message, content: [] },
      });
      this.emit('response.content_part.added', {
        item_id: this.message.id,
        output_index: this.indexOf(this.message),
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    }
    this.text += delta;
    this.emit('response.output_text.delta', {
      item_id: this.message.id,
      output_index: this.indexOf(this.message),
      content_index: 0,
      delta,
      logprobs: [],
    });
  }

  hostedToolCall(hosted: Record<string, unknown>): void {
    const item = fileSearchItem(hosted, this.include);
    const known = this.items.find((i) => i.id === item.id);
    if (!known) {
      this.items.push(item);
      const at = { output_index: this.indexOf(item), item_id: item.id };
      this.emit('response.output_item.added', {
        output_index: at.output_index,
        item: { ...item, status: 'in_progress', results: null },
      });
      this.emit('response.file_search_call.in_progress', at);
      this.emit('response.file_search_call.searching', at);
      if (item.status === 'in_progress') return;
    } else Object.assign(known, item);
    const done = known ?? item;
    this.emit('response.file_search_call.completed', { output_index: this.indexOf(done), item_id: done.id });
    this.emit('response.output_item.done', { output_index: this.indexOf(done), item: done });
  }

  toolCalls(calls: LlmToolCall[]): void {
    for (const c of calls) {
      const item: Item = {
        id: `fc_${this.ids()}`,
        type: 'function_call',
        status: 'completed',
        call_id: c.id,
        name: c.function.name,
        arguments: c.function.arguments,
      };
      this.items.push(item);
      const output_index = this.indexOf(item);
      this.emit('response.output_item.added', {
        output_index,
        item: { ...item, status: 'in_progress', arguments: '' },
      });
      this.emit('response.function_call_arguments.delta', {
        item_id: item.id,
        output_index,
        delta: c.function.arguments,
      });
      this.emit('response.function_call_arguments.done', {
        item_id: item.id,
        output_index,
        arguments: c.function.arguments,
      });
      this.emit('response.output_item.done', { output_index, item });
    }
  }

  /** Closes the message (its final text, without citation markers, and its annotations); answers the output. */
  finish(text: string | null, annotations: FileCitation[]): Item[] {
    if (text && !this.message) this.content(text);
    const m = this.message;
    if (m) {
      const at = { item_id: m.id, output_index: this.indexOf(m), content_index: 0 };
      const list = annotations.map(annotationOf);
      list.forEach((annotation, annotation_index) =>
        this.emit('response.output_text.annotation.added', { ...at, annotation_index, annotation }),
      );
      const part = { type: 'output_text', text: text ?? this.text, annotations: list, logprobs: [] };
      this.emit('response.output_text.done', { ...at, text: part.text, logprobs: [] });
      this.emit('response.content_part.done', { ...at, part });
      m.content = [part];
      m.status = 'completed';
      this.emit('response.output_item.done', { output_index: at.output_index, item: m });
    }
    return this.items;
  }
}
