import type { ChunkHit } from '@larder/chunk-index';
import {
  ADAPTIVE_DENSE_LEAD_SLOPE,
  adaptiveLexicalWeight,
  fuse,
  fuseHits,
  FusionMethod,
  LEAD_EVIDENCE,
} from './ranking';
import { withFirstStage } from './retrieval';
import { seededRandom as rng } from '@larder/kernel/testing/random';

describe('fuseHits', () => {
  it('is withFirstStage(fuse(…)) of the same lists: the same hits, order, scores and first stages', () => {
    const r = rng(3);
    const pool: ChunkHit[] = Array.from({ length: 60 }, (_, i) => ({
      storeId: i % 3 ? 's1' : 's2',
      fileId: `f${i % 7}`,
      chunkIndex: i,
      score: 0,
    }));
    const list = (n: number, tie: boolean) =>
      [...pool]
        .sort(() => r() - 0.5)
        .slice(0, n)
        .map((h) => ({ ...h, score: tie ? 1 : Math.round(r() * 20) / 4 }))
        .sort((a, b) => b.score - a.score);
    let checked = 0;
    for (let i = 0; i < 300; i++) {
      const lexical = list([0, 1, 5, 30, 50][i % 5], i % 11 === 0);
      const dense = list([50, 0, 3, 30, 1][Math.floor(i / 5) % 5], i % 13 === 0);
      const options = {
        method: (['relative', 'rrf', 'adaptive'] as FusionMethod[])[i % 3],
        lexicalWeight: [0, 0.3, 0.5, 1][Math.floor(i / 2) % 4],
        leadEvidence: i % 4 === 0 ? LEAD_EVIDENCE : undefined,
      };
      const want = withFirstStage(fuse(lexical, dense, options), lexical, dense);
      const got = fuseHits(lexical, dense, options);
      expect(got).toEqual(
        want.map(({ storeId, fileId, chunkIndex, score, firstStagePosition, firstStageSource }) => ({
          storeId,
          fileId,
          chunkIndex,
          score,
          firstStagePosition,
          firstStageSource,
        })),
      );
      checked += got.length;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('a chunk in both lists is from both, at its better rank; one in one list only is from that one', () => {
    const a = { storeId: 's', fileId: 'f', chunkIndex: 0 };
    const b = { storeId: 's', fileId: 'f', chunkIndex: 1 };
    const c = { storeId: 's', fileId: 'g', chunkIndex: 0 };
    const got = fuseHits(
      [
        { ...a, score: 3 },
        { ...b, score: 2 },
      ],
      [
        { ...c, score: 0.9 },
        { ...a, score: 0.5 },
      ],
      { method: 'relative', lexicalWeight: 0.5 },
    );
    expect(got.map((h) => [h.fileId, h.chunkIndex, h.firstStagePosition, h.firstStageSource])).toEqual([
      ['f', 0, 0, 'both'],
      ['g', 0, 0, 'dense'],
      ['f', 1, 1, 'sparse'],
    ]);
  });
});

describe('adaptive fusion', () => {
  const hit = (fileId: string, score: number): ChunkHit => ({ storeId: 's', fileId, chunkIndex: 0, score });

  it('lowers the lexical weight by the slope × the dense list’s lead (first cosine − second), within [0, 1]', () => {
    const dense = [hit('a', 0.5), hit('b', 0.7), hit('c', 0.6)];
    expect(adaptiveLexicalWeight(dense, 0.8)).toBeCloseTo(0.8 - ADAPTIVE_DENSE_LEAD_SLOPE * 0.1, 12);
    // a tie at the top: no lead, the configured weight
    expect(adaptiveLexicalWeight([hit('a', 0.7), hit('b', 0.7)], 0.8)).toBe(0.8);
    // one or no dense hit: nothing to compare, the configured weight
    expect(adaptiveLexicalWeight([hit('a', 0.9)], 0.8)).toBe(0.8);
    expect(adaptiveLexicalWeight([], 0.8)).toBe(0.8);
    expect(adaptiveLexicalWeight([hit('a', 1), hit('b', -1)], 0.8)).toBe(0);
  });

  it('is relative fusion with that weight', () => {
    const lexical = [hit('a', 9), hit('b', 5), hit('c', 1)];
    const dense = [hit('c', 0.9), hit('b', 0.6), hit('d', 0.55)];
    const w = adaptiveLexicalWeight(dense, 0.8);
    expect(w).toBeLessThan(0.8);
    expect(fuse(lexical, dense, { method: 'adaptive', lexicalWeight: 0.8 })).toEqual(
      fuse(lexical, dense, { method: 'relative', lexicalWeight: w }),
    );
    // with the lexical list alone, it is the lexical list (as relative)
    expect(fuse(lexical, [], { method: 'adaptive', lexicalWeight: 0.8 }).map((h) => h.fileId)).toEqual(['a', 'b', 'c']);
  });

  it('ranks a chunk the embedding singles out above the lexical runner-up that a fixed weight keeps first', () => {
    // lexical: a, then c far below; dense: c well ahead of the rest
    const lexical = [hit('a', 10), hit('b', 6), hit('c', 5.5), hit('e', 0)];
    const dense = [hit('c', 0.8), hit('d', 0.55), hit('a', 0.5), hit('e', 0.3)];
    const fixed = fuse(lexical, dense, { method: 'relative', lexicalWeight: 0.8 }).map((h) => h.fileId);
    const adaptive = fuse(lexical, dense, { method: 'adaptive', lexicalWeight: 0.8 }).map((h) => h.fileId);
    expect(fixed[0]).toBe('a');
    expect(adaptive[0]).toBe('c');
  });
});

describe('lead evidence', () => {
  const at = (fileId: string, chunkIndex: number, score: number): ChunkHit => ({
    storeId: 's',
    fileId,
    chunkIndex,
    score,
  });
  const relative = { method: 'relative' as const, lexicalWeight: 1 };

  it("adds the share of its file's first chunk's score to each chunk, divided by 1 + the share", () => {
    // min-max over the list: a 1, b/1 0.5, c/3 0.25, b/0 0
    const lexical = [at('a', 2, 5), at('b', 1, 3), at('c', 3, 2), at('b', 0, 1)];
    const plain = fuse(lexical, [], relative);
    const led = fuse(lexical, [], { ...relative, leadEvidence: 0.5 });
    expect(plain.map((c) => [c.fileId, c.chunkIndex, c.score])).toEqual([
      ['a', 2, 1],
      ['b', 1, 0.5],
      ['c', 3, 0.25],
      ['b', 0, 0],
    ]);
    // b's first chunk is a candidate (score 0 here: it adds nothing); a and c's are not
    expect(led.map((c) => [c.fileId, c.chunkIndex, c.score])).toEqual([
      ['a', 2, 1 / 1.5],
      ['b', 1, 0.5 / 1.5],
      ['c', 3, 0.25 / 1.5],
      ['b', 0, 0],
    ]);
  });

  it("ranks a file whose first chunk matches above one whose later chunk matches a little better, keeping a file's own order", () => {
    const lexical = [at('long', 7, 10), at('short', 0, 9.5), at('long', 3, 4), at('other', 0, 0)];
    const plain = fuse(lexical, [], relative);
    expect(plain.map((c) => c.fileId)).toEqual(['long', 'short', 'long', 'other']);
    const led = fuse(lexical, [], { ...relative, leadEvidence: LEAD_EVIDENCE });
    expect(led.map((c) => `${c.fileId}/${c.chunkIndex}`)).toEqual(['short/0', 'long/7', 'long/3', 'other/0']);
    for (const c of led) expect(c.score).toBeLessThanOrEqual(1);
    // a file's chunks: the same order with and without
    const order = (list: ChunkHit[]) => list.filter((c) => c.fileId === 'long').map((c) => c.chunkIndex);
    expect(order(led)).toEqual(order(plain));
  });

  it('changes no order where every file has one chunk', () => {
    const lexical = [at('a', 0, 5), at('b', 0, 3), at('c', 0, 2)];
    const dense = [at('c', 0, 0.9), at('d', 0, 0.5), at('a', 0, 0.4)];
    const options = { method: 'adaptive' as const, lexicalWeight: 0.8 };
    const plain = fuse(lexical, dense, options);
    const led = fuse(lexical, dense, { ...options, leadEvidence: LEAD_EVIDENCE });
    expect(led.map((c) => c.fileId)).toEqual(plain.map((c) => c.fileId));
    led.forEach((c, i) => expect(c.score).toBeCloseTo(plain[i].score, 12));
  });
});
