/** Compaction of a store's lexical index: its posting lists rewritten without the tombstoned postings. */
import type Database from 'better-sqlite3';
import { blockPostings, decodeBlock, encodeBlock, Posting } from './postings';

/** Rewrites the lists of the store `key` without their tombstoned postings, in blocks of `blockSize` (in the caller's transaction). */
export function compactStore(db: Database.Database, key: number, blockSize: number): void {
  const dead = new Set(db.prepare(`SELECT id FROM lex_dead WHERE store_key = ?`).pluck().all(key) as number[]);
  const terms = db.prepare(`SELECT term FROM lex_terms WHERE store_key = ?`).pluck().all(key) as string[];
  const blocksOf = db.prepare(
    `SELECT first, count, data FROM lex_blocks WHERE store_key = ? AND term = ? ORDER BY block`,
  );
  const delBlocks = db.prepare(`DELETE FROM lex_blocks WHERE store_key = ? AND term = ?`);
  const putBlock = db.prepare(
    `INSERT INTO lex_blocks (store_key, term, block, first, last, count, max_body, max_heading, min_length, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const updTerm = db.prepare(`UPDATE lex_terms SET blocks = ?, gen = gen + 1 WHERE store_key = ? AND term = ?`);
  const delTerm = db.prepare(`DELETE FROM lex_terms WHERE store_key = ? AND term = ?`);
  for (const t of terms) {
    const live: Posting[] = [];
    let changed = false;
    for (const b of blocksOf.all(key, t) as Array<{ first: number; count: number; data: Buffer }>) {
      for (const p of blockPostings(decodeBlock(b.data, b.first, b.count))) {
        if (dead.has(p.id)) changed = true;
        else live.push(p);
      }
    }
    if (!changed) continue;
    delBlocks.run(key, t);
    if (!live.length) {
      delTerm.run(key, t);
      continue;
    }
    let blocks = 0;
    for (let i = 0; i < live.length; i += blockSize, blocks++) {
      const { meta, data } = encodeBlock(live.slice(i, i + blockSize));
      putBlock.run(
        key,
        t,
        blocks,
        meta.first,
        meta.last,
        meta.count,
        meta.maxBody,
        meta.maxHeading,
        meta.minLength,
        data,
      );
    }
    updTerm.run(blocks, key, t);
  }
  db.prepare(`DELETE FROM lex_dead WHERE store_key = ?`).run(key);
  db.prepare(`UPDATE lex_stores SET dead = 0, cgen = cgen + 1 WHERE store_key = ?`).run(key);
}
