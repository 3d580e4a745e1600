import type { ScoredChunk } from '@larder/chunk-index';
import { candidateBm25, jointRanking, webChunk } from './joint-ranking';
import { WEB_STORE } from './web-search.port';

const chunk = (fileId: string, text: string, score: number): ScoredChunk => ({
  storeId: 'store-1',
  fileId,
  chunkIndex: 0,
  type: 'text',
  text,
  offset: 0,
  mimeType: 'text/plain',
  generatedMetadata: null,
  model: 'm',
  score,
  filename: `${fileId}.md`,
  externalId: null,
  metadata: {},
});
const v = (...xs: number[]) => Float32Array.from(xs);
const options = { method: 'relative' as const, lexicalWeight: 0.5 };

describe('the web store’s joint ranking', () => {
  const kraut = chunk('kraut', 'Sauerkraut: shred cabbage, add salt, ferment for three weeks.', 0.9);
  const jam = chunk('jam', 'Strawberry jam: boil berries with sugar.', 0.2);
  const wiki = webChunk({
    url: 'https://en.wikipedia.org/wiki/Sauerkraut',
    title: 'Sauerkraut',
    snippet: 'Fermented cabbage made with salt.',
    published: null,
    provider: 'searxng',
  });
  const bikes = webChunk({
    url: 'https://bikes.example/',
    title: 'Bicycle repair',
    snippet: 'True a wheel.',
    published: null,
    provider: 'brave',
  });

  it('makes a web result a text chunk of the web store: the URL as filename, a URL-derived file id, title and snippet as text', () => {
    expect(wiki).toMatchObject({
      storeId: WEB_STORE,
      chunkIndex: 0,
      type: 'text',
      filename: 'https://en.wikipedia.org/wiki/Sauerkraut',
      text: 'Sauerkraut\n\nFermented cabbage made with salt.',
    });
    expect(
      webChunk({
        url: 'https://www.en.wikipedia.org/wiki/Sauerkraut/',
        title: 'x',
        snippet: '',
        published: null,
        provider: 'brave',
      }).fileId,
    ).toBe(wiki.fileId);
    expect(wiki.metadata).toEqual({
      url: wiki.filename,
      title: 'Sauerkraut',
      snippet: 'Fermented cabbage made with salt.',
      published: null,
      provider: 'searxng',
      providers: ['searxng'],
    });
  });

  it('scores BM25 over one candidate set: a text with the query’s terms beats one without, which scores 0', () => {
    const [a, b] = candidateBm25('fermented cabbage', [wiki.text, bikes.text]);
    expect(a).toBeGreaterThan(0);
    expect(b).toBe(0);
  });

  it('ranks store chunks and web results together, every score in [0, 1], relevant ones of both kinds above irrelevant ones', () => {
    const q = v(1, 0, 0);
    const ranked = jointRanking(
      'sauerkraut cabbage salt',
      q,
      { lexical: [kraut, jam], dense: [kraut, jam] },
      { chunks: [wiki, bikes], vectors: [v(0.9, 0.1, 0), v(0, 1, 0)] },
      options,
    );
    expect(ranked).toHaveLength(4);
    for (const c of ranked) {
      expect(c.score).toBeGreaterThanOrEqual(0);
      expect(c.score).toBeLessThanOrEqual(1);
    }
    const order = ranked.map((c) => c.fileId);
    expect(order.slice(0, 2).sort()).toEqual([kraut.fileId, wiki.fileId].sort());
    expect(ranked.find((c) => c.fileId === wiki.fileId)).toMatchObject({
      firstStagePosition: 0,
      firstStageSource: null,
    });
    expect(ranked.find((c) => c.fileId === kraut.fileId)).toMatchObject({ firstStageSource: 'both' });
  });

  it('without a query vector (embedding failed) ranks lexically alone; without web vectors the web results are lexical only', () => {
    const lexicalOnly = jointRanking(
      'cabbage',
      null,
      { lexical: [kraut], dense: [] },
      { chunks: [wiki, bikes], vectors: null },
      options,
    );
    expect(
      lexicalOnly
        .map((c) => c.fileId)
        .slice(0, 2)
        .sort(),
    ).toEqual([kraut.fileId, wiki.fileId].sort());
    expect(lexicalOnly.find((c) => c.fileId === bikes.fileId)!.score).toBe(0);
  });
});
