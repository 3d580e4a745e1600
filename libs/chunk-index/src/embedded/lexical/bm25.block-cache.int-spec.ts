/** The lexical engine's block cache and preload: bounded by blockCacheBytes and its share, with the same answers. */
import { lexicalInput, SCORERS } from '../../testing/bm25-oracle';
import { stemOf } from '../../analysis/analyzer';
import { preloadLexical } from './preload';
import { lexicalProgram } from './search';
import type { LexicalState } from './state';
import { oneFileStore } from '../../testing/lexical-index-files';

describe('lexical engine: top 10 = exhaustive BM25 with per-store statistics', () => {
  // The compressed-block cache keeps at most `blockCacheBytes` between queries (the oldest blocks dropped), and
  // answers the same whatever its size.
  it('keeps its block cache within blockCacheBytes, with the same answers', async () => {
    type Held = { size: number; data: { get(b: number): Uint8Array | undefined } };
    const held = (st: LexicalState) => {
      let bytes = 0;
      for (const d of (st.dirs?.values() ?? []) as Iterable<Held>)
        for (let b = 0; b < d.size; b++) bytes += d.data.get(b)?.length ?? 0;
      return bytes;
    };
    const words = ['jam', 'apple', 'garden', 'pectin', 'sugar', 'boil', 'zest'];
    const texts = Array.from(
      { length: 1500 },
      (_, j) => words.filter((_, k) => (j * (k + 3)) % (k + 2) === 0).join(' ') + ` ${words[j % 7]}`,
    );
    await oneFileStore('cache', texts, 8, (reader) => {
      const small: LexicalState = {};
      const big: LexicalState = {};
      const dense: LexicalState = {};
      for (const text of [
        'jam apple',
        'garden pectin sugar',
        'boil zest',
        'jam garden boil',
        'apple sugar zest pectin',
      ]) {
        const input = lexicalInput(text, { exactBonus: 0.3, ...SCORERS.maxscore });
        const want = lexicalProgram(reader, input, big);
        expect(lexicalProgram(reader, { ...input, blockCacheBytes: 2048 }, small)).toEqual(want);
        expect(small.blockBytes).toBeLessThanOrEqual(2048);
        // what the cache counts is what its current directories hold (their blocks' bytes, each once), however parts were dropped
        // (no writes here: a replaced directory's parts would still count until they age out)
        for (const st of [small, big]) expect(held(st)).toBe(st.blockBytes);
        // lists kept dense count within the bound too
        expect(lexicalProgram(reader, { ...input, ...SCORERS.impact, blockCacheBytes: 20_000 }, dense)).toEqual(want);
        expect((dense.blockBytes ?? 0) + (dense.denseBytes ?? 0)).toBeLessThanOrEqual(20_000);
        expect(dense.denseBytes ?? 0).toBeLessThanOrEqual(10_000);
      }
      // (lists kept dense, and blocks dropped for them: the bound holds less than every block and dense list)
      expect(dense.denseBytes).toBeGreaterThan(0);
      expect(dense.blockBytes).toBeLessThan(big.blockBytes!);
      // the default keeps what it read
      expect(big.blockBytes).toBeGreaterThan(2048);
    });
  }, 60_000);

  // The preload fills the block cache from the largest lists down, in slices, up to its share (never more,
  // never dropping what queries read), and the answers are the same as with a cold cache.
  it('preloads the largest lists within its share, with the same answers', async () => {
    const words = ['jam', 'apple', 'garden', 'pectin', 'sugar', 'boil', 'zest'];
    // "jam" in every chunk, "apple" in every second, ... "zest" in every seventh
    const texts = Array.from(
      { length: 3000 },
      (_, j) => words.filter((_, k) => j % (k + 1) === 0).join(' ') + ` w${j % 13}`,
    );
    await oneFileStore('preload', texts, 8, (reader) => {
      const input = (text: string) => lexicalInput(text, { exactBonus: 0.3 });
      const queries = [
        'jam apple',
        'garden pectin sugar',
        'boil zest',
        'jam garden boil',
        'apple sugar zest pectin',
        'w3 jam',
        'w7 zest garden',
      ];
      const preload = (state: LexicalState, preloadBytes: number, minPostings = 1, denseMinPostings?: number) => {
        let slices = 1;
        while (
          reader.transaction(() =>
            preloadLexical(reader, { preloadBytes, minPostings, sliceMs: 0, denseMinPostings }, state),
          )()
        )
          slices++;
        return slices;
      };
      const all: LexicalState = {};
      // one step a slice: the lists chosen, then each list's runs of blocks
      expect(preload(all, 1 << 30)).toBeGreaterThan(words.length);
      const everything = all.blockBytes!;
      expect(everything).toBeGreaterThan(0);
      // and the flat scorer's arrays are there for every id of the file before a query needs them
      const maxId = reader.prepare(`SELECT max(id) FROM chunks`).pluck().get() as number;
      expect(all.flat!.acc.length).toBeGreaterThan(maxId);
      const arrays = all.flat!.acc;
      for (const scorer of ['flat', 'maxscore', 'cost'] as const)
        for (const text of queries) {
          const cold: LexicalState = {};
          const want = lexicalProgram(reader, { ...input(text), ...SCORERS[scorer] }, cold);
          expect(lexicalProgram(reader, { ...input(text), ...SCORERS[scorer] }, all)).toEqual(want);
          // every block the query needed was preloaded: it read none
          expect(all.blockBytes).toBe(everything);
        }
      // no query allocated them again
      expect(all.flat!.acc).toBe(arrays);
      // lists of at least an eighth of the ids made dense by the preload (the w… words, a thirteenth, not); a query after it makes none and reads nothing
      const denseAll: LexicalState = {};
      preload(denseAll, 1 << 30, 1, 1);
      const storeKey = (
        reader.prepare(`SELECT store_key FROM lex_stores WHERE store_id = 's'`).get() as { store_key: number }
      ).store_key;
      const denseOf = (w: string) => denseAll.dirs?.get(`${storeKey}\u0000${stemOf(w)}`)?.dense;
      expect(words.filter((w) => denseOf(w))).toEqual(words);
      expect(denseAll.dirs?.get(`${storeKey}\u0000w3`)).toBeDefined();
      expect(denseOf('w3')).toBeFalsy();
      expect(denseAll.preload?.stats.dense).toBeGreaterThanOrEqual(words.length);
      const denseBytes = denseAll.denseBytes!;
      for (const text of queries) {
        const want = lexicalProgram(reader, { ...input(text), ...SCORERS.maxscore }, {});
        expect(lexicalProgram(reader, { ...input(text), ...SCORERS.preloadedImpact }, denseAll)).toEqual(want);
        expect(denseAll.denseBytes).toBe(denseBytes);
        expect(denseAll.blockBytes).toBe(everything);
      }
      // a share of a third: the largest lists first, within the share
      const third: LexicalState = {};
      preload(third, Math.floor(everything / 3));
      expect(third.blockBytes).toBeLessThanOrEqual(Math.floor(everything / 3));
      expect(third.blockBytes).toBeGreaterThan(everything / 6);
      const cached = (state: LexicalState, term: string) => {
        const d = state.dirs?.get(
          `${(reader.prepare(`SELECT store_key FROM lex_stores WHERE store_id = 's'`).get() as { store_key: number }).store_key}\u0000${term}`,
        );
        return d ? d.data.count / d.size : 0;
      };
      // the largest: the file's path word (the path field: every chunk holds it), then jam's
      expect(cached(third, 'f0')).toBe(1);
      expect(cached(third, 'jam')).toBeGreaterThan(0);
      expect(cached(third, 'zest')).toBe(0);
      for (const text of queries)
        expect(lexicalProgram(reader, input(text), third)).toEqual(lexicalProgram(reader, input(text), {}));
      // lists below minPostings are left out; nothing is preloaded where queries already filled the share
      const large: LexicalState = {};
      preload(large, 1 << 30, 1000);
      expect(cached(large, 'jam')).toBe(1);
      expect(cached(large, 'zest')).toBe(0);
      const used: LexicalState = {};
      for (const text of queries) lexicalProgram(reader, input(text), used);
      const before = used.blockBytes!;
      expect(preload(used, before)).toBe(1);
      expect(used.blockBytes).toBe(before);
    });
  }, 60_000);
});
