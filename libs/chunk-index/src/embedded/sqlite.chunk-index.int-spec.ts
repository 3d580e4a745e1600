import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { chunkIndexContract } from '../testing/chunk-index.contract';
import { SqliteChunkIndex } from './sqlite.chunk-index';

const dir = mkdtempSync(join(tmpdir(), 'larder-chunk-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

chunkIndexContract('embedded (SQLite)', async () => new SqliteChunkIndex(join(dir, 'chunks.sqlite')));
