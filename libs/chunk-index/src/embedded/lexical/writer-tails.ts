/** The statements the lexical writer's flush runs, and the tail block of a posting list it appends to. */
import type Database from 'better-sqlite3';
import type { BlockMeta } from './postings';

/**
 * A list's tail as the writer last wrote it: whether its lex_terms row exists, its block count, and
 * its last block's directory entry and data (null: the list has no blocks).
 */
export interface Tail extends BlockMeta {
  listed: boolean;
  blocks: number;
  data: Buffer | null;
}

/** The flush's statements (prepared once the tables exist). */
export function prepareFlush(db: Database.Database) {
  return {
    // the list's block count and its tail block (when not remembered from the last append)
    tail: db.prepare(
      `SELECT t.blocks, b.first, b.last, b.count, b.max_body, b.max_heading, b.min_length, b.data FROM lex_terms t
           LEFT JOIN lex_blocks b ON b.store_key = t.store_key AND b.term = t.term AND b.block = t.blocks - 1
          WHERE t.store_key = ? AND t.term = ?`,
    ),
    insertBlock: db.prepare(
      `INSERT OR REPLACE INTO lex_blocks (store_key, term, block, first, last, count, max_body, max_heading, min_length, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    growBlock: db.prepare(
      `UPDATE lex_blocks SET last = ?, count = ?, max_body = ?, max_heading = ?, min_length = ?, data = ? WHERE store_key = ? AND term = ? AND block = ?`,
    ),
    upsertTerm: db.prepare(
      `INSERT INTO lex_terms (store_key, term, df, blocks, gen) VALUES (?, ?, ?, ?, 1)
         ON CONFLICT (store_key, term) DO UPDATE SET df = df + excluded.df, blocks = excluded.blocks, gen = gen + 1`,
    ),
    updateTerm: db.prepare(
      `UPDATE lex_terms SET df = df + ?, blocks = ?, gen = gen + 1 WHERE store_key = ? AND term = ?`,
    ),
    stats: db.prepare(
      `UPDATE lex_stores SET n = n + ?, total_length = total_length + ?, code = code + ?, multi = multi + ?, dead = dead + ? WHERE store_key = ?`,
    ),
  };
}

/** A list's block count and tail block as stored (a list not yet stored: no blocks). */
export function readTail(stmt: Database.Statement, key: number, t: string): Tail {
  const r = stmt.get(key, t) as
    | {
        blocks: number;
        first: number;
        last: number;
        count: number;
        max_body: number;
        max_heading: number;
        min_length: number;
        data: Buffer | null;
      }
    | undefined;
  if (!r)
    return {
      listed: false,
      blocks: 0,
      first: 0,
      last: 0,
      count: 0,
      maxBody: 0,
      maxHeading: 0,
      minLength: Infinity,
      data: null,
    };
  return {
    listed: true,
    blocks: r.blocks,
    first: r.first,
    last: r.last,
    count: r.count,
    maxBody: r.max_body,
    maxHeading: r.max_heading,
    minLength: r.min_length,
    data: r.data,
  };
}
