import type { Request, Response } from 'express';
import { closedSignal, EventStream } from '@larder/kernel';

/**
 * Answers a model call as JSON, or, when streamed, as server-sent events: `run` gets the open stream
 * (null when not streamed) and the signal that aborts when the client leaves; `finish` ends a stream that
 * succeeded. An error before the stream opened is an ordinary error response; after, an `error` event in
 * the contract's error shape.
 */
export async function jsonOrStream(
  req: Request,
  res: Response,
  stream: boolean,
  run: (live: EventStream | null, signal: AbortSignal) => Promise<unknown>,
  finish: (live: EventStream) => void,
): Promise<void> {
  if (!stream) {
    const out = await run(null, closedSignal(res));
    res.status(200).json(out);
    return;
  }
  const live = new EventStream(res, req);
  try {
    await run(live, live.signal);
    finish(live);
  } catch (err) {
    if (!live.started) throw err;
    live.fail(err);
  }
}
