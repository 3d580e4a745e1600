import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { SqliteChunkIndex } from '../sqlite.chunk-index';
import { migrateChunkDatabase } from '../sqlite.schema';
import { LEXICAL_SCHEMA_VERSION } from './writer';
import { analyzeChunk, DEFAULT_FIELD_WEIGHTS } from '../../analysis/analyzer';
import { normLength } from '../../analysis/bm25';

const dir = mkdtempSync(join(tmpdir(), 'larder-lexical-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Statements that write files and chunks straight into a chunk database, behind the index's back. */
const inserts = (db: Database.Database) => ({
  file: db.prepare(
    `INSERT INTO files (store_id, file_id, organization_id, filename, external_id, metadata, generation) VALUES (?, ?, 'org', ?, NULL, 'null', 1)`,
  ),
  chunk: db.prepare(
    `INSERT INTO chunks (store_id, file_id, chunk_index, text, offset, mime_type) VALUES (?, ?, ?, ?, 0, 'text/plain')`,
  ),
});

describe('lexical index: migration from an FTS5 release', () => {
  const path = join(dir, 'old.sqlite');

  beforeAll(() => {
    // a file as the FTS5 release left it: chunks, and the FTS5 index its triggers kept
    const db = new Database(path);
    migrateChunkDatabase(db);
    db.exec(`
      CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
      CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text); END;
      CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
    `);
    const { file, chunk } = inserts(db);
    file.run('s1', 'a', 'a.txt');
    file.run('s1', 'b', 'b.txt');
    file.run('s2', 'c', 'c.txt');
    chunk.run('s1', 'a', 0, 'Quince jelly sets firm.');
    chunk.run('s1', 'b', 0, 'Apple butter cooks slowly.');
    chunk.run('s2', 'c', 0, 'Quince paste, quince cheese.');
    db.close();
  });

  it('builds the index once from the chunks, drops FTS5, and never rebuilds it at start', async () => {
    const index = new SqliteChunkIndex(path, { readWorker: false });
    await index.setup();
    const hits = await index.searchLexical({ storeIds: ['s1'], text: 'quinces', topK: 10 });
    expect(hits.map((h) => h.fileId)).toEqual(['a']);
    await index.close();

    const db = new Database(path);
    expect(
      db
        .prepare(`SELECT count(*) FROM sqlite_master WHERE name IN ('chunks_fts', 'chunks_ai', 'chunks_ad')`)
        .pluck()
        .get(),
    ).toBe(0);
    // a chunk written behind the index's back is not picked up by a rebuild at the next start
    db.prepare(
      `INSERT INTO chunks (store_id, file_id, chunk_index, text, offset, mime_type) VALUES ('s1', 'b', 1, 'Quince tart.', 0, 'text/plain')`,
    ).run();
    db.close();
    const again = new SqliteChunkIndex(path, { readWorker: false });
    await again.setup();
    expect((await again.searchLexical({ storeIds: ['s1'], text: 'quince', topK: 10 })).map((h) => h.fileId)).toEqual([
      'a',
    ]);
    // per-store statistics: s2's chunks are s2's alone
    const s2 = await again.searchLexical({ storeIds: ['s2'], text: 'quince', topK: 10 });
    expect(s2.map((h) => h.fileId)).toEqual(['c']);
    await again.close();
  });
});

describe('lexical index: migration from the index without the path field', () => {
  it('rebuilds an index of the previous version from the chunks, with their files’ paths', async () => {
    const path = join(dir, 'v1.sqlite');
    const index = new SqliteChunkIndex(path, { readWorker: false });
    await index.setup();
    await index.write(
      [
        {
          op: 'putFile',
          file: {
            storeId: 's1',
            fileId: 'a',
            organizationId: 'org',
            filename: 'preserves/quince.txt',
            externalId: null,
            metadata: null,
            generation: 1,
          },
        },
        {
          op: 'setChunks',
          storeId: 's1',
          fileId: 'a',
          generation: 1,
          chunks: [
            {
              chunkIndex: 0,
              type: 'text',
              text: 'Jelly sets firm.',
              offset: 0,
              mimeType: 'text/plain',
              generatedMetadata: null,
            },
          ],
        },
      ],
      { projection: 'p', version: 1, position: { commit: 1n, prepare: 1n } },
    );
    await index.close();
    // as the previous version left it: no path terms, no paths, version 1
    const db = new Database(path);
    db.exec(`DELETE FROM lex_blocks WHERE term IN ('preserv', '=preserves', 'quinc', '=quince');
      DELETE FROM lex_terms WHERE term IN ('preserv', '=preserves', 'quinc', '=quince');
      DELETE FROM lex_paths; UPDATE lex_meta SET value = 1 WHERE key = 'version';`);
    db.close();
    const again = new SqliteChunkIndex(path, { readWorker: false });
    await again.setup();
    const hits = await again.searchLexical({ storeIds: ['s1'], text: 'quinces preserved', topK: 10 });
    expect(hits.map((h) => [h.fileId, h.chunkIndex])).toEqual([['a', 0]]);
    expect((await again.searchLexical({ storeIds: ['s1'], text: 'jelly', topK: 10 })).length).toBe(1);
    await again.close();
    const after = new Database(path, { readonly: true });
    expect(after.prepare(`SELECT path FROM lex_paths`).pluck().all()).toEqual(['preserves/quince.txt']);
    expect(after.prepare(`SELECT value FROM lex_meta WHERE key = 'version'`).pluck().get()).toBe(
      LEXICAL_SCHEMA_VERSION,
    );
    // rebuilt, not appended to: one posting per term, n is the one chunk
    expect(after.prepare(`SELECT max(df) FROM lex_terms`).pluck().get()).toBe(1);
    expect(after.prepare(`SELECT n FROM lex_stores`).pluck().get()).toBe(1);
    after.close();
  });
});

describe('lexical index: lists written by an older analyzer', () => {
  const path = join(dir, 'older-analyzer.sqlite');

  it('rebuilds them once from the chunks, with the same statistics as a fresh index', async () => {
    const db = new Database(path);
    migrateChunkDatabase(db);
    const { file, chunk } = inserts(db);
    file.run('s1', 'a', 'a.ts');
    file.run('s1', 'b', 'b.md');
    chunk.run('s1', 'a', 0, 'export function parseHttpHeader(line: string) { return line.split(":"); }');
    chunk.run('s1', 'b', 0, 'Headers are parsed line by line; see parse_http_header in src/http/headers.ts.');
    db.close();

    const queries = ['parseHttpHeader', 'http header', 'src/http/headers.ts', 'line'];
    const search = async (index: SqliteChunkIndex) =>
      Promise.all(queries.map((text) => index.searchLexical({ storeIds: ['s1'], text, topK: 10 })));
    const index = new SqliteChunkIndex(path, { readWorker: false });
    await index.setup();
    const fresh = await search(index);
    await index.close();
    // identifiers are found whole and by their parts
    expect(fresh[0].map((h) => h.fileId)).toEqual(['a', 'b']);
    expect(fresh[1].map((h) => h.fileId).sort()).toEqual(['a', 'b']);
    expect(fresh[2][0].fileId).toBe('b');

    // the file as the previous analyzer's release left it: its version, and a chunk its lists lack
    const old = new Database(path);
    old.prepare(`UPDATE lex_meta SET value = 1 WHERE key = 'version'`).run();
    old
      .prepare(
        `INSERT INTO chunks (store_id, file_id, chunk_index, text, offset, mime_type) VALUES ('s1', 'b', 1, 'Unrelated words.', 0, 'text/plain')`,
      )
      .run();
    old.close();
    const again = new SqliteChunkIndex(path, { readWorker: false });
    await again.setup();
    const rebuilt = await search(again);
    expect((await again.searchLexical({ storeIds: ['s1'], text: 'unrelated', topK: 10 })).map((h) => h.fileId)).toEqual(
      ['b'],
    );
    await again.close();
    const check = new Database(path);
    expect(check.prepare(`SELECT value FROM lex_meta WHERE key = 'version'`).pluck().get()).toBe(
      LEXICAL_SCHEMA_VERSION,
    );
    expect(check.prepare(`SELECT n FROM lex_stores WHERE store_id = 's1'`).pluck().get()).toBe(3);
    check.close();
    // the old lists were dropped, not added to: the same hits (the new chunk matches none of these), lower idf
    rebuilt.forEach((hits, i) => expect(hits.map((h) => h.fileId)).toEqual(fresh[i].map((h) => h.fileId)));
  });
});

describe('lexical index: lists of the version before chunk lengths followed their file', () => {
  const path = join(dir, 'file-lengths.sqlite');

  it("rebuilds the lists with each chunk's length blended with its file's, and counts the chunks of multi-chunk files", async () => {
    const db = new Database(path);
    migrateChunkDatabase(db);
    const { file, chunk } = inserts(db);
    file.run('s1', 'a', 'a.md');
    chunk.run('s1', 'a', 0, 'Quince jam is made from quinces, sugar and lemon, boiled slowly until it sets.');
    chunk.run('s1', 'a', 1, 'Keep it cool.');
    file.run('s1', 'b', 'b.md');
    chunk.run('s1', 'b', 0, 'Plum jam.');
    db.close();
    const index = new SqliteChunkIndex(path, { readWorker: false });
    await index.setup();
    await index.close();
    // as that version left it: each chunk's own length, no multi-chunk count, and a posting the rebuild drops
    const old = new Database(path);
    old.exec(`UPDATE lex_stores SET multi = 0, total_length = 1; UPDATE lex_meta SET value = ${LEXICAL_SCHEMA_VERSION - 1} WHERE key = 'version';
      INSERT INTO lex_terms (store_key, term, df, blocks, gen) SELECT store_key, 'zzstale', 1, 0, 0 FROM lex_stores;`);
    old.close();
    const again = new SqliteChunkIndex(path, { readWorker: false });
    await again.setup();
    await again.close();
    const lengths = [
      'Quince jam is made from quinces, sugar and lemon, boiled slowly until it sets.',
      'Keep it cool.',
    ].map((t) => analyzeChunk(t, [], { path: 'a.md', code: false, weights: DEFAULT_FIELD_WEIGHTS }).length);
    const plum = analyzeChunk('Plum jam.', [], { path: 'b.md', code: false, weights: DEFAULT_FIELD_WEIGHTS }).length;
    const fileLength = lengths[0] + lengths[1];
    // the tail chunk is indexed longer than its own words: normalised as a part of its page
    expect(normLength(lengths[1], fileLength)).toBeGreaterThan(lengths[1]);
    const check = new Database(path, { readonly: true });
    expect(check.prepare(`SELECT n, total_length, multi FROM lex_stores WHERE store_id = 's1'`).get()).toEqual({
      n: 3,
      total_length: normLength(lengths[0], fileLength) + normLength(lengths[1], fileLength) + plum,
      multi: 2,
    });
    expect(check.prepare(`SELECT count(*) FROM lex_terms WHERE term = 'zzstale'`).pluck().get()).toBe(0);
    expect(check.prepare(`SELECT value FROM lex_meta WHERE key = 'version'`).pluck().get()).toBe(
      LEXICAL_SCHEMA_VERSION,
    );
    check.close();
    // a delete takes back what the add counted
    const live = new SqliteChunkIndex(path, { readWorker: false });
    await live.setup();
    await live.write([{ op: 'deleteFile', storeId: 's1', fileId: 'a' }], {
      projection: 'p',
      version: 1,
      position: { commit: 1n, prepare: 1n },
    });
    await live.close();
    const after = new Database(path, { readonly: true });
    expect(after.prepare(`SELECT n, total_length, multi FROM lex_stores WHERE store_id = 's1'`).get()).toEqual({
      n: 1,
      total_length: plum,
      multi: 0,
    });
    after.close();
  });
});
