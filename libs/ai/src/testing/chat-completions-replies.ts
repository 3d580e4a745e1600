/** The reply side of `POST /v1/chat/completions`: scripted replies and how each is written (whole JSON or SSE chunks). */
import { ServerResponse } from 'http';
import { ChatCompletionRequestBody } from './chat-completions-request';

export interface DoubleToolCall {
  /** Defaults to `call_<n>`. */
  id?: string;
  name: string;
  /** JSON text, or a value that is serialized. */
  arguments: string | Record<string, unknown>;
}

/** A successful answer, sent whole or streamed as the request asks. */
export interface CompletionReply {
  kind?: 'completion';
  content?: string | null;
  toolCalls?: DoubleToolCall[];
  /** Default `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** Default: whitespace-separated words of the prompt and of the answer; `null` leaves usage out of the answer. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number } | null;
  /** Default: the request's model. */
  model?: string;
  // ── streaming only ──
  /** How the content is split into deltas; default: words with their trailing whitespace. */
  tokens?: string[];
  /** Wait before every chunk after the first. */
  tokenDelayMs?: number;
  /** Each tool call's arguments arrive in this many pieces (default 3). */
  argumentPieces?: number;
  /** Stream the pieces of several tool calls interleaved (call 0 piece 1, call 1 piece 1, …) instead of one call after the other. */
  interleaveToolCalls?: boolean;
  /** Write the event stream in pieces of this many bytes (splitting lines, events and UTF-8 characters), each a separate write. */
  byteSize?: number;
  /** End the response cleanly after this many `data:` events, without the rest or `[DONE]`. */
  endAfterEvents?: number;
  /** Send this many `data:` events, then nothing, keeping the connection open (an idle stream). */
  stallAfterEvents?: number;
}

export type ChatReply =
  | CompletionReply
  /** An HTTP error in OpenAI's shape (or `body` verbatim), with `Retry-After` when given. */
  | { kind: 'error'; status: number; message?: string; type?: string; body?: string; retryAfter?: number | string }
  /** Never answers; the connection stays open until the client leaves or the double closes. */
  | { kind: 'hang' }
  /** Drops the connection without answering (a network failure before any byte). */
  | { kind: 'drop' }
  /** Writes exactly these bytes (one write each, with `delayMs` between) and then ends, unless `end: false`. */
  | {
      kind: 'raw';
      status?: number;
      headers?: Record<string, string>;
      chunks: Array<string | Uint8Array>;
      delayMs?: number;
      end?: boolean;
    };

/** Writes `reply` to `res` as the completion `id`: an error, a hang, a drop, raw bytes, or a completion (whole or streamed as the request asks). */
export async function answer(
  reply: ChatReply,
  body: ChatCompletionRequestBody,
  res: ServerResponse,
  id: string,
): Promise<void> {
  switch (reply.kind) {
    case 'error': {
      const headers: Record<string, string> = {
        'content-type': reply.body !== undefined ? 'text/plain' : 'application/json',
      };
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      res.writeHead(reply.status, headers);
      res.end(
        reply.body ??
          JSON.stringify({
            error: {
              message: reply.message ?? 'The server had an error while processing your request.',
              type: reply.type ?? 'server_error',
              param: null,
              code: null,
            },
          }),
      );
      return;
    }
    case 'hang':
      return;
    case 'drop':
      res.socket?.destroy();
      return;
    case 'raw': {
      res.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'text/event-stream' });
      for (const [i, chunk] of reply.chunks.entries()) {
        if (i && reply.delayMs) await delay(reply.delayMs);
        if (res.destroyed) return;
        await write(res, chunk);
      }
      if (reply.end !== false) res.end();
      return;
    }
    default:
      return body.stream ? stream(reply, body, res, id) : whole(reply, body, res, id);
  }
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const promptTokens = (body: ChatCompletionRequestBody) =>
  body.messages.reduce((n, m) => n + (typeof m.content === 'string' ? words(m.content) : 0), 0);

function toolCallsOf(reply: CompletionReply, id: string) {
  return (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${id.slice('chatcmpl-'.length)}_${i}`,
    type: 'function' as const,
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
}

function usageOf(
  reply: CompletionReply,
  body: ChatCompletionRequestBody,
  calls: ReturnType<typeof toolCallsOf>,
  tokens: number,
) {
  if (reply.usage === null) return undefined;
  const usage = reply.usage ?? {
    prompt_tokens: promptTokens(body),
    completion_tokens: tokens + calls.reduce((n, c) => n + words(c.function.arguments), 0),
  };
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
  };
}

function whole(reply: CompletionReply, body: ChatCompletionRequestBody, res: ServerResponse, id: string): void {
  const calls = toolCallsOf(reply, id);
  const content = reply.content === undefined ? (calls.length ? null : '') : reply.content;
  const usage = usageOf(reply, body, calls, words(content ?? ''));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null, ...(calls.length ? { tool_calls: calls } : {}) },
          logprobs: null,
          finish_reason: reply.finishReason ?? (calls.length ? 'tool_calls' : 'stop'),
        },
      ],
      ...(usage ? { usage } : {}),
      system_fingerprint: null,
    }),
  );
}

async function stream(
  reply: CompletionReply,
  body: ChatCompletionRequestBody,
  res: ServerResponse,
  id: string,
): Promise<void> {
  const calls = toolCallsOf(reply, id);
  const content = reply.content ?? '';
  const tokens = reply.tokens ?? content.match(/\s*\S+\s*|\s+/g) ?? [];
  const includeUsage = body.stream_options?.include_usage === true;
  const created = Math.floor(Date.now() / 1000);
  const model = reply.model ?? body.model;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: null,
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const delta = (d: Record<string, unknown>, finish: string | null = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  const events: unknown[] = [delta({ role: 'assistant', content: '' })];
  for (const token of tokens) events.push(delta({ content: token }));
  const pieces = Math.max(1, reply.argumentPieces ?? 3);
  const callPieces = calls.map((call, index) => {
    const chars = Array.from(call.function.arguments);
    const size = Math.ceil(chars.length / pieces) || 1;
    const args = Array.from({ length: Math.max(1, Math.ceil(chars.length / size)) }, (_, p) =>
      chars.slice(p * size, (p + 1) * size).join(''),
    );
    return [
      { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
      ...args.map((a) => ({ index, function: { arguments: a } })),
    ];
  });
  if (reply.interleaveToolCalls) {
    for (let p = 0; callPieces.some((c) => p < c.length); p++)
      for (const c of callPieces) if (p < c.length) events.push(delta({ tool_calls: [c[p]] }));
  } else {
    for (const c of callPieces) for (const piece of c) events.push(delta({ tool_calls: [piece] }));
  }
  events.push(delta({}, reply.finishReason ?? (calls.length ? 'tool_calls' : 'stop')));
  const usage = usageOf(reply, body, calls, tokens.length);
  if (includeUsage && usage) events.push(chunk([], { usage }));

  const lines = [...events.map((e) => `data: ${JSON.stringify(e)}\n\n`), 'data: [DONE]\n\n'];
  const cut = reply.stallAfterEvents ?? reply.endAfterEvents;
  const sent = cut === undefined ? lines : lines.slice(0, cut);

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  if (reply.byteSize) {
    const bytes = Buffer.from(sent.join(''));
    for (let at = 0; at < bytes.length; at += reply.byteSize) {
      if (res.destroyed) return;
      await write(res, bytes.subarray(at, at + reply.byteSize));
      await new Promise((r) => setImmediate(r));
    }
  } else {
    for (const [i, line] of sent.entries()) {
      if (i && reply.tokenDelayMs) await delay(reply.tokenDelayMs);
      if (res.destroyed) return;
      await write(res, line);
    }
  }
  if (reply.stallAfterEvents === undefined && !res.destroyed) res.end();
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One write, resolved once it is handed to the socket (or the client is gone). */
const write = (res: ServerResponse, chunk: string | Uint8Array) =>
  new Promise<void>((resolve) => {
    if (!res.write(chunk, () => resolve())) res.once('drain', () => resolve());
  });
