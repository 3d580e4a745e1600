import type { ChunkHit } from '@larder/chunk-index';
import { fuse, fuseHits, FusionMethod } from './ranking';
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
        method: (['relative', 'rrf'] as FusionMethod[])[i % 2],
        lexicalWeight: [0, 0.3, 0.5, 1][Math.floor(i / 2) % 4],
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
