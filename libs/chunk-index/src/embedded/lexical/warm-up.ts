import Database from 'better-sqlite3';
import { seededRandom } from '@larder/kernel/random';
import { migrateChunkDatabase } from '../sqlite.schema';
import { DEFAULT_LEXICAL_OPTIONS } from '../sqlite.options';
import type { LexicalInput } from './input';
import { preloadLexical } from './preload';
import { lexicalProgram } from './search';
import type { LexicalState } from './state';
import { LexicalWriter } from './writer';

/** Chunks, words a chunk and distinct words of the synthetic store the warm-up searches. */
const WARM_CHUNKS = 2_000;
const WARM_WORDS = 30;
const WARM_VOCABULARY = 1_000;
/** Queries the warm-up runs with each ranker. */
const WARM_QUERIES = 100;

/**
 * Runs the lexical search's code once through on a small synthetic store of its own (an in-memory
 * database and a state of its own: nothing of the index's is read or cached), so that V8 has compiled it
 * before the read worker's first query: the preload and its dense lists, then queries by each ranker
 * (impacts, flat, MaxScore). A read worker just started otherwise runs that code unoptimised for its first
 * hundreds of queries, the preload beside them. On the peers bench's 100k-chunk store (its 200 timed queries
 * after 20, the read worker started by the first, as the bench runs them; seven runs each, in turns, on a
 * loaded 2-core machine, the worker's time less its waits for a core): p99 1.2–21 ms (median 9.5), 1–17
 * queries over 2 ms, without; 1.3–2.7 ms, 0–3 over 2 ms, with. It costs the worker ~0.35 s of CPU as it
 * starts (a server starts its read worker with the process). Answers the ms it took.
 */
export function warmLexical(): number {
  const t0 = performance.now();
  const db = new Database(':memory:');
  try {
    migrateChunkDatabase(db);
    const writer = new LexicalWriter(db);
    writer.migrate();
    const storeId = 'warm-up';
    // deterministic Zipf-like words (mulberry32): a few in most chunks (lists made dense), most in a few
    const next = seededRandom(0x9e3779b9);
    const word = () => `w${Math.floor(Math.exp(next() * Math.log(WARM_VOCABULARY))) - 1}x`;
    db.transaction(() => {
      for (let i = 0; i < WARM_CHUNKS; i++)
        writer.addFile(
          storeId,
          [{ id: writer.takeId(), text: Array.from({ length: WARM_WORDS }, word).join(' '), generatedMetadata: null }],
          null,
        );
      writer.flush();
    })();
    writer.commit();
    const { feedbackMinWords: _, ...options } = DEFAULT_LEXICAL_OPTIONS;
    const base: LexicalInput = {
      ...options,
      text: '',
      columns: 'c.id',
      storeIds: [storeId],
      includeFiles: null,
      excludeFiles: null,
      limit: 10,
      feedback: null,
      denseMinPostings: 256,
    };
    const state: LexicalState = {};
    while (db.transaction(() => preloadLexical(db, { minPostings: 1, denseMinPostings: 256, sliceMs: 50 }, state))());
    const rankers: Array<Partial<LexicalInput>> = [
      {},
      { denseMinPostings: Infinity },
      { denseMinPostings: Infinity, flatMaxPostings: 0, flatCostRatio: 0 },
    ];
    for (const ranker of rankers)
      for (let q = 0; q < WARM_QUERIES; q++) {
        const text = `${word()} ${word()} ${word()}`;
        db.transaction(() => lexicalProgram(db, { ...base, ...ranker, text }, state))();
      }
  } finally {
    db.close();
  }
  return performance.now() - t0;
}
