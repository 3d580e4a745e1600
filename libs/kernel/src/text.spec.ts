import { plainInputProblem } from './limits';
import { textProblem } from './text';

describe('textProblem: the one rule for incoming text', () => {
  it.each([['plain'], [''], ['🥖 emoji (a surrogate pair)'], ['\uffff'], ['e\u0301']])('accepts %j', (text) => {
    expect(textProblem(text, ['body'])).toBeNull();
  });

  it.each([
    ['a lone high surrogate', 'x\ud800y', 'string_unicode'],
    ['a lone low surrogate', '\udfff', 'string_unicode'],
    ['a pair in the wrong order', '\udc00\ud800', 'string_unicode'],
    ['a high surrogate at the end', 'ok\ud83e', 'string_unicode'],
    ['NUL', 'a\u0000b', 'string_nul'],
  ])('refuses %s with its loc', (_what, text, type) => {
    expect(textProblem(text, ['body', 'name'])?.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'name'], type }),
    ]);
  });

  it('holds every string and key of parsed JSON to it', () => {
    expect(plainInputProblem({ a: [{ b: 'x\ud800' }] }, ['body'])?.detail[0]).toMatchObject({
      loc: ['body', 'a', 0, 'b'],
      type: 'string_unicode',
    });
    expect(plainInputProblem({ m: { 'k\udc00': 1 } }, ['body'])?.detail[0]).toMatchObject({
      loc: ['body', 'm', 'k\udc00'],
      type: 'string_unicode',
    });
    expect(plainInputProblem({ m: { '🥖': ['🧈'] } }, ['body'])).toBeNull();
  });
});
