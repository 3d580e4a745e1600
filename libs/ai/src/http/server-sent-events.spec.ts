import { ServerSentEventParser } from './server-sent-events';

const bytes = (s: string) => new TextEncoder().encode(s);

function parseInPieces(body: Uint8Array, cuts: number[]): { events: string[]; pending: string | null } {
  const parser = new ServerSentEventParser();
  const events: string[] = [];
  let from = 0;
  for (const cut of [...cuts, body.length]) {
    events.push(...parser.push(body.subarray(from, cut)));
    from = cut;
  }
  const end = parser.end();
  return { events: [...events, ...end.events], pending: end.pending };
}

describe('ServerSentEventParser', () => {
  const body = bytes(
    '\uFEFF: keep-alive comment\n' +
      'data: {"a":"café ☕ 日本語 🎉"}\n\n' +
      'event: message\r\nid: 7\r\nretry: 100\r\ndata: {"b":1}\r\n\r\n' +
      'data:first\rdata: second\r\r' +
      'data\n\n' +
      'data: [DONE]\n\n',
  );
  const expected = ['{"a":"café ☕ 日本語 🎉"}', '{"b":1}', 'first\nsecond', '', '[DONE]'];

  it('reads data events with LF, CRLF and CR line ends, comments and other fields', () => {
    expect(parseInPieces(body, [])).toEqual({ events: expected, pending: null });
  });

  it('gives the same events however the body is split: at every byte, and into single bytes', () => {
    for (let cut = 1; cut < body.length; cut++) expect(parseInPieces(body, [cut]).events).toEqual(expected);
    expect(
      parseInPieces(
        body,
        Array.from({ length: body.length - 1 }, (_, i) => i + 1),
      ).events,
    ).toEqual(expected);
  });

  it('reports an event the body left without its blank line as pending', () => {
    expect(parseInPieces(bytes('data: {"x":1}\n\ndata: [DONE]'), [])).toEqual({
      events: ['{"x":1}'],
      pending: '[DONE]',
    });
    expect(parseInPieces(bytes('data: {"x":1}\n\ndata: {"y"'), [17])).toEqual({ events: ['{"x":1}'], pending: '{"y"' });
    expect(parseInPieces(bytes('data: {"x":1}\n\n: only a comment'), [])).toEqual({
      events: ['{"x":1}'],
      pending: null,
    });
  });
});
