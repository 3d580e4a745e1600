/** The lexical engine's dense lists across writes: counted per current directory, rescored, looked up by MaxScore. */
import { lexicalInput, SCORERS } from '../../testing/bm25-oracle';
import { preloadLexical } from './preload';
import { lexicalProgram } from './search';
import type { LexicalState } from './state';
import { writtenStore } from '../../testing/lexical-index-files';

describe('lexical engine: top 10 = exhaustive BM25 with per-store statistics', () => {
  // A list's dense form goes with its directory: after writes give the lists new generations, the bytes counted
  // are those of the current directories' dense lists only (the old ones neither counted nor kept).
  it('counts only the current directories’ dense lists after writes', async () => {
    await writtenStore('dense-writes', async (write, reader) => {
      const state: LexicalState = {};
      const ask = () => {
        for (const text of ['jam apple', 'garden boil', 'sugar jam'])
          lexicalProgram(reader, lexicalInput(text, SCORERS.impact), state);
        const held = [...(state.dirs?.values() ?? [])].reduce(
          (sum, d) => sum + ((d as { dense?: { bytes: number } | null }).dense?.bytes ?? 0),
          0,
        );
        expect(state.denseBytes ?? 0).toBe(held);
        expect((state.denseQueue ?? []).every((d) => [...(state.dirs?.values() ?? [])].includes(d))).toBe(true);
      };
      for (let f = 0; f < 4; f++) {
        await write(
          f,
          Array.from({ length: 500 }, (_, j) => `jam apple ${j % 2 ? 'garden' : 'sugar'} boil ${f}`),
        );
        ask();
      }
      expect(state.denseBytes).toBeGreaterThan(0);
    });
  }, 60_000);

  // A dense list keeps its kinds' order (and tfNorm) for the next query; a write of other words changes the
  // store's average length but not the list: the next query scores with the new length, as MaxScore does.
  it('scores a kept dense list at the store’s new average length after writes of other words', async () => {
    await writtenStore('dense-length', async (write, reader) => {
      // jam and apple in every chunk, 1–3 times, in chunks of 3–40 words
      await write(
        0,
        Array.from(
          { length: 600 },
          (_, j) => `${'jam '.repeat(1 + (j % 3))}${'apple '.repeat(1 + ((j * 7) % 3))}${'filler '.repeat(j % 38)}`,
        ),
      );
      const state: LexicalState = {};
      const input = lexicalInput('jam apple');
      const denseLists = () =>
        new Set([...(state.dirs?.values() ?? [])].map((d) => (d as { dense?: object | null }).dense).filter((d) => d));
      expect(lexicalProgram(reader, { ...input, ...SCORERS.impact }, state)).toEqual(
        lexicalProgram(reader, { ...input, ...SCORERS.maxscore }, {}),
      );
      const before = denseLists();
      expect(before.size).toBe(2);
      // long chunks of other words: the average length grows fourfold, jam's and apple's lists stay as they are
      await write(
        1,
        Array.from({ length: 600 }, (_, j) => `other ${'words '.repeat(150 + (j % 5))}`),
      );
      const want = lexicalProgram(reader, { ...input, ...SCORERS.maxscore }, {});
      expect(lexicalProgram(reader, { ...input, ...SCORERS.impact }, state)).toEqual(want);
      // (the same dense lists answered: their order was made again, not the lists)
      expect([...denseLists()].filter((d) => before.has(d))).toHaveLength(2);
    });
  }, 60_000);

  // MaxScore looks a dense list up for a candidate once the list is non-essential: "jam" (in every chunk, 1–4
  // times, chunks of 2–40 words) is made dense by the preload and soon non-essential beside "apple" (every
  // tenth chunk, too sparse to be dense); the scores are those of plain MaxScore on a cache with no dense
  // list (a lookup one id off fails it).
  it('by MaxScore, scores a dense list by lookup as by its blocks', async () => {
    await writtenStore('dense-lookup', async (write, reader) => {
      await write(
        0,
        Array.from(
          { length: 2000 },
          (_, j) =>
            `${'jam '.repeat(1 + (j % 4))}${j % 10 === 0 ? 'apple '.repeat(1 + (j % 3)) : ''}${'filler '.repeat(j % 37)}`,
        ),
      );
      const state: LexicalState = {};
      while (
        reader.transaction(() =>
          preloadLexical(reader, { preloadBytes: 1 << 30, minPostings: 1, sliceMs: 0, denseMinPostings: 1 }, state),
        )()
      );
      expect([...(state.dirs?.values() ?? [])].some((d) => (d as { dense?: object | null }).dense)).toBe(true);
      for (const limit of [1, 10, 50]) {
        const input = lexicalInput('apple jam', { limit });
        expect(lexicalProgram(reader, { ...input, ...SCORERS.preloadedMaxScore }, state)).toEqual(
          lexicalProgram(reader, { ...input, ...SCORERS.maxscore }, {}),
        );
      }
    });
  }, 60_000);
});
