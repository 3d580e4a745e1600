/**
 * Incremental parser of a `text/event-stream` body (WHATWG HTML, "Server-sent events"): bytes in, in
 * network chunks split anywhere (inside a line, a CRLF pair or a UTF-8 character), and the `data` of
 * every complete event out. Lines end with LF, CRLF or CR; `:` lines are comments; fields other than
 * `data` (`event`, `id`, `retry`) are ignored; several `data` lines of one event are joined with LF;
 * a blank line ends an event. A leading byte-order mark is dropped.
 */
export class ServerSentEventParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buffer = '';
  private data: string[] | null = null;

  /** Feeds the next bytes of the body; returns the data of every event they complete, in order. */
  push(bytes: Uint8Array): string[] {
    return this.lines(this.decoder.decode(bytes, { stream: true }), false);
  }

  /**
   * The body ended. `events`: those completed by its last bytes; `pending`: the data of an event the
   * body left unterminated (no blank line after it), which the standard discards, or null.
   */
  end(): { events: string[]; pending: string | null } {
    const events = this.lines(this.decoder.decode(), true);
    const pending = this.data === null ? null : this.data.join('\n');
    this.data = null;
    return { events, pending };
  }

  private lines(text: string, final: boolean): string[] {
    const events: string[] = [];
    this.buffer += text;
    let start = 0;
    for (;;) {
      let i = start;
      while (i < this.buffer.length && this.buffer[i] !== '\n' && this.buffer[i] !== '\r') i++;
      if (i === this.buffer.length) break;
      let next = i + 1;
      if (this.buffer[i] === '\r') {
        // a CR at the end of what has arrived may be the first half of a CRLF
        if (i + 1 === this.buffer.length && !final) break;
        if (this.buffer[i + 1] === '\n') next = i + 2;
      }
      this.line(this.buffer.slice(start, i), events);
      start = next;
    }
    this.buffer = this.buffer.slice(start);
    if (final && this.buffer.length) {
      this.line(this.buffer, events);
      this.buffer = '';
    }
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data !== null) events.push(this.data.join('\n'));
      this.data = null;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    (this.data ??= []).push(value);
  }
}
