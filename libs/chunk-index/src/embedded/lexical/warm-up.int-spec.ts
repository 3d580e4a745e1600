import { randomUUID } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ChunkIndexOp } from '../../chunk-index.port';
import { SqliteChunkIndex } from '../sqlite.chunk-index';
import { warmLexical } from './warm-up';

const dir = mkdtempSync(join(tmpdir(), 'larder-lexical-warm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lexical warm-up', () => {
  it('runs through on its own store (the read worker ignores its failure: this is where one shows)', () => {
    expect(warmLexical()).toBeGreaterThan(0);
  });

  it('leaves answers as they are: a read worker that warmed up answers as one that did not', async () => {
    const store = randomUUID();
    const words = ['pectin', 'sugar', 'jam', 'citrus', 'peel', 'boil', 'gel', 'fruit'];
    const ops: ChunkIndexOp[] = [];
    for (let f = 0; f < 20; f++) {
      const fileId = randomUUID();
      const chunks = Array.from({ length: 10 }, (_, i) => ({
        chunkIndex: i,
        type: 'text' as const,
        text: Array.from({ length: 12 }, (_, w) => words[(f * 7 + i * 3 + w * w) % words.length]).join(' '),
        offset: i * 100,
        mimeType: 'text/plain',
        generatedMetadata: { type: 'text' },
      }));
      ops.push(
        {
          op: 'putFile',
          file: {
            storeId: store,
            fileId,
            organizationId: store,
            filename: `f${f}.txt`,
            externalId: null,
            metadata: {},
            generation: 1,
          },
        },
        { op: 'setChunks', storeId: store, fileId, generation: 1, chunks },
      );
    }
    const answers: unknown[] = [];
    for (const lexicalWarmUp of [true, false]) {
      const ix = new SqliteChunkIndex(join(dir, `chunks-${lexicalWarmUp}.sqlite`), { lexicalWarmUp });
      await ix.setup();
      await ix.write(ops, { projection: 'spec', version: 1, position: { commit: 1n, prepare: 1n } });
      const got = [];
      for (const text of ['pectin sugar', 'citrus peel gel', 'jam'])
        got.push(await ix.searchLexical({ storeIds: [store], topK: 10, text }));
      answers.push(got);
      await ix.close();
    }
    expect((answers[0] as unknown[][]).flat().length).toBeGreaterThan(0);
    expect(answers[0]).toEqual(answers[1]);
  });
});
