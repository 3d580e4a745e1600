import { RetryPolicy, gaveUpNote, retryAfterMs } from '@larder/outbound';
import { Llm, LlmError, LlmRequest, LlmResponse, LlmStreamEvent } from '../llm.port';
import { StreamAssembly } from './chat-completions.stream';
import { parseCompletion, requestBody, upstreamMessage } from './chat-completions.wire';
import { Call } from './llm-call';
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
 * - Retries (the shared outbound `RetryPolicy`): 408, 429, 5xx and network failures before any byte
 *   of the answer are retried with exponential back-off and jitter (`Retry-After` honoured up to
 *   `maxRetryDelayMs`), then fail as `unavailable`; other 4xx are `refused` with the upstream's
 *   message; a stream is never retried once it has started.
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
  private readonly retry: RetryPolicy;
  private readonly maxResponseBytes: number;

  constructor(options: OpenAiLlmOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new Error('The LLM base URL is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`The LLM base URL must be http or https, not ${url.protocol}`);
    if (url.username || url.password)
      throw new Error(
        'The LLM base URL must not carry credentials; give the key as the API key (LARDER_LLM_API_KEY) instead',
      );
    if (!options.model) throw new Error('The LLM adapter needs a model name');
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
    url.hash = '';
    this.#url = url;
    this.#apiKey = options.apiKey || null;
    this.endpoint = `${url.origin}${url.pathname}`;
    this.model = options.model;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 30_000;
    this.retry = new RetryPolicy({
      maxRetries: options.maxRetries ?? 2,
      baseMs: options.retryBaseMs ?? 500,
      maxDelayMs: options.maxRetryDelayMs ?? 10_000,
      random: options.random,
    });
    this.maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  }

  toString(): string {
    return `OpenAiLlm(${this.model} at ${this.endpoint})`;
  }

  toJSON(): { model: string; endpoint: string } {
    return { model: this.model, endpoint: this.endpoint };
  }

  async chat(request: LlmRequest): Promise<LlmResponse> {
    const call = new Call(
      request.signal,
      this.timeoutMs,
      `The LLM endpoint did not answer within ${this.timeoutMs} ms`,
    );
    try {
      const res = await this.open(request, false, call);
      const text = await this.readText(
        res,
        call,
        'The LLM endpoint closed the connection before its answer was complete',
      );
      return this.parseCompletion(text);
    } finally {
      call.dispose();
    }
  }

  async *stream(request: LlmRequest): AsyncGenerator<LlmStreamEvent, void, undefined> {
    const call = new Call(
      request.signal,
      this.timeoutMs,
      `The LLM endpoint did not start answering within ${this.timeoutMs} ms`,
    );
    try {
      const res = await this.open(request, true, call);
      const type = res.headers.get('content-type') ?? '';
      if (/json/i.test(type) && !/event-stream/i.test(type)) {
        // a server that ignores `stream: true` and answers one whole completion
        const response = this.parseCompletion(
          await this.readText(res, call, 'The LLM endpoint closed the connection before its answer was complete'),
        );
        call.disarm();
        call.throwIfAborted();
        if (response.message.content) yield { type: 'content', delta: response.message.content };
        for (const [index, toolCall] of (response.message.tool_calls ?? []).entries()) {
          yield {
            type: 'tool_call',
            index,
            id: toolCall.id,
            name: toolCall.function.name,
            argumentsDelta: toolCall.function.arguments,
          };
        }
        yield { type: 'done', response };
        return;
      }
      if (!res.body)
        throw this.error('The LLM endpoint answered a stream request without a body', 'bad_response', res.status);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const parser = new ServerSentEventParser();
      const assembly = new StreamAssembly(this.model, (message, kind) => this.error(message, kind, null));
      let received = 0;
      for (let first = true; ; first = false) {
        if (!first)
          call.arm(
            this.streamIdleTimeoutMs,
            `The LLM stream stalled: nothing arrived for ${this.streamIdleTimeoutMs} ms`,
          );
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
          if (received > this.maxResponseBytes)
            throw this.error(`The LLM stream exceeded ${this.maxResponseBytes} bytes`, 'bad_response', null);
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
    const body = JSON.stringify(requestBody(this.model, request, stream));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
    };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    const gaveUp = (last: Error, attempts: number) =>
      last instanceof LlmError
        ? this.error(`${last.message}${gaveUpNote(attempts)}`, last.kind, last.upstreamStatus)
        : last;
    return this.retry
      .run<Response>(
        async () => {
          let res: Response;
          try {
            res = await fetch(this.#url, { method: 'POST', headers, body, signal: call.signal, redirect: 'manual' });
          } catch (err) {
            const failure = call.failure(err, (message) =>
              this.error(`The LLM endpoint ${this.endpoint} is unreachable: ${message}`, 'unavailable', null),
            );
            if (!(failure instanceof LlmError) || failure.kind === 'timeout') throw failure;
            return { retry: failure };
          }
          if (res.status >= 200 && res.status < 300) return { value: res };
          const text = await this.readText(
            res,
            call,
            `The LLM endpoint answered ${res.status} and closed the connection`,
          );
          if (!this.retry.retries(res.status)) {
            if (res.status >= 300 && res.status < 400) {
              throw this.error(
                `The LLM endpoint answered ${res.status}, a redirect; set the LLM URL to the address it redirects to`,
                'refused',
                res.status,
              );
            }
            throw this.error(
              `The LLM endpoint refused the request (${res.status}): ${upstreamMessage(text)}`,
              'refused',
              res.status,
            );
          }
          return {
            retry: this.error(
              `The LLM endpoint answered ${res.status}: ${upstreamMessage(text)}`,
              'unavailable',
              res.status,
            ),
            retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
          };
        },
        { deadline: call.deadline, signal: call.signal, gaveUp },
      )
      .catch((err: unknown) => {
        // a wait cut short rejects with the signal's reason, mapped here as a failed request's would be
        throw call.signal.aborted ? call.failure(err, () => err as LlmError) : err;
      });
  }

  /** The answer's body as text, refused past `maxResponseBytes` (declared or as it arrives). */
  private async readText(res: Response, call: Call, brokenOff: string): Promise<string> {
    const tooLarge = () =>
      this.error(`The LLM endpoint's answer exceeded ${this.maxResponseBytes} bytes`, 'bad_response', res.status);
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

  private parseCompletion(text: string): LlmResponse {
    return parseCompletion(text, this.model, (message, kind, status) => this.error(message, kind, status));
  }

  /** Every error message passes here: upstream text is cut short and the key, if echoed, replaced. */
  private error(message: string, kind: LlmError['kind'], upstreamStatus: number | null): LlmError {
    const key = this.#apiKey;
    const scrubbed = key ? message.split(key).join('[redacted]') : message;
    return new LlmError(
      scrubbed.length > MESSAGE_LIMIT ? `${scrubbed.slice(0, MESSAGE_LIMIT)}…` : scrubbed,
      kind,
      upstreamStatus,
    );
  }
}
