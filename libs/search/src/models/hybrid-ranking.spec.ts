import { documentText, fusedScores } from './hybrid-ranking';

describe('reranking inputs and the hybrid ranking', () => {
  it('reads strings as they are, objects by their rank_fields (dotted paths) or all fields, lists as JSON', () => {
    const doc = { title: 'Sourdough', body: 'Feed the starter daily.', meta: { year: 2024 }, tags: ['bread'] };
    expect(documentText('plain text', ['title'])).toBe('plain text');
    expect(documentText(doc, ['body', 'meta.year', 'missing'])).toBe('body: Feed the starter daily.\nmeta.year: 2024');
    expect(documentText(doc, null)).toBe(
      'title: Sourdough\nbody: Feed the starter daily.\nmeta: {"year":2024}\ntags: ["bread"]',
    );
    expect(documentText(['a', 1], null)).toBe('["a",1]');
  });

  it('fuses BM25 and cosine as the search does: weighted min-max shares, documents no list scores at 0, ties in input order', () => {
    const v = (...x: number[]) => new Float32Array(x);
    const q = v(1, 0);
    // doc 0: best lexically, orthogonal; doc 1: no term, aligned; doc 2: both middling; doc 3: nothing
    const scores = fusedScores([4, 0, 2, 0], q, [v(0, 1), v(1, 0), v(1, 1), v(-1, 0)], {
      method: 'relative',
      lexicalWeight: 0.7,
    });
    expect(scores[0]).toBeCloseTo(0.7 + 0.3 * 0.5, 6);
    expect(scores[1]).toBeCloseTo(0.3, 6);
    expect(scores[2]).toBeCloseTo(0.7 * 0 + 0.3 * ((Math.SQRT1_2 + 1) / 2), 6);
    expect(scores[3]).toBe(0);
    // without vectors the lexical list is the whole ranking
    expect(fusedScores([1, 3, 0], null, null, { method: 'relative', lexicalWeight: 0.7 })).toEqual([0, 1, 0]);
  });
});
