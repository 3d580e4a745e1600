import { createServer, IncomingHttpHeaders, Server } from 'http';
import { AddressInfo } from 'net';
import { answer, ChatReply } from './chat-completions-replies';
import { ChatCompletionRequestBody, checkRequest, readBody, sendError } from './chat-completions-request';

export type { ChatReply, CompletionReply, DoubleToolCall } from './chat-completions-replies';
export type { ChatCompletionRequestBody } from './chat-completions-request';

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

export type ChatHandler = (
  body: ChatCompletionRequestBody,
  request: RecordedChatRequest,
) => ChatReply | string | Promise<ChatReply | string>;

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
