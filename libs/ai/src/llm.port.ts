import { DomainError } from '@larder/kernel';

/**
 * A chat model behind an OpenAI-compatible `/v1/chat/completions` endpoint (Ollama, vLLM,
 * llama.cpp's server, OpenAI and other hosted providers). Answering (question answering, agentic
 * search, chat completions) talks to it through this port; with no model configured the port is not
 * bound (`null`) and those features run without one (extractive answers, a deterministic planner) or
 * say how to configure one.
 */
export interface Llm {
  /** The model answers are generated with (named in responses and events). */
  readonly model: string;
  /** One completion, waited for whole. */
  chat(request: LlmRequest): Promise<LlmResponse>;
  /**
   * One completion, as it is generated: content and tool-call deltas, then exactly one `done` with
   * the whole response (the deltas assembled, usage included). Breaking out of the iteration, or
   * aborting `request.signal`, cancels the upstream request.
   */
  stream(request: LlmRequest): AsyncIterable<LlmStreamEvent>;
}

export const LLM = Symbol('LLM');

export type LlmRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface LlmToolCall {
  id: string;
  type: 'function';
  function: { name: string; /** JSON text, as the model wrote it. */ arguments: string };
}

export interface LlmMessage {
  role: LlmRole;
  content: string | null;
  /** Assistant messages: the tools the model called. */
  tool_calls?: LlmToolCall[];
  /** Tool messages: the call this message answers. */
  tool_call_id?: string;
  name?: string;
}

export interface LlmTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type LlmToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

export interface LlmRequest {
  messages: LlmMessage[];
  tools?: LlmTool[];
  toolChoice?: LlmToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** Ask for a JSON object answer (`response_format: {type: "json_object"}`), where the server supports it. */
  json?: boolean;
  /** Cancels the request (a client that went away). */
  signal?: AbortSignal;
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export type LlmFinishReason = 'stop' | 'tool_calls' | 'length' | 'content_filter';

export interface LlmResponse {
  /** The assistant message: content and/or tool calls. */
  message: LlmMessage & { role: 'assistant' };
  finishReason: LlmFinishReason;
  usage: LlmUsage;
  /** The model the server says answered. */
  model: string;
}

export type LlmStreamEvent =
  | { type: 'content'; delta: string }
  /** A piece of a tool call: `id` and `name` arrive with its first piece, `arguments` in pieces. */
  | { type: 'tool_call'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'done'; response: LlmResponse };

export const NO_USAGE: LlmUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

export const addUsage = (a: LlmUsage, b: LlmUsage): LlmUsage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

/**
 * The model could not answer: unreachable, timed out, refused (4xx), rate limited past the retries,
 * or answered something that is not a chat completion. Larder answers its own caller 504 for a
 * timeout and 502 otherwise, in the contract's error shape. The message never contains the API key.
 */
export class LlmError extends DomainError {
  readonly status: 502 | 504;
  readonly type: 'llm_timeout' | 'llm_unavailable' | 'llm_bad_response' | 'llm_refused';
  constructor(
    message: string,
    readonly kind: 'timeout' | 'unavailable' | 'bad_response' | 'refused',
    /** The upstream HTTP status, when there was one. */
    readonly upstreamStatus: number | null = null,
  ) {
    super(message);
    this.status = kind === 'timeout' ? 504 : 502;
    this.type =
      kind === 'timeout'
        ? 'llm_timeout'
        : kind === 'unavailable'
          ? 'llm_unavailable'
          : kind === 'bad_response'
            ? 'llm_bad_response'
            : 'llm_refused';
  }
}
