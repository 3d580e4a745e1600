import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ChunkIndexOp } from '../../chunk-index.port';
import { SqliteChunkIndex } from '../sqlite.chunk-index';
import { analyzeChunk, DEFAULT_FIELD_WEIGHTS, headingContextOf } from '../../analysis/analyzer';
import { blockPostings, decodeBlock, encodeBlock, Posting } from './postings';
import { normLength } from '../../analysis/bm25';
import { putFileOp } from '../../testing/file-ops';

/**
 * The writer's batching (postings grouped per term per transaction, tail blocks grown in place and
 * remembered between transactions) leaves exactly what appending chunk by chunk would: every list's
 * blocks hold its postings in id order, each block's data is postings.ts's encoding of them and its
 * directory entry their bounds; without the tombstones they are the live chunks' postings; df, the
 * store's n, total length and tombstone count are the live chunks'.
 */

const dir = mkdtempSync(join(tmpdir(), 'larder-lexical-batching-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const VOCAB = 'jam jams apple apples pectin sugar boil boiled the of zest café 42 quince gardening'.split(' ');
function texts(seed: number, count: number): string[] {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
  return Array.from({ length: count }, () => {
    const ws = Array.from({ length: 1 + Math.floor(next() * 8) }, () => VOCAB[Math.floor(VOCAB.length * next() ** 2)]);
    return next() < 0.2 ? `# ${ws[0]}\n${ws.join(' ')}` : ws.join(' ');
  });
}

function put(storeId: string, fileId: string, generation: number, chunks: string[]): ChunkIndexOp[] {
  return [
    // the path field: a word of the texts as the folder
    putFileOp(storeId, fileId, { organizationId: 'org', filename: `apples/${fileId}.md`, generation }),
    {
      op: 'setChunks',
      storeId,
      fileId,
      generation,
      chunks: chunks.map((text, i) => ({
        chunkIndex: i,
        type: 'text' as const,
        text,
        offset: 0,
        mimeType: 'text/markdown',
        generatedMetadata: i % 3 === 0 ? { heading_context: [{ level: 1, text: 'quince jams' }] } : null,
      })),
    },
  ];
}

/** Checks the lexical tables of the file against its chunks (see above). */
function checkIndex(path: string, blockSize: number): void {
  const db = new Database(path, { readonly: true });
  try {
    const stores = db
      .prepare(`SELECT store_key, store_id, n, total_length, multi, dead FROM lex_stores`)
      .all() as Array<{
      store_key: number;
      store_id: string;
      n: number;
      total_length: number;
      multi: number;
      dead: number;
    }>;
    const live = new Set(
      (db.prepare(`SELECT DISTINCT store_id FROM chunks`).pluck().all() as string[]).filter(Boolean),
    );
    for (const id of live) expect(stores.map((s) => s.store_id)).toContain(id);
    for (const s of stores) {
      const rows = db
        .prepare(
          `SELECT c.id, c.file_id, c.text, c.generated_metadata, f.filename FROM chunks c
           JOIN files f ON f.store_id = c.store_id AND f.file_id = c.file_id WHERE c.store_id = ? ORDER BY c.id`,
        )
        .all(s.store_id) as Array<{
        id: number;
        file_id: string;
        text: string;
        generated_metadata: string | null;
        filename: string;
      }>;
      const analyzed = rows.map((r) =>
        analyzeChunk(r.text, headingContextOf(r.generated_metadata ? JSON.parse(r.generated_metadata) : null), {
          path: r.filename,
          code: false,
          weights: DEFAULT_FIELD_WEIGHTS,
        }),
      );
      // each chunk indexed with its length blended with its file's
      const files = new Map<string, { length: number; chunks: number }>();
      rows.forEach((r, i) => {
        const f = files.get(r.file_id) ?? { length: 0, chunks: 0 };
        files.set(r.file_id, { length: f.length + analyzed[i].length, chunks: f.chunks + 1 });
      });
      const want = new Map<string, Posting[]>();
      let length = 0;
      rows.forEach((r, i) => {
        const a = analyzed[i];
        const indexed = normLength(a.length, files.get(r.file_id)!.length);
        length += indexed;
        for (const [t, tf] of a.terms) {
          if (!want.has(t)) want.set(t, []);
          want.get(t)!.push({ id: r.id, body: tf.body, heading: tf.heading, length: indexed });
        }
      });
      const multi = rows.filter((r) => files.get(r.file_id)!.chunks > 1).length;
      const dead = new Set(
        db.prepare(`SELECT id FROM lex_dead WHERE store_key = ?`).pluck().all(s.store_key) as number[],
      );
      expect({ n: s.n, length: s.total_length, multi: s.multi, dead: s.dead }).toEqual({
        n: rows.length,
        length,
        multi,
        dead: dead.size,
      });
      const terms = db.prepare(`SELECT term, df, blocks FROM lex_terms WHERE store_key = ?`).all(s.store_key) as Array<{
        term: string;
        df: number;
        blocks: number;
      }>;
      const listed = new Set<string>();
      for (const t of terms) {
        listed.add(t.term);
        const blocks = db
          .prepare(
            `SELECT block, first, last, count, max_body, max_heading, min_length, data FROM lex_blocks WHERE store_key = ? AND term = ? ORDER BY block`,
          )
          .all(s.store_key, t.term) as Array<{
          block: number;
          first: number;
          last: number;
          count: number;
          max_body: number;
          max_heading: number;
          min_length: number;
          data: Buffer;
        }>;
        expect(blocks.map((b) => b.block)).toEqual(Array.from({ length: t.blocks }, (_, i) => i));
        const all: Posting[] = [];
        blocks.forEach((b, i) => {
          const ps = blockPostings(decodeBlock(b.data, b.first, b.count));
          // every block but the tail is full; the data is postings.ts's encoding, the entry its bounds
          if (i < blocks.length - 1) expect(b.count).toBe(blockSize);
          expect(b.count).toBeGreaterThan(0);
          const ref = encodeBlock(ps);
          expect(Buffer.compare(b.data, ref.data)).toBe(0);
          expect({
            first: b.first,
            last: b.last,
            count: b.count,
            maxBody: b.max_body,
            maxHeading: b.max_heading,
            minLength: b.min_length,
          }).toEqual(ref.meta);
          if (all.length) expect(ps[0].id).toBeGreaterThan(all[all.length - 1].id);
          all.push(...ps);
        });
        expect(all.filter((p) => !dead.has(p.id))).toEqual(want.get(t.term) ?? []);
        expect(t.df).toBe(want.get(t.term)?.length ?? 0);
      }
      for (const t of want.keys()) expect(listed.has(t)).toBe(true);
    }
  } finally {
    db.close();
  }
}

describe('lexical writer: batched appends', () => {
  let seq = 0n;
  const cp = () => ({ projection: 'p', version: 1, position: { commit: ++seq, prepare: seq } });

  it('many chunks sharing terms in one transaction, across block boundaries, then one and a few at a time', async () => {
    const path = join(dir, 'appends.sqlite');
    const index = new SqliteChunkIndex(path, { readWorker: false, lexicalBlockSize: 4 });
    await index.setup();
    // 37 chunks in one transaction: the common terms fill several blocks at once
    await index.write([...put('s1', 'a', 1, texts(1, 37)), ...put('s2', 'a', 1, texts(2, 9))], cp());
    checkIndex(path, 4);
    // one chunk a transaction: tails grow in place, then start new blocks
    for (let i = 0; i < 6; i++) await index.write(put('s1', `one-${i}`, 1, texts(10 + i, 1)), cp());
    checkIndex(path, 4);
    // a few files a transaction, two stores
    for (let i = 0; i < 4; i++)
      await index.write(
        [...put('s1', `few-${i}`, 1, texts(20 + i, 3 + i)), ...put('s2', `few-${i}`, 1, texts(30 + i, 5))],
        cp(),
      );
    checkIndex(path, 4);
    // every chunk of s1 has the heading context's 'quince' or not: the search finds exactly those that do
    const db = new Database(path, { readonly: true });
    const quince = (
      db.prepare(`SELECT text, generated_metadata FROM chunks WHERE store_id = 's1'`).all() as Array<{
        text: string;
        generated_metadata: string | null;
      }>
    ).filter((r) =>
      analyzeChunk(r.text, headingContextOf(r.generated_metadata ? JSON.parse(r.generated_metadata) : null)).terms.has(
        'quinc',
      ),
    ).length;
    db.close();
    expect(quince).toBeGreaterThan(8);
    expect((await index.searchLexical({ storeIds: ['s1'], text: 'quince', topK: 1000 })).length).toBe(quince);
    await index.close();
  });

  it('deletes and re-puts in the same transaction as puts', async () => {
    const path = join(dir, 'deletes.sqlite');
    const index = new SqliteChunkIndex(path, { readWorker: false, lexicalBlockSize: 4 });
    await index.setup();
    await index.write(
      [...put('s1', 'a', 1, texts(3, 12)), ...put('s1', 'b', 1, texts(4, 12)), ...put('s1', 'c', 1, texts(5, 3))],
      cp(),
    );
    // a put, a delete of a file written earlier, a re-put (new generation) of another, in one transaction
    await index.write(
      [
        ...put('s1', 'd', 1, texts(6, 10)),
        { op: 'deleteFile', storeId: 's1', fileId: 'a' },
        ...put('s1', 'b', 2, texts(7, 8)),
      ],
      cp(),
    );
    checkIndex(path, 4);
    // a file put and deleted in the same transaction, then put again at a new generation
    await index.write(
      [
        ...put('s1', 'e', 1, texts(8, 6)),
        { op: 'deleteFile', storeId: 's1', fileId: 'e' },
        ...put('s1', 'e', 2, texts(9, 5)),
        ...put('s1', 'f', 1, texts(11, 4)),
      ],
      cp(),
    );
    checkIndex(path, 4);
    // enough deletes to compact the store's lists, with appends after in the same transaction
    await index.write(
      [
        { op: 'deleteFile', storeId: 's1', fileId: 'd' },
        { op: 'deleteFile', storeId: 's1', fileId: 'b' },
        ...put('s1', 'g', 1, texts(12, 7)),
      ],
      cp(),
    );
    checkIndex(path, 4);
    await index.write(put('s1', 'h', 1, texts(13, 5)), cp());
    checkIndex(path, 4);
    // a store dropped and written again in one transaction
    await index.write([{ op: 'deleteStore', storeId: 's1' }, ...put('s1', 'i', 1, texts(14, 6))], cp());
    checkIndex(path, 4);
    await index.write(put('s1', 'j', 1, texts(15, 3)), cp());
    checkIndex(path, 4);
    await index.close();
  });

  it('a transaction rolled back after the writer flushed in it leaves nothing, and later appends go to the tails as stored', async () => {
    const path = join(dir, 'rollback.sqlite');
    const index = new SqliteChunkIndex(path, { readWorker: false, lexicalBlockSize: 4 });
    await index.setup();
    await index.write(put('s1', 'a', 1, texts(16, 5)), cp());
    // b's postings are written (the delete of a flushes them, growing the tails), then c's op fails (a
    // chunk's text is not a string): the transaction rolls back, and with it what the writer remembered
    const bad = put('s1', 'c', 1, ['x']);
    (bad[1] as { chunks: Array<{ text: unknown }> }).chunks[0].text = { not: 'text' };
    await expect(
      index.write([...put('s1', 'b', 1, texts(17, 6)), { op: 'deleteFile', storeId: 's1', fileId: 'a' }, ...bad], cp()),
    ).rejects.toThrow();
    checkIndex(path, 4);
    await index.write(put('s1', 'b', 1, texts(17, 6)), cp());
    checkIndex(path, 4);
    await index.close();
  });

  it('a writer reopened reads the tails from the file and appends to them', async () => {
    const path = join(dir, 'reopen.sqlite');
    for (let round = 0; round < 3; round++) {
      const index = new SqliteChunkIndex(path, { readWorker: false, lexicalBlockSize: 4 });
      await index.setup();
      await index.write(put('s1', `r-${round}`, 1, texts(40 + round, 3 + round)), cp());
      await index.write(
        [...put('s1', `q-${round}`, 1, texts(50 + round, 2)), ...put('s2', `q-${round}`, 1, texts(60 + round, 5))],
        cp(),
      );
      await index.close();
      checkIndex(path, 4);
    }
  });
});
