import { applyDecorators, HttpCode, Post } from '@nestjs/common';
import type { CommandBus, ICommand } from '@nestjs/cqrs';
import type { Request, Response } from 'express';
import { closedSignal, EventStream, RequireScope, RequiredScope } from '@larder/kernel';

/** A `POST` route answered 200 by `jsonOrStream`, under a key scope. */
export const AnswerPost = (scope: RequiredScope, path?: string) =>
  applyDecorators(Post(path), HttpCode(200), RequireScope(scope));

/**
 * Answers a request as JSON, or, when streamed, as server-sent events: `run` gets the open stream
 * (null when not streamed) and the signal that aborts when the client leaves; `finish` ends a stream that
 * succeeded, with the answer; `json` sends the answer of one that was not streamed (200, as JSON). An error
 * before the stream opened is an ordinary error response; after, an `error` event in the contract's error
 * shape.
 */
export async function jsonOrStream<T>(
  req: Request,
  res: Response,
  stream: boolean,
  run: (live: EventStream | null, signal: AbortSignal) => Promise<T>,
  finish: (live: EventStream, out: T) => void,
  json: (out: T) => void = (out) => void res.status(200).json(out),
): Promise<void> {
  if (!stream) {
    json(await run(null, closedSignal(res)));
    return;
  }
  const live = new EventStream(res, req);
  try {
    finish(live, await run(live, live.signal));
  } catch (err) {
    if (!live.started) throw err;
    live.fail(err);
  }
}

/**
 * `jsonOrStream` for a command the bus runs: `command` builds it from the open stream (null when not streamed)
 * and the signal that aborts when the client leaves; `finish` ends a stream that succeeded.
 */
export function answerCommand(
  commands: CommandBus,
  req: Request,
  res: Response,
  stream: boolean,
  command: (live: EventStream | null, signal: AbortSignal) => ICommand,
  finish: (live: EventStream) => void,
): Promise<void> {
  return jsonOrStream(req, res, stream, (live, signal) => commands.execute(command(live, signal)), finish);
}

/** Sets a response header while the headers are not yet sent (a streamed answer's have been). */
export const headerSetter =
  (res: Response) =>
  (name: string, value: string): void => {
    if (!res.headersSent) res.setHeader(name, value);
  };
