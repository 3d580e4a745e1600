/** The lexical engine's scorers (flat, MaxScore, impacts) answer alike: spans of ids, zero sums, balanced chunks. */
import { rmSync } from 'fs';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { ChunkIndexOp } from '../../chunk-index.port';
import { SqliteChunkIndex } from '../sqlite.chunk-index';
import { lexicalProgram } from './search';
import { VOCAB } from '../../testing/lexical-arbitraries';
import { lexicalInput, SCORERS } from '../../testing/bm25-oracle';
import { indexPath, oneFileStore } from '../../testing/lexical-index-files';
import { markdownFileOps } from '../../testing/file-ops';

describe('lexical engine: top 10 = exhaustive BM25 with per-store statistics', () => {
  // Stores of thousands of chunks, two interleaved (so a store's ids have gaps): the flat scorer's two ways
  // to its top (the touched ids where the postings are sparse in the id range; else spans of 256 ids read
  // best first) and its per-(count, length) contributions must give MaxScore's very hits and scores, ties
  // (many, in a small vocabulary) included, at several depths.
  it('the flat scorer answers as MaxScore over stores of many spans of ids', async () => {
    const skewed = fc.nat({ max: 9999 }).map((x) => VOCAB[Math.floor(VOCAB.length * (x / 10000) ** 4)]);
    const chunk = fc
      .tuple(fc.array(skewed, { minLength: 1, maxLength: 12 }), fc.option(skewed, { nil: null }))
      .map(([ws, h]) => (h ? `# ${h}\n` : '') + ws.join(' '));
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 6, max: 30 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.array(fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 4 }), { minLength: 4, maxLength: 10 }),
        fc.record({
          k1: fc.double({ min: 0.5, max: 2, noNaN: true }),
          b: fc.double({ min: 0, max: 1, noNaN: true }),
          // 0: a heading-only match sums 0 and is still a hit, as MaxScore answers it
          headingWeight: fc.constantFrom(0, 0.5, 2),
          exactBonus: fc.constantFrom(0, 0.3),
          stopWords: fc.constant(true),
        }),
        async (files, seed, queries, p) => {
          const path = indexPath('spans');
          const index = new SqliteChunkIndex(path, { readWorker: false, lexical: { ...p, feedback: null } });
          await index.setup();
          const reader = new Database(path, { readonly: true });
          try {
            // 100 chunks a file, files alternating between the stores (texts drawn from the seed)
            const texts = fc.sample(chunk, { numRuns: files * 100, seed });
            const ops: ChunkIndexOp[] = [];
            for (let f = 0; f < files; f++) {
              const storeId = `s${f % 2}`;
              const fileId = `f${f}`;
              ops.push(...markdownFileOps(storeId, fileId, texts.slice(f * 100, f * 100 + 100)));
            }
            await index.write(ops, { projection: 'p', version: 1, position: { commit: 1n, prepare: 1n } });
            for (const words of queries)
              for (const limit of [1, 10, 50])
                for (const storeIds of [['s0'], ['s1'], ['s0', 's1']]) {
                  const answer = (scorer: keyof typeof SCORERS) =>
                    lexicalProgram(
                      reader,
                      {
                        text: words.join(' '),
                        columns: 'c.id AS id',
                        storeIds,
                        limit,
                        ...p,
                        feedback: null,
                        ...SCORERS[scorer],
                      },
                      {},
                    );
                  const maxScore = answer('maxscore');
                  expect(answer('flat')).toEqual(maxScore);
                  expect(answer('impact')).toEqual(maxScore);
                }
          } finally {
            reader.close();
            await index.close();
            rmSync(path, { force: true });
          }
        },
      ),
      { numRuns: 12, endOnFailure: true },
    );
  }, 120_000);

  // With heading weight 0 a chunk whose only match is in its heading sums 0 and is still a hit (MaxScore
  // answers it below the others); the flat scorer's dense path must not take "sums 0" for "not touched".
  it('a hit that sums 0 is answered by every scorer', async () => {
    // 2,000 chunks: "pectin" in the body of every tenth (200), "zest" in the heading of five only
    const texts = Array.from(
      { length: 2000 },
      (_, j) => `${j % 400 === 7 ? '# zest\n' : ''}apple garden ${j % 10 === 3 ? 'pectin' : 'sugar'} boil`,
    );
    await oneFileStore('zero', texts, undefined, (reader) => {
      const answer = (scorer: keyof typeof SCORERS) =>
        lexicalProgram(
          reader,
          {
            text: 'pectin zest',
            columns: 'c.id AS id',
            storeIds: ['s'],
            limit: 300,
            k1: 1.2,
            b: 0.75,
            headingWeight: 0,
            exactBonus: 0,
            stopWords: true,
            feedback: null,
            ...SCORERS[scorer],
          },
          {},
        );
      const maxScore = answer('maxscore');
      expect(maxScore).toHaveLength(205);
      expect(maxScore.filter((r) => r.score === 0)).toHaveLength(5);
      expect(answer('flat')).toEqual(maxScore);
      expect(answer('cost')).toEqual(maxScore);
      expect(answer('impact')).toEqual(maxScore);
    });
  }, 60_000);

  // The threshold algorithm may stop only once no chunk it has not met can enter: here the best chunks hold
  // each word three times, a kind below each list's best (six times, with the other word once), and their
  // sums beat the one-sided chunks' by ~13% (tf saturation): a stop taken while the unread kinds could still
  // give more than that over the k-th misses them (checked: stopping at bound < 1.3 × the k-th fails here).
  it('by impacts, answers the chunks that are best in no list alone', async () => {
    const texts = Array.from({ length: 3000 }, (_, j) =>
      j % 300 === 11
        ? 'alpha alpha alpha beta beta beta'
        : j % 3 === 0
          ? 'alpha alpha alpha alpha alpha alpha beta'
          : j % 3 === 1
            ? 'alpha beta beta beta beta beta beta'
            : 'alpha beta gamma delta epsilon zeta',
    );
    await oneFileStore('kinds', texts, undefined, (reader) => {
      const answer = (scorer: keyof typeof SCORERS, limit: number) =>
        lexicalProgram(reader, lexicalInput('alpha beta', { limit, ...SCORERS[scorer] }), {});
      for (const limit of [1, 10, 12]) {
        const maxScore = answer('maxscore', limit);
        // the ten balanced chunks first
        expect(maxScore.slice(0, Math.min(limit, 10)).every((r) => ((r.id as number) - 1) % 300 === 11)).toBe(true);
        expect(answer('impact', limit)).toEqual(maxScore);
      }
    });
  }, 60_000);
});
