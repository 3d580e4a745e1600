import {
  addUsage,
  Llm,
  LlmError,
  LlmFinishReason,
  LlmMessage,
  LlmRequest,
  LlmResponse,
  LlmTool,
  LlmToolCall,
  LlmToolChoice,
  LlmUsage,
  NO_USAGE,
} from '@larder/ai';
import type { AgenticToolCallRecorded } from '../events';
import { spentSoFar } from '../answering/spent-so-far';
import { CitationExtractor, CitedSource, FileCitation } from './citations';
import type { HostedToolDecl, HostedToolOutcome } from './hosted-tool-functions';
import { turnContent } from './completion-summary';
import type { ChatToolChoice } from '../commands/create-chat-completion/create-chat-completion.request.dto';

/** Where a streamed turn's progress goes as it happens (chat completion chunks, or the Responses API's events). */
export interface LoopEvents {
  content(text: string): void;
  /** A hosted tool call: first `{type, id, status: 'in_progress'}`, then its outcome's item. */
  hostedToolCall(item: Record<string, unknown>): void;
  toolCalls(calls: LlmToolCall[]): void;
}

export interface ToolLoopInput {
  llm: Llm;
  /** The whole conversation the model sees first (history, the request's messages; the system rules when hosted tools are declared). */
  messages: LlmMessage[];
  hosted: HostedToolDecl[];
  /** Hosted tools as functions (same order as `hosted`), then the caller's function tools. */
  tools: LlmTool[];
  toolChoice: ChatToolChoice | null;
  parallelToolCalls: boolean | null;
  maxToolCalls: number;
  temperature: number | null;
  topP: number | null;
  maxTokens: number | null;
  /** Numbered passages (the conversation's earlier ones first); hosted tools append to it. */
  sources: CitedSource[];
  runHosted(decl: HostedToolDecl, call: LlmToolCall): Promise<HostedToolOutcome>;
  /** Streamed turns: their progress goes here as it happens (and the model is streamed). */
  chunks?: LoopEvents;
  /** Whether the model is asked for a stream (default: when `chunks` is given). */
  streamModel?: boolean;
  signal?: AbortSignal;
  now(): Date;
}

export interface ToolLoopResult {
  content: string | null;
  annotations: FileCitation[];
  /** Client function tool calls returned to the caller. */
  clientToolCalls: LlmToolCall[];
  /** `client_disconnected`: the client hung up; the result holds what was done and sent until then. */
  finishReason: 'stop' | 'tool_calls' | 'length' | 'client_disconnected';
  usage: LlmUsage;
  records: AgenticToolCallRecorded[];
  hostedItems: Record<string, unknown>[];
  /** The messages this turn added after the request's (assistant turns with their tool calls, tool results, the answer). */
  added: LlmMessage[];
  storeIds: string[];
  responseModel: string;
  /** Milliseconds from the start to the first content sent (null: none). */
  firstContentMs: number | null;
}

/** The rules the model gets when hosted tools are declared (a request without them is sent as it is). */
export function hostedToolRules(hosted: HostedToolDecl[]): string {
  const cite = hosted.some((h) => h.citations);
  return [
    'You can use tools that search the user’s document stores. Use them to find the information you need before you answer, and answer from what they return.',
    'Tool results are numbered passages such as [3].',
    cite
      ? 'After each statement that uses a passage, cite it as <cite i="N"/> where N is the passage number (for example <cite i="3"/>); cite several passages with several markers. Do not cite passages you did not use.'
      : 'Do not cite passage numbers.',
    'If the stores do not contain the answer, say so.',
  ].join('\n');
}

const toolChoiceFor = (c: ChatToolChoice | null): LlmToolChoice | undefined => {
  if (c === null) return undefined;
  if (typeof c === 'string') return c;
  if (c.type === 'function' && 'function' in c) return c;
  return { type: 'function', function: { name: c.type } };
};

/**
 * One chat completion request: the model and the hosted tools in turn until the model answers,
 * calls a client function tool (returned to the caller with `finish_reason: tool_calls`), or
 * `max_tool_calls` hosted calls were made (then it must answer without tools). The content of every
 * model turn is part of the answer; citation markers become annotations.
 */
export async function runToolLoop(x: ToolLoopInput): Promise<ToolLoopResult> {
  const t0 = performance.now();
  const messages = [...x.messages];
  const added: LlmMessage[] = [];
  const extractor = new CitationExtractor(x.sources);
  const records: AgenticToolCallRecorded[] = [];
  const hostedItems: Record<string, unknown>[] = [];
  const storeIds = new Set<string>();
  const byName = new Map(x.hosted.map((h) => [h.name, h]));
  const functionNames = new Set(x.tools.filter((t) => !byName.has(t.function.name)).map((t) => t.function.name));
  let usage: LlmUsage = NO_USAGE;
  let content = '';
  let hostedCalls = 0;
  let firstContentMs: number | null = null;
  let responseModel = x.llm.model;
  let choice = toolChoiceFor(x.toolChoice);
  let generation = 0;
  const emit = (text: string) => {
    if (!text) return;
    if (firstContentMs === null) firstContentMs = performance.now() - t0;
    content += text;
    x.chunks?.content(text);
  };
  /** The model call under way, if any: its messages and the text it has streamed (for a hang-up's estimate). */
  const under: { call: { messages: LlmMessage[]; text: string } | null } = { call: null };

  try {
    return await loop();
  } catch (err) {
    if (!x.signal?.aborted) throw err;
    // the client hung up: what was done until then, the model call under way at Larder's estimate
    if (under.call) usage = addUsage(usage, spentSoFar(under.call.messages, under.call.text));
    return done('client_disconnected', []);
  }

  async function loop(): Promise<ToolLoopResult> {
    for (;;) {
      if (x.signal?.aborted) throw x.signal.reason;
      const exhausted = hostedCalls >= x.maxToolCalls;
      const request: LlmRequest = {
        messages,
        tools: x.tools.length ? x.tools : undefined,
        toolChoice: x.tools.length ? (exhausted && x.hosted.length ? 'none' : choice) : undefined,
        parallelToolCalls: x.tools.length && x.parallelToolCalls !== null ? x.parallelToolCalls : undefined,
        temperature: x.temperature ?? undefined,
        topP: x.topP ?? undefined,
        maxTokens: x.maxTokens ?? undefined,
        signal: x.signal,
      };
      const startedAt = x.now();
      const started = performance.now();
      // a separator between the text of two model turns
      if (content && generation > 0) emit(extractor.push('\n\n'));
      const call = { messages: [...messages], text: '' };
      under.call = call;
      const response = await generate(x, request, (delta) => {
        call.text += delta;
        emit(extractor.push(delta));
      });
      under.call = null;
      generation++;
      usage = addUsage(usage, response.usage);
      responseModel = response.model || responseModel;
      const calls = exhausted && x.hosted.length ? [] : (response.message.tool_calls ?? []);
      records.push({
        tool_call_id: `gen_${generation}`,
        tool_name: 'generation',
        tool_type: 'function',
        started_at: startedAt.toISOString(),
        duration_ms: performance.now() - started,
        arguments: { model: response.model, messages_count: messages.length },
        result: {
          finish_reason: response.finishReason,
          content: turnContent(response.message.content),
          tool_calls: calls.slice(0, 20).map((c) => ({ id: c.id, name: c.function.name })),
          usage: { prompt_tokens: response.usage.promptTokens, completion_tokens: response.usage.completionTokens },
        },
        error: null,
      });
      const assistant: LlmMessage = {
        role: 'assistant',
        content: response.message.content ?? null,
        ...(calls.length ? { tool_calls: calls } : {}),
      };
      messages.push(assistant);
      added.push(assistant);
      if (!calls.length) return done(finishOf(response.finishReason), []);

      const client = calls.filter((c) => !byName.has(c.function.name) && functionNames.has(c.function.name));
      for (const call of calls) {
        if (client.includes(call)) continue;
        const decl = byName.get(call.function.name);
        let text: string;
        if (!decl) text = `Error: there is no tool named ${call.function.name}`;
        else if (hostedCalls >= x.maxToolCalls)
          text = 'Error: the tool call limit of this request was reached; answer with what you have.';
        else {
          hostedCalls++;
          x.chunks?.hostedToolCall({ type: `${decl.type}_call`, id: call.id, status: 'in_progress' });
          const out = await x.runHosted(decl, call);
          out.storeIds.forEach((s) => storeIds.add(s));
          records.push(out.record);
          hostedItems.push(out.item);
          x.chunks?.hostedToolCall(out.item);
          text = out.content;
        }
        const toolMessage: LlmMessage = { role: 'tool', tool_call_id: call.id, content: text };
        messages.push(toolMessage);
        added.push(toolMessage);
      }
      if (client.length) {
        // the caller runs these: the answer carries only them (its hosted calls are reported apart)
        if (calls.length !== client.length) assistant.tool_calls = client;
        x.chunks?.toolCalls(client);
        return done('tool_calls', client);
      }
      // after the first round a forced choice would loop: the model decides
      if (choice === 'required' || (typeof choice === 'object' && choice !== null)) choice = 'auto';
    }
  }

  function done(finishReason: ToolLoopResult['finishReason'], clientToolCalls: LlmToolCall[]): ToolLoopResult {
    emit(extractor.flush());
    return {
      content: content || (clientToolCalls.length ? null : ''),
      annotations: extractor.annotations,
      clientToolCalls,
      finishReason,
      usage,
      records,
      hostedItems,
      added,
      storeIds: [...storeIds],
      responseModel,
      firstContentMs,
    };
  }
}

const finishOf = (r: LlmFinishReason): 'stop' | 'length' => (r === 'length' ? 'length' : 'stop');

/** One model call: streamed (deltas as they come) when the completion is streamed, else whole. */
async function generate(x: ToolLoopInput, request: LlmRequest, onDelta: (delta: string) => void): Promise<LlmResponse> {
  if (!(x.streamModel ?? !!x.chunks)) {
    const r = await x.llm.chat(request);
    if (r.message.content) onDelta(r.message.content);
    return r;
  }
  for await (const e of x.llm.stream(request)) {
    if (e.type === 'content') onDelta(e.delta);
    else if (e.type === 'done') return e.response;
  }
  throw new LlmError('The model stream ended without a final response', 'bad_response');
}
