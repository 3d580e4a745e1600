import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import type Database from 'better-sqlite3';
import { SqliteChunkIndex } from './sqlite.chunk-index';

/** SQLite's page caches of the embedded index (LARDER_INDEX_PAGE_CACHE_MB): set on its connections, their bound reported. */
describe('SqliteChunkIndex: SQLite page caches', () => {
  const dir = mkdtempSync(join(tmpdir(), 'larder-page-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const pageCache = async (index: SqliteChunkIndex) =>
    (await index.cacheStats()).find((c) => c.cache === 'sqlite_pages');
  const cacheSize = (index: SqliteChunkIndex) =>
    (index as unknown as { db: Database.Database }).db.pragma('cache_size', { simple: true });

  it('gives each connection the page cache asked for and reports the bound of both (the index and its read worker)', async () => {
    const index = new SqliteChunkIndex(join(dir, 'worker.sqlite'), { pageCacheBytes: 8 * 2 ** 20 });
    try {
      await index.setup();
      expect(cacheSize(index)).toBe(-8192); // KiB
      expect(await pageCache(index)).toEqual({
        cache: 'sqlite_pages',
        bytes: null,
        entries: null,
        capacityBytes: 16 * 2 ** 20,
      });
    } finally {
      await index.close();
    }
  });

  it('without the read worker, one connection with the default 64 MiB', async () => {
    const index = new SqliteChunkIndex(join(dir, 'alone.sqlite'), { readWorker: false });
    try {
      await index.setup();
      expect(cacheSize(index)).toBe(-65536);
      expect((await pageCache(index))?.capacityBytes).toBe(64 * 2 ** 20);
    } finally {
      await index.close();
    }
  });
});
