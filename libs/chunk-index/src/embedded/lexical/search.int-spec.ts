import { randomUUID } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ChunkIndexOp } from '../../chunk-index.port';
import { SqliteChunkIndex } from '../sqlite.chunk-index';
import { contentWordCount, DEFAULT_LEXICAL_OPTIONS } from '../sqlite.options';

const dir = mkdtempSync(join(tmpdir(), 'larder-lexical-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('lexical program: RM3 pseudo-relevance feedback', () => {
  const path = join(dir, 'chunks.sqlite');
  const store = randomUUID();
  const other = randomUUID();
  const docs: Array<[string, string, string]> = [
    [store, 'a.txt', 'Strawberry jam sets with pectin and sugar.'],
    [store, 'b.txt', 'Strawberry jam: boil the fruit with pectin and sugar until it sets.'],
    [store, 'c.txt', 'Pectin and sugar make a firm gel from citrus peel.'],
    [other, 'x.txt', 'Strawberry gardens grow tomatoes beside the pumpkins.'],
    [store, 'd.txt', 'Tomatoes and pumpkins grow in the garden.'],
    ...Array.from({ length: 40 }, (_, i): [string, string, string] => [
      store,
      `filler-${i}.txt`,
      `Cucumbers ferment in brine number ${i}.`,
    ]),
  ];
  const fileOf = new Map<string, string>();
  let seq = 0n;

  beforeAll(async () => {
    const index = new SqliteChunkIndex(path, { readWorker: false });
    await index.setup();
    const ops: ChunkIndexOp[] = docs.flatMap(([storeId, filename, text]) => {
      const fileId = randomUUID();
      fileOf.set(fileId, filename);
      return [
        {
          op: 'putFile' as const,
          file: { storeId, fileId, organizationId: storeId, filename, externalId: null, metadata: null, generation: 1 },
        },
        {
          op: 'setChunks' as const,
          storeId,
          fileId,
          generation: 1,
          chunks: [
            { chunkIndex: 0, type: 'text' as const, text, offset: 0, mimeType: 'text/plain', generatedMetadata: null },
          ],
        },
      ];
    });
    await index.write(ops, { projection: 'p', version: 1, position: { commit: ++seq, prepare: seq } });
    await index.close();
  });

  const search = async (feedback: boolean, text: string, feedbackMinWords = 0) => {
    const index = new SqliteChunkIndex(path, {
      lexical: {
        stopWords: true,
        feedback: feedback ? { docs: 2, terms: 5, originalWeight: 0.5 } : null,
        feedbackMinWords,
      },
    });
    await index.setup();
    try {
      return (await index.searchLexical({ storeIds: [store], text, topK: 10 })).map((h) => fileOf.get(h.fileId));
    } finally {
      await index.close();
    }
  };

  it('without feedback, finds only the chunks holding the query terms', async () => {
    expect((await search(false, 'strawberry')).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('searches a query of stop words alone with them', async () => {
    expect(await search(false, 'until it')).toEqual(['b.txt']);
  });

  it('with feedback, also finds chunks that share the best chunks’ terms, ranked below them', async () => {
    const hits = await search(true, 'strawberry');
    expect(hits.slice(0, 2).sort()).toEqual(['a.txt', 'b.txt']);
    expect(hits).toContain('c.txt');
    // the expansion comes from the asked store's chunks only: the other store's strawberry chunk adds nothing
    expect(hits).not.toContain('d.txt');
    expect(hits).not.toContain('x.txt');
  });

  it('gives feedback only to queries of at least `feedbackMinWords` words that are not stop words', async () => {
    // 'strawberry' alone is one word: below 3, no expansion
    expect((await search(true, 'strawberry', 3)).sort()).toEqual(['a.txt', 'b.txt']);
    // three words (stop words not counted), each occurrence counted: expanded
    const long = await search(true, 'what is the strawberry strawberry strawberry of it', 3);
    expect(long.slice(0, 2).sort()).toEqual(['a.txt', 'b.txt']);
    expect(long).toContain('c.txt');
    // the default: 14 words
    expect(DEFAULT_LEXICAL_OPTIONS.feedbackMinWords).toBe(14);
    expect(contentWordCount('What is the usual relevance of the content of articles to their titles?')).toBe(5);
  });
});
