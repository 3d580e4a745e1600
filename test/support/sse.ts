/* eslint-disable @typescript-eslint/no-explicit-any */
/** One server-sent event as a client reads it: its `event:` name (or null) and its data. */
export interface ServerSentEvent {
  event: string | null;
  data: string;
}

/**
 * Reads a `text/event-stream` body event by event, as it arrives (not after it ended), the way the
 * SSE specification parses it: fields per line, events at blank lines, comments ignored.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | null = null;
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\n|\r/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (data.length) yield { event, data: data.join('\n') };
          event = null;
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Every event of a stream, with its data parsed as JSON (the `[DONE]` terminator kept as a string). */
export async function allEvents(res: Response): Promise<Array<{ event: string | null; data: any }>> {
  const out: Array<{ event: string | null; data: any }> = [];
  for await (const e of readEvents(res.body!))
    out.push({ event: e.event, data: e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data) });
  return out;
}
