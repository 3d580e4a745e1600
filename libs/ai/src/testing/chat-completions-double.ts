import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';

/**
 * A local stand-in for a remote OpenAI-compatible chat model (OpenAI, Ollama, vLLM), speaking the
 * `POST /v1/chat/completions` wire format: requests are checked the way OpenAI checks them (400 in its
 * `{error:{message,type,param,code}}` shape), answered as one `chat.completion` object, or, when the
 * request says `stream: true`, as server-sent `chat.completion.chunk` events ending in `data: [DONE]`
 * (with a final usage chunk when `stream_options.include_usage`).
 *
 * What each request gets is scripted: `reply(...)` queues replies taken one per request; when the queue
 * is empty, the handler set with `handle(fn)` decides, and without one the model echoes the last user
 * message. Every request is recorded (parsed body, headers, and whether its connection closed before
 * the answer was complete).
 *
 * ```ts
 * const llm = await startChatCompletionsDouble({ apiKey: 'sk-test' });
 * llm.reply('Hello!', { toolCalls: [{ name: 'search', arguments: { query: 'tea' } }] }, { kind: 'error', status: 429, retryAfter: 0 });
 * // LARDER_LLM_URL=llm.url  LARDER_LLM_MODEL=any  LARDER_LLM_API_KEY=sk-test
 * await llm.close();
 * ```
 */
export interface ChatCompletionsDouble {
  /** Base URL up to (not including) `/chat/completions`: `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every request to `/v1/chat/completions` with a JSON body, in arrival order (refused ones included). */
  requests: RecordedChatRequest[];
  /** Queues replies: each request takes the next one (a string is a completion with that content). */
  reply(...replies: Array<ChatReply | string>): void;
  /** Decides the reply of requests that find the queue empty (the default echoes the last user message). */
  handle(handler: ChatHandler): void;
  /** Stops listening and drops every open connection (hanging and stalled ones included). */
  close(): Promise<void>;
}

export interface RecordedChatRequest {
  /** The parsed JSON body (as sent: `model`, `messages`, `tools`, `stream`, …). */
  body: ChatCompletionRequestBody;
  headers: IncomingHttpHeaders;
  /** Settles when the connection is done with: `completed` (the whole answer was written) or `aborted` (closed before). */
  closed: Promise<'completed' | 'aborted'>;
}

/** The request body (only what the double looks at is typed). */
export interface ChatCompletionRequestBody {
  model: string;
  messages: Array<{ role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string; name?: string }>;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  response_format?: { type: string };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

export type ChatHandler = (
  body: ChatCompletionRequestBody,
  request: RecordedChatRequest,
) => ChatReply | string | Promise<ChatReply | string>;

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

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

export async function startChatCompletionsDouble(options: { apiKey?: string } = {}): Promise<ChatCompletionsDouble> {
  const requests: RecordedChatRequest[] = [];
  const queue: Array<ChatReply | string> = [];
  let handler: ChatHandler = (body) => echo(body);
  let sequence = 0;

  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- node:http ignores the handler's promise; the handler answers every path itself
  const server: Server = createServer(async (req, res) => {
    let closedAs: (how: 'completed' | 'aborted') => void = () => undefined;
    const closed = new Promise<'completed' | 'aborted'>((resolve) => (closedAs = resolve));
    res.on('close', () => closedAs(res.writableFinished ? 'completed' : 'aborted'));
    const raw = await readBody(req).catch(() => null);
    if (raw === null) return;
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/chat/completions')
      return sendError(res, 404, `Unknown request URL: ${req.method} ${req.url}`, 'invalid_request_error');
    let body: ChatCompletionRequestBody;
    try {
      body = JSON.parse(raw) as ChatCompletionRequestBody;
    } catch {
      return sendError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error');
    }
    const recorded: RecordedChatRequest = { body, headers: req.headers, closed };
    requests.push(recorded);
    if (options.apiKey !== undefined) {
      const presented = /^Bearer (.*)$/.exec(req.headers.authorization ?? '')?.[1];
      // like servers that echo what they were given (OpenAI masks it; not all do)
      if (presented !== options.apiKey)
        return sendError(
          res,
          401,
          `Incorrect API key provided: ${presented ?? '(none)'}`,
          'invalid_request_error',
          'invalid_api_key',
        );
    }
    const problem = checkRequest(body);
    if (problem) return sendError(res, 400, problem.message, 'invalid_request_error', null, problem.param);
    const next = queue.length ? queue.shift()! : await handler(body, recorded);
    const reply: ChatReply = typeof next === 'string' ? { content: next } : next;
    await answer(reply, body, res, `chatcmpl-${++sequence}`);
  });

  const answer = async (
    reply: ChatReply,
    body: ChatCompletionRequestBody,
    res: ServerResponse,
    id: string,
  ): Promise<void> => {
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
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...replies) => void queue.push(...replies),
    handle: (fn) => void (handler = fn),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The default model: answers the last user message with itself. */
function echo(body: ChatCompletionRequestBody): ChatReply {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  return { content: typeof last?.content === 'string' ? last.content : '' };
}

/** What OpenAI answers 400 to (the mistakes an adapter could make). */
function checkRequest(body: ChatCompletionRequestBody): { message: string; param: string } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { message: 'The body must be a JSON object.', param: '' };
  if (typeof body.model !== 'string' || !body.model)
    return { message: 'you must provide a model parameter', param: 'model' };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return { message: "Invalid 'messages': empty array. Expected an array with minimum length 1.", param: 'messages' };
  for (const [i, m] of body.messages.entries()) {
    if (typeof m !== 'object' || m === null || !ROLES.has(m.role))
      return { message: `Invalid value for 'messages[${i}].role'.`, param: `messages[${i}].role` };
    if (m.content !== null && typeof m.content !== 'string' && !Array.isArray(m.content))
      return { message: `Invalid type for 'messages[${i}].content'.`, param: `messages[${i}].content` };
    if (m.role === 'tool' && typeof m.tool_call_id !== 'string')
      return {
        message: `Missing required parameter: 'messages[${i}].tool_call_id'.`,
        param: `messages[${i}].tool_call_id`,
      };
    if (m.tool_calls !== undefined && (m.role !== 'assistant' || !Array.isArray(m.tool_calls)))
      return { message: `Invalid 'messages[${i}].tool_calls'.`, param: `messages[${i}].tool_calls` };
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0)
      return { message: "Invalid 'tools': empty array. Expected an array with minimum length 1.", param: 'tools' };
    for (const [i, t] of body.tools.entries()) {
      if (t?.type !== 'function' || typeof t.function?.name !== 'string')
        return { message: `Invalid value for 'tools[${i}]'.`, param: `tools[${i}]` };
    }
  }
  if (body.tool_choice !== undefined && body.tools === undefined)
    return {
      message: "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
      param: 'tool_choice',
    };
  if (body.parallel_tool_calls !== undefined && body.tools === undefined)
    return {
      message:
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.",
      param: 'parallel_tool_calls',
    };
  if (body.stream_options !== undefined && body.stream !== true)
    return {
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: 'stream_options',
    };
  if (
    body.response_format !== undefined &&
    !['text', 'json_object', 'json_schema'].includes(body.response_format?.type)
  )
    return { message: "Invalid value for 'response_format.type'.", param: 'response_format' };
  return null;
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

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param, code } }));
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (s += d));
    req.on('end', () => resolve(s));
    req.on('error', reject);
  });

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One write, resolved once it is handed to the socket (or the client is gone). */
const write = (res: ServerResponse, chunk: string | Uint8Array) =>
  new Promise<void>((resolve) => {
    if (!res.write(chunk, () => resolve())) res.once('drain', () => resolve());
  });
