import { rankFiles } from './search-files.handler';
import type { RankedChunk } from '../../retrieval';

const chunk = (fileId: string, chunkIndex: number, score: number, storeId = 's1'): RankedChunk => ({
  storeId,
  fileId,
  chunkIndex,
  score,
  type: 'text',
  text: `${fileId}#${chunkIndex}`,
  offset: 0,
  mimeType: 'text/plain',
  generatedMetadata: null,
  model: null,
  filename: `${fileId}.txt`,
  externalId: null,
  metadata: null,
});

describe('rankFiles: files ranked by their best chunk', () => {
  it('groups chunks per store file, keeps their ranking order, and scores each file by its best chunk', () => {
    const files = rankFiles([
      chunk('a', 2, 0.9),
      chunk('b', 0, 0.8),
      chunk('a', 0, 0.7),
      chunk('b', 1, 0.6),
      chunk('c', 0, 0.5),
      chunk('a', 1, 0.1),
    ]);
    expect(files.map((f) => [f.fileId, f.score, f.chunks.map((c) => c.chunkIndex)])).toEqual([
      ['a', 0.9, [2, 0, 1]],
      ['b', 0.8, [0, 1]],
      ['c', 0.5, [0]],
    ]);
  });

  it('does not reward a file for many mediocre chunks over one with a better passage', () => {
    const many = Array.from({ length: 20 }, (_, i) => chunk('long', i, 0.6 - i * 0.001));
    const files = rankFiles([chunk('short', 0, 0.61), ...many]);
    expect(files.map((f) => f.fileId)).toEqual(['short', 'long']);
  });

  it('tells the same file id in two stores apart, and keeps the chunk ranking’s order on equal scores', () => {
    const files = rankFiles([chunk('f', 0, 0.5, 's2'), chunk('g', 0, 0.5), chunk('f', 0, 0.4, 's1')]);
    expect(files.map((f) => [f.storeId, f.fileId, f.score])).toEqual([
      ['s2', 'f', 0.5],
      ['s1', 'g', 0.5],
      ['s1', 'f', 0.4],
    ]);
  });

  it('ranks a chunk list that is not ordered (after a pin) by the best score all the same', () => {
    expect(
      rankFiles([chunk('x', 0, 0.2), chunk('y', 0, 0.9), chunk('x', 1, 0.95)]).map((f) => [f.fileId, f.score]),
    ).toEqual([
      ['x', 0.95],
      ['y', 0.9],
    ]);
    expect(rankFiles([])).toEqual([]);
  });
});
