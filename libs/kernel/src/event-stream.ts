import type { IncomingMessage, ServerResponse } from 'http';
import { DomainError, ValidationFailedError } from './errors';

/** The body of an error event in a stream: the contract's error shape, as a non-streamed answer would carry it. */
export function streamedError(err: unknown): Record<string, unknown> {
  if (err instanceof ValidationFailedError)
    return { detail: err.detail, message: err.message, error: { message: err.message, code: 422, type: err.type } };
  if (err instanceof DomainError)
    return { error: { message: err.message, code: err.status, type: err.type }, message: err.message };
  return {
    error: { message: 'Internal server error', code: 500, type: 'internal_error' },
    message: 'Internal server error',
  };
}

/** What a query handler needs of a live stream: open it once the request is known to be good, send events, notice a client that left. */
export interface LiveEvents {
  /** Opens the stream (200, `text/event-stream`); errors before this are answered as plain error responses. */
  start(): void;
  send(name: string, data: Record<string, unknown>): void;
  /** Aborts when the client disconnects. */
  readonly signal: AbortSignal;
}

/**
 * A server-sent event stream over one HTTP response (`text/event-stream`): `event: <name>` and one
 * `data:` line of JSON per event, a terminal `data: [DONE]`, comments as keep-alives. The response
 * is not committed until `start()` (or the first event), so a request that fails validation still
 * gets its ordinary error response. `signal` aborts when the client goes away before the stream
 * ended, so the work behind it can stop.
 */
export class EventStream implements LiveEvents {
  private readonly controller = new AbortController();
  private closed = false;
  private keepAlive: NodeJS.Timeout | null = null;

  constructor(
    private readonly res: ServerResponse,
    req: IncomingMessage,
    private readonly keepAliveMs = 15_000,
  ) {
    const gone = () => {
      if (!this.closed && !res.writableFinished) this.controller.abort(new Error('the client closed the stream'));
      this.stop();
    };
    res.on('close', gone);
    req.on('aborted', gone);
  }

  /** Whether the stream was opened (the response is committed to `text/event-stream`). */
  get started(): boolean {
    return this.res.headersSent;
  }

  start(): void {
    if (this.res.headersSent || this.closed) return;
    this.res.statusCode = 200;
    this.res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    this.res.setHeader('cache-control', 'no-cache, no-transform');
    this.res.setHeader('connection', 'keep-alive');
    this.res.setHeader('x-accel-buffering', 'no');
    this.res.flushHeaders();
    this.keepAlive = setInterval(() => this.write(': keep-alive\n\n'), this.keepAliveMs);
    this.keepAlive.unref();
  }

  /** Aborts when the client disconnects. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get open(): boolean {
    return !this.closed;
  }

  /** Sends one event: `event: <name>` and its data as one line of JSON. */
  send(name: string, data: Record<string, unknown>): void {
    this.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Sends one unnamed event: a `data:` line of JSON (OpenAI-style streams such as `chat.completion.chunk`). */
  data(payload: Record<string, unknown>): void {
    this.write(`data: ${JSON.stringify(payload)}\n\n`);
  }

  /** Ends a successful stream with `[DONE]`. */
  done(): void {
    this.write('data: [DONE]\n\n');
    this.end();
  }

  /** Ends a successful stream whose protocol has no terminal `[DONE]` (OpenAI's Responses events). */
  close(): void {
    this.end();
  }

  /** Ends a failed stream with an `error` event in the contract's error shape (no `[DONE]`). */
  fail(err: unknown): void {
    this.write(`event: error\ndata: ${JSON.stringify(streamedError(err))}\n\n`);
    this.end();
  }

  private write(chunk: string): void {
    this.start();
    if (!this.closed && !this.res.writableEnded) this.res.write(chunk);
  }

  private end(): void {
    if (this.closed) return;
    this.stop();
    this.res.end();
  }

  private stop(): void {
    this.closed = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
  }
}

/** A signal that aborts when the response's connection closes before the response was finished (the client went away). */
export function closedSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client closed the connection'));
  });
  return gone.signal;
}
