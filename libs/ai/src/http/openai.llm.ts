import { Llm, LlmError, LlmFinishReason, LlmRequest, LlmResponse, LlmStreamEvent, LlmToolCall, LlmUsage, NO_USAGE } from '../llm.port';
import { ServerSentEventParser } from './server-sent-events';

export interface OpenAiLlmOptions {
  /** Base URL up to (not including) `/chat/completions`, as given: `http://127.0.0.1:11434/v1`, `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set; never in messages, logs or the adapter's JSON. */
  apiKey: string | null;
  model: string;
  /**
   * How long a call may take until the first byte of its answer arrives, retries and their back-off
   * included (for `chat()`, until the whole answer has arrived). Default 60 000.
   */
  timeoutMs?: number;
  /** How long a stream may stay silent between two chunks once it has started. Default 30 000. */
  streamIdleTimeoutMs?: number;
  /** Retries of a 408, 429, 5xx or network failure before any of the answer arrived. Default 2. */
  maxRetries?: number;
  /** Back-off before retry n (from 0): base · 2ⁿ, the upper half of it jittered. Default 500. */
  retryBaseMs?: number;
  /** Longest wait before a retry, `Retry-After` included. Default 10 000. */
  maxRetryDelayMs?: number;
  /** Jitter source in [0, 1); `Math.random` unless a test wants it fixed. */
  random?: () => number;
  /** The most bytes read of one answer (a whole completion, an error body, or a whole stream). Default 8 MiB. */
  maxResponseBytes?: number;
}

/** Longest `LlmError` message (upstream text is cut there, after the key was replaced in it). */
const MESSAGE_LIMIT = 500;

/**
 * An OpenAI-compatible `POST {baseUrl}/chat/completions` endpoint (OpenAI, Ollama, vLLM, llama.cpp's
 * server, LiteLLM, …) behind the `Llm` port, over Node's `fetch`.
 *
 * - Retries: 408, 429, 5xx and network failures before any byte of the answer are retried with
 *   exponential back-off and jitter (`Retry-After` honoured up to `maxRetryDelayMs`), then fail as
 *   `unavailable`; other 4xx are `refused` with the upstream's message; a stream is never retried once
 *   it has started.
 * - Timeouts (`LlmError` kind `timeout`, 504): `timeoutMs` until the first byte of the answer (the
 *   whole answer for `chat()`), `streamIdleTimeoutMs` between two chunks of a stream.
 * - Usage: a server that reports none (some do not for streams) gives zeros (`NO_USAGE`); nothing is estimated.
 * - Finish reason: a message with tool calls that a server marks `stop` (or not at all) is `tool_calls`.
 * - Cancellation: aborting `request.signal` rejects with its reason and closes the upstream request;
 *   so does leaving a `stream()` iteration early.
 * - The API key is a private field: it is not in `JSON.stringify(adapter)` or `util.inspect`, and an
 *   upstream message that echoes it has it replaced before it becomes an error message.
 */
export class OpenAiLlm implements Llm {
  readonly model: string;
  /** Where requests go (without query or credentials), for messages. */
  readonly endpoint: string;

  readonly #apiKey: string | null;
  readonly #url: URL;
  private readonly timeoutMs: number;
  private readonly streamIdleTimeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly random: () => number;
  private readonly maxResponseBytes: number;

  constructor(options: OpenAiLlmOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new Error('The LLM base URL is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`The LLM base URL must be http or https, not ${url.protocol}`);
    if (url.username || url.password) throw new Error('The LLM base URL must not carry credentials; give the key as the API key (LARDER_LLM_API_KEY) instead');
    if (!options.model) throw new Error('The LLM adapter needs a model name');
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
    url.hash = '';
    this.#url = url;
    this.#apiKey = options.apiKey || null;
    this.endpoint = `${url.origin}${url.pathname}`;
    this.model = options.model;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 10_000;
    this.random = options.random ?? Math.random;
    this.maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  }

  toString(): string {
    return `OpenAiLlm(${this.model} at ${this.endpoint})`;
  }

  toJSON(): { model: string; endpoint: string } {
    return { model: this.model, endpoint: this.endpoint };
  }

  async chat(request: LlmRequest): Promise<LlmResponse> {
    const call = new Call(request.signal, this.timeoutMs, `The LLM endpoint did not answer within ${this.timeoutMs} ms`);
    try {
      const res = await this.open(request, false, call);
      const text = await this.readText(res, call, 'The LLM endpoint closed the connection before its answer was complete');
      return this.completion(text);
    } finally {
      call.dispose();
    }
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmStreamEvent, void, undefined> {
    const call = new Call(request.signal, this.timeoutMs, `The LLM endpoint did not start answering within ${this.timeoutMs} ms`);
    try {
      const res = await this.open(request, true, call);
      const type = res.headers.get('content-type') ?? '';
      if (/json/i.test(type) && !/event-stream/i.test(type)) {
        // a server that ignores `stream: true` and answers one whole completion
        const response = this.completion(await this.readText(res, call, 'The LLM endpoint closed the connection before its answer was complete'));
        call.disarm();
        call.throwIfAborted();
        if (response.message.content) yield { type: 'content', delta: response.message.content };
        for (const [index, toolCall] of (response.message.tool_calls ?? []).entries()) {
          yield { type: 'tool_call', index, id: toolCall.id, name: toolCall.function.name, argumentsDelta: toolCall.function.arguments };
        }
        yield { type: 'done', response };
        return;
      }
      if (!res.body) throw this.error('The LLM endpoint answered a stream request without a body', 'bad_response', res.status);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const parser = new ServerSentEventParser();
      const assembly = new StreamAssembly(this.model, (message, kind) => this.error(message, kind, null));
      let received = 0;
      for (let first = true; ; first = false) {
        if (!first) call.arm(this.streamIdleTimeoutMs, `The LLM stream stalled: nothing arrived for ${this.streamIdleTimeoutMs} ms`);
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          throw call.failure(err, (message) => this.error(`The LLM stream broke off: ${message}`, 'unavailable', null));
        }
        call.disarm();
        let events: string[];
        if (chunk.done) {
          const end = parser.end();
          events = end.pending === '[DONE]' ? [...end.events, end.pending] : end.events;
        } else {
          received += chunk.value.byteLength;
          if (received > this.maxResponseBytes) throw this.error(`The LLM stream exceeded ${this.maxResponseBytes} bytes`, 'bad_response', null);
          events = parser.push(chunk.value);
        }
        for (const data of events) {
          if (data === '[DONE]') {
            const response = assembly.response();
            call.throwIfAborted();
            yield { type: 'done', response };
            return;
          }
          for (const event of assembly.add(data)) {
            call.throwIfAborted(); // what arrived in the same network chunk is not handed out after an abort
            yield event;
          }
        }
        if (chunk.done) throw this.error('The LLM stream ended without its [DONE] line', 'bad_response', null);
      }
    } finally {
      // cancels the upstream request when the consumer left early, was aborted or failed
      call.dispose();
    }
  }

  /** Sends the request until an answer with a 2xx status comes, retrying what may succeed on a later try. */
  private async open(request: LlmRequest, stream: boolean, call: Call): Promise<Response> {
    const body = JSON.stringify(this.body(request, stream));
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.#url, { method: 'POST', headers, body, signal: call.signal, redirect: 'manual' });
      } catch (err) {
        const failure = call.failure(err, (message) => this.error(`The LLM endpoint ${this.endpoint} is unreachable: ${message}`, 'unavailable', null));
        if (!(failure instanceof LlmError) || failure.kind === 'timeout') throw failure;
        await this.backoff(attempt, null, call, failure);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return res;
      const text = await this.readText(res, call, `The LLM endpoint answered ${res.status} and closed the connection`);
      const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
      if (!retryable) {
        if (res.status >= 300 && res.status < 400) {
          throw this.error(`The LLM endpoint answered ${res.status}, a redirect; set the LLM URL to the address it redirects to`, 'refused', res.status);
        }
        throw this.error(`The LLM endpoint refused the request (${res.status}): ${upstreamMessage(text)}`, 'refused', res.status);
      }
      await this.backoff(attempt, retryAfterMs(res.headers.get('retry-after')), call, this.error(`The LLM endpoint answered ${res.status}: ${upstreamMessage(text)}`, 'unavailable', res.status));
    }
  }

  /** Waits before the next attempt, or throws `failure` when the retries or the time are spent. */
  private async backoff(attempt: number, retryAfter: number | null, call: Call, failure: LlmError): Promise<void> {
    const giveUp = () => (attempt === 0 ? failure : this.error(`${failure.message} (gave up after ${attempt + 1} attempts)`, failure.kind, failure.upstreamStatus));
    if (attempt >= this.maxRetries) throw giveUp();
    const exponential = this.retryBaseMs * 2 ** attempt;
    const delay = Math.min(this.maxRetryDelayMs, retryAfter ?? exponential / 2 + (this.random() * exponential) / 2);
    if (Date.now() + delay >= call.deadline) throw giveUp();
    try {
      await sleep(delay, call.signal);
    } catch (err) {
      throw call.failure(err, () => failure);
    }
  }

  /** The answer's body as text, refused past `maxResponseBytes` (declared or as it arrives). */
  private async readText(res: Response, call: Call, brokenOff: string): Promise<string> {
    const tooLarge = () => this.error(`The LLM endpoint's answer exceeded ${this.maxResponseBytes} bytes`, 'bad_response', res.status);
    if (Number(res.headers.get('content-length') ?? 0) > this.maxResponseBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    try {
      if (!res.body) return '';
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = '';
      let received = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text + decoder.decode();
        received += value.byteLength;
        if (received > this.maxResponseBytes) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge();
        }
        text += decoder.decode(value, { stream: true });
      }
    } catch (err) {
      if (err instanceof LlmError) throw err;
      throw call.failure(err, (message) => this.error(`${brokenOff}: ${message}`, 'unavailable', res.status));
    }
  }

  private body(request: LlmRequest, stream: boolean): Record<string, unknown> {
    const tools = request.tools?.length ? request.tools : undefined;
    return {
      model: this.model,
      messages: request.messages.map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } })) } : {}),
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

  /** A whole `chat.completion` object. */
  private completion(text: string): LlmResponse {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.error(`The LLM endpoint answered something that is not JSON: ${text}`, 'bad_response', null);
    }
    if (!isRecord(body)) throw this.error('The LLM endpoint answered JSON that is not a chat completion', 'bad_response', null);
    const choice: unknown = Array.isArray(body.choices) ? body.choices[0] : undefined;
    if (!isRecord(choice) || !isRecord(choice.message)) {
      if (body.error != null) throw this.error(`The LLM endpoint failed: ${upstreamMessage(body.error)}`, 'unavailable', null);
      throw this.error('The LLM endpoint answered a chat completion without a message', 'bad_response', null);
    }
    const message = choice.message;
    const content = contentText(message.content);
    if (content === undefined) throw this.error('The LLM endpoint answered a message whose content is neither text nor null', 'bad_response', null);
    const toolCalls: LlmToolCall[] = [];
    if (Array.isArray(message.tool_calls)) {
      for (const [i, call] of message.tool_calls.entries()) {
        const fn: unknown = isRecord(call) ? call.function : undefined;
        if (!isRecord(call) || !isRecord(fn) || typeof fn.name !== 'string' || !fn.name) throw this.error(`The LLM endpoint answered tool call ${i} without a function name`, 'bad_response', null);
        toolCalls.push({ id: typeof call.id === 'string' && call.id ? call.id : `call_${i}`, type: 'function', function: { name: fn.name, arguments: argumentsText(fn.arguments) } });
      }
    }
    return {
      message: { role: 'assistant', content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
      finishReason: finishReason(choice.finish_reason, toolCalls.length > 0),
      usage: isRecord(body.usage) ? usageOf(body.usage) : { ...NO_USAGE },
      model: typeof body.model === 'string' && body.model ? body.model : this.model,
    };
  }

  /** Every error message passes here: upstream text is cut short and the key, if echoed, replaced. */
  private error(message: string, kind: LlmError['kind'], upstreamStatus: number | null): LlmError {
    const key = this.#apiKey;
    const scrubbed = key ? message.split(key).join('[redacted]') : message;
    return new LlmError(scrubbed.length > MESSAGE_LIMIT ? `${scrubbed.slice(0, MESSAGE_LIMIT)}…` : scrubbed, kind, upstreamStatus);
  }
}

/**
 * One call's cancellation: its own AbortController, aborted by the caller's signal, by the timer
 * armed for the current wait (first byte, or the next chunk of a stream), or when the call ends.
 */
class Call {
  readonly deadline: number;
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private timedOut: string | null = null;
  private readonly onAbort = () => this.controller.abort(this.external?.reason);

  constructor(
    private readonly external: AbortSignal | undefined,
    timeoutMs: number,
    timeoutMessage: string,
  ) {
    this.deadline = Date.now() + timeoutMs;
    if (external?.aborted) this.controller.abort(external.reason);
    else external?.addEventListener('abort', this.onAbort, { once: true });
    this.arm(timeoutMs, timeoutMessage);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(ms: number, message: string): void {
    this.disarm();
    this.timer = setTimeout(() => {
      this.timedOut = message;
      this.controller.abort(new LlmError(message, 'timeout'));
    }, ms);
  }

  disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * What to throw for `err`, which a fetch, body read or wait rejected with: a timeout, the caller's
   * own abort reason, or else `otherwise(err's message)`.
   */
  failure(err: unknown, otherwise: (message: string) => LlmError): Error {
    if (this.timedOut) return new LlmError(this.timedOut, 'timeout');
    if (this.external?.aborted) return this.external.reason instanceof Error ? this.external.reason : new DOMException('The operation was aborted', 'AbortError');
    return otherwise(describe(err));
  }

  /** Throws the caller's abort reason once the caller aborted. */
  throwIfAborted(): void {
    if (this.external?.aborted) throw this.failure(null, () => new LlmError('aborted', 'unavailable'));
  }

  dispose(): void {
    this.disarm();
    this.external?.removeEventListener('abort', this.onAbort);
    if (!this.controller.signal.aborted) this.controller.abort();
  }
}

/** Folds the chunks of a `chat.completion.chunk` stream into deltas and, at the end, the whole response. */
class StreamAssembly {
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
    if (chunk.error != null) throw this.error(`The LLM endpoint failed midway through the stream: ${upstreamMessage(chunk.error)}`, 'unavailable');
    if (typeof chunk.model === 'string' && chunk.model) this.model = chunk.model;
    if (isRecord(chunk.usage)) this.usage = usageOf(chunk.usage);
    if (chunk.choices == null) return [];
    if (!Array.isArray(chunk.choices)) throw this.error('The LLM stream carried a chunk whose choices are not a list', 'bad_response');
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
        if (!isRecord(piece)) throw this.error('The LLM stream carried a tool call piece that is not an object', 'bad_response');
        const index = typeof piece.index === 'number' && Number.isInteger(piece.index) && piece.index >= 0 ? piece.index : position;
        const fn = isRecord(piece.function) ? piece.function : {};
        let call = this.calls.get(index);
        if (!call) this.calls.set(index, (call = { id: null, name: null, arguments: '' }));
        const event: LlmStreamEvent & { type: 'tool_call' } = { type: 'tool_call', index, argumentsDelta: fn.arguments == null ? '' : argumentsText(fn.arguments) };
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
        if (call.name === null) throw this.error(`The LLM stream's tool call ${index} has no function name`, 'bad_response');
        return { id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments } };
      });
    return {
      message: { role: 'assistant', content: this.text !== '' ? this.text : toolCalls.length ? null : '', ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
      finishReason: finishReason(this.finish, toolCalls.length > 0),
      usage: this.usage ?? { ...NO_USAGE },
      model: this.model,
    };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The human part of an upstream error body: `{error:{message}}`, `{error:"…"}`, `{message}`, `{detail}`, or the text itself. */
function upstreamMessage(body: unknown): string {
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
    for (const candidate of [value.error, inner.message, value.message, value.detail]) if (typeof candidate === 'string' && candidate.trim()) return candidate.trim();
  }
  const text = typeof value === 'string' ? value : typeof body === 'string' ? body : JSON.stringify(body);
  return text.trim() || '(empty body)';
}

/** Message content: text, null, or a list of text parts (joined); undefined when it is none of these. */
function contentText(content: unknown): string | null | undefined {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return undefined;
}

/** Tool arguments as JSON text (some servers send an object). */
const argumentsText = (args: unknown): string => (typeof args === 'string' ? args : args === undefined || args === null ? '{}' : JSON.stringify(args));

function finishReason(raw: unknown, hasToolCalls: boolean): LlmFinishReason {
  if (raw === 'length' || raw === 'content_filter') return raw;
  if (raw === 'tool_calls' || raw === 'function_call' || hasToolCalls) return 'tool_calls';
  return 'stop';
}

function usageOf(usage: Record<string, unknown>): LlmUsage {
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  return { promptTokens, completionTokens, totalTokens: count(usage.total_tokens) || promptTokens + completionTokens };
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
function retryAfterMs(header: string | null): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** A network error's message with its cause (`fetch failed: connect ECONNREFUSED 127.0.0.1:1`). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  return cause instanceof Error && cause.message ? `${err.message}: ${cause.message}` : err.message;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
