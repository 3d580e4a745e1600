import fc from 'fast-check';
import { estimateTokens, truncateToTokens } from './document';

describe('truncateToTokens', () => {
  const text = 'Feed the starter, then wait: sourdough rises slowly overnight.';

  it('keeps the head or the tail within the budget', () => {
    expect(estimateTokens(text)).toBe(15);
    expect(truncateToTokens(text, 4, 'head')).toBe('Feed the starter');
    expect(truncateToTokens(text, 3, 'tail')).toBe(' overnight.');
    expect(truncateToTokens(text, 15, 'head')).toBe(text);
    expect(truncateToTokens(text, 0, 'tail')).toBe('');
  });

  it('cuts a word longer than what is left inside it', () => {
    expect(truncateToTokens('a supercalifragilistic word', 2, 'head')).toBe('a superc');
  });

  it('never exceeds the budget, and is a prefix (head) or suffix (tail) of the text', () =>
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 0, max: 80 }), (s, max) => {
        const head = truncateToTokens(s, max, 'head');
        const tail = truncateToTokens(s, max, 'tail');
        expect(s.startsWith(head)).toBe(true);
        expect(s.endsWith(tail)).toBe(true);
        expect(estimateTokens(head)).toBeLessThanOrEqual(max);
        expect(estimateTokens(tail)).toBeLessThanOrEqual(max);
      }),
    ));
});
