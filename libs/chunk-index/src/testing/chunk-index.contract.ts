import { randomUUID } from 'crypto';
import { parseFilters } from '@larder/kernel';
import { ChunkHit, ChunkIndex, ChunkIndexOp, ChunkQuery, ScoredChunk } from '../chunk-index.port';

const vec = (...xs: number[]) => {
  const v = new Float32Array(8);
  xs.forEach((x, i) => (v[i] = x));
  return v;
};

/** The behaviour every ChunkIndex adapter must show (embedded always; Elasticsearch when ELASTICSEARCH_URL is set). */
export function chunkIndexContract(
  name: string,
  make: () => Promise<ChunkIndex>,
  cleanup?: (index: ChunkIndex) => Promise<void>,
): void {
  describe(`ChunkIndex contract: ${name}`, () => {
    let index: ChunkIndex;
    const P = `contract-${randomUUID().slice(0, 8)}`;
    let seq = 0n;
    const cp = () => ({ projection: P, version: 1, position: { commit: ++seq, prepare: seq } });
    const org = randomUUID();
    const store = randomUUID();
    const other = randomUUID();
    const f1 = randomUUID();
    const f2 = randomUUID();
    const f3 = randomUUID();
    const chunk = (i: number, text: string, meta: Record<string, unknown> = { type: 'text' }) => ({
      chunkIndex: i,
      type: 'text' as const,
      text,
      offset: i * 100,
      mimeType: 'text/plain',
      generatedMetadata: meta,
    });
    const put = (
      storeId: string,
      fileId: string,
      filename: string,
      metadata: unknown,
      generation = 1,
    ): ChunkIndexOp => ({
      op: 'putFile',
      file: { storeId, fileId, organizationId: org, filename, externalId: null, metadata, generation },
    });

    beforeAll(async () => {
      index = await make();
      await index.setup();
      await index.write(
        [
          put(store, f1, 'jams.md', { lang: 'en', year: 2024, tags: ['sweet'] }),
          {
            op: 'setChunks',
            storeId: store,
            fileId: f1,
            generation: 1,
            chunks: [
              chunk(0, 'Strawberry jam needs sugar and lemon juice.', { type: 'markdown', page: 1 }),
              chunk(1, 'Apricot preserves keep for a year.', { type: 'markdown', page: 2 }),
            ],
          },
          {
            op: 'setVectors',
            storeId: store,
            fileId: f1,
            generation: 1,
            model: 'test-model',
            vectors: [vec(1, 0), vec(0.8, 0.6)],
          },
          put(store, f2, 'pickles.txt', { lang: 'de', year: 2022, tags: ['sour'] }),
          {
            op: 'setChunks',
            storeId: store,
            fileId: f2,
            generation: 1,
            chunks: [chunk(0, 'Cucumbers ferment in salt brine.')],
          },
          { op: 'setVectors', storeId: store, fileId: f2, generation: 1, model: 'test-model', vectors: [vec(0, 1)] },
          put(other, f3, 'other.txt', { lang: 'en' }),
          {
            op: 'setChunks',
            storeId: other,
            fileId: f3,
            generation: 1,
            chunks: [chunk(0, 'Strawberry fields in another store.')],
          },
        ],
        cp(),
      );
    });
    afterAll(async () => {
      await cleanup?.(index);
      await index.close();
    });

    it('records the checkpoint with the ops', async () => {
      expect(await index.readCheckpoint(P)).toEqual({ version: 1, position: { commit: seq, prepare: seq } });
      expect(await index.readCheckpoint(`${P}-none`)).toBeNull();
    });

    it('returns a file’s chunks in order, all or selected, with the model once vectors are set', async () => {
      const all = await index.getChunks(store, f1);
      expect(all.map((c) => [c.chunkIndex, c.text, c.model])).toEqual([
        [0, 'Strawberry jam needs sugar and lemon juice.', 'test-model'],
        [1, 'Apricot preserves keep for a year.', 'test-model'],
      ]);
      expect(all[1]).toMatchObject({
        storeId: store,
        fileId: f1,
        type: 'text',
        offset: 100,
        mimeType: 'text/plain',
        generatedMetadata: { type: 'markdown', page: 2 },
      });
      expect((await index.getChunks(store, f1, [1])).map((c) => c.chunkIndex)).toEqual([1]);
    });

    it('lexical search ranks by BM25 within the given stores only', async () => {
      const hits = await index.searchLexical({ storeIds: [store], text: 'strawberry jam', topK: 5 });
      // first the chunk that holds both words (an index with a path field also finds the file's other chunk: jams.md)
      expect(hits.map((h) => [h.fileId, h.chunkIndex])[0]).toEqual([f1, 0]);
      expect(hits.every((h) => h.storeId === store)).toBe(true);
      expect((await index.hydrate(hits))[0]).toMatchObject({
        filename: 'jams.md',
        metadata: { lang: 'en', year: 2024, tags: ['sweet'] },
      });
      expect(hits[0].score).toBeGreaterThan(0);
      const both = await index.searchLexical({ storeIds: [store, other], text: 'strawberry', topK: 5 });
      expect(both.map((h) => h.storeId).sort()).toEqual([store, other].sort());
    });

    it('lexical search stems English words and ignores stop words', async () => {
      // "for" and "a" (in "Apricot preserves keep for a year.") are stop words; "strawberries" stems as "strawberry"
      const hits = await index.searchLexical({ storeIds: [store], text: 'for a strawberries', topK: 5 });
      expect(hits.map((h) => [h.fileId, h.chunkIndex])).toEqual([[f1, 0]]);
    });

    it('dense search ranks by cosine similarity', async () => {
      const hits = await index.searchDense({ storeIds: [store], vector: vec(0.9, 0.1), topK: 3 });
      expect(hits.map((h) => [h.fileId, h.chunkIndex])).toEqual([
        [f1, 0],
        [f1, 1],
        [f2, 0],
      ]);
      expect(hits[0].score).toBeCloseTo(0.9 / Math.sqrt(0.82), 4);
    });

    it('scans a store in index order, pre-filtered by literal substrings, after a cursor', async () => {
      const all = await index.scanChunks({ storeId: store, limit: 10 });
      const expected = all.map((c) => [c.fileId, c.chunkIndex]);
      expect([...expected].sort()).toEqual(
        [
          [f1, 0],
          [f1, 1],
          [f2, 0],
        ].sort(),
      );
      const f1Order = all.filter((c) => c.fileId === f1).map((c) => c.chunkIndex);
      expect(f1Order).toEqual([0, 1]);
      expect(all[0]).toMatchObject({ storeId: store, filename: expect.any(String), score: 0 });
      const rest = await index.scanChunks({
        storeId: store,
        limit: 10,
        after: { fileId: all[0].fileId, chunkIndex: all[0].chunkIndex },
      });
      expect(rest.map((c) => [c.fileId, c.chunkIndex])).toEqual(expected.slice(1));
      expect((await index.scanChunks({ storeId: store, limit: 1 })).length).toBe(1);
      // the pre-filter may over-approximate but never misses a chunk that contains every literal
      const brine = await index.scanChunks({ storeId: store, contains: ['BRINE', 'cucumber'], limit: 10 });
      expect(brine.map((c) => c.text)).toContain('Cucumbers ferment in salt brine.');
      const none = await index.scanChunks({ storeId: store, contains: ['zzqxj'], limit: 10 });
      expect(none).toEqual([]);
      expect(
        (await index.scanChunks({ storeId: store, limit: 10, fileIds: { exclude: [f1] } })).map((c) => c.fileId),
      ).toEqual([f2]);
      expect((await index.scanChunks({ storeId: other, limit: 10 })).map((c) => c.fileId)).toEqual([f3]);
    });

    it('lists the files of stores for facets', async () => {
      const files = await index.listFiles([store, other], 10);
      expect(files.map((f) => f.fileId).sort()).toEqual([f1, f2, f3].sort());
      expect(files.find((f) => f.fileId === f1)).toMatchObject({
        storeId: store,
        filename: 'jams.md',
        metadata: { lang: 'en', year: 2024, tags: ['sweet'] },
      });
      expect(await index.listFiles([store, other], 2)).toHaveLength(2);
    });

    it('filters on file metadata and chunk metadata, and on file ids', async () => {
      const f = parseFilters({ all: [{ key: 'lang', operator: 'eq', value: 'de' }] });
      expect(
        (await index.searchDense({ storeIds: [store], vector: vec(1, 0), topK: 3, filter: f })).map((h) => h.fileId),
      ).toEqual([f2]);
      const g = parseFilters({ key: 'generated_metadata.page', operator: 'gte', value: 2 });
      expect(
        (await index.searchDense({ storeIds: [store], vector: vec(1, 0), topK: 3, filter: g })).map(
          (h) => h.chunkIndex,
        ),
      ).toEqual([1]);
      expect(
        (await index.searchDense({ storeIds: [store], vector: vec(1, 0), topK: 3, fileIds: { include: [f2] } })).map(
          (h) => h.fileId,
        ),
      ).toEqual([f2]);
      expect(
        (await index.searchDense({ storeIds: [store], vector: vec(1, 0), topK: 3, fileIds: { exclude: [f1] } })).map(
          (h) => h.fileId,
        ),
      ).toEqual([f2]);
    });

    it('searches answer hits (places and scores), a filter applied to them; hydrate reads their chunks in the hits’ order with their scores', async () => {
      const key = (h: { storeId: string; fileId: string; chunkIndex: number; score: number }) => ({
        storeId: h.storeId,
        fileId: h.fileId,
        chunkIndex: h.chunkIndex,
        score: h.score,
      });
      const en = parseFilters({ key: 'lang', operator: 'eq', value: 'en' });
      const isEn = (c: ScoredChunk) => (c.metadata as { lang?: string } | null)?.lang === 'en';
      const byLexical = (q: ChunkQuery) => index.searchLexical(q);
      const byDense = (q: ChunkQuery) => index.searchDense(q);
      const searches: Array<[(q: ChunkQuery) => Promise<ChunkHit[]>, ChunkQuery]> = [
        [byLexical, { storeIds: [store, other], text: 'strawberry jam apricot cucumbers', topK: 5 }],
        [byLexical, { storeIds: [store, other], text: 'strawberry', topK: 1 }],
        [byLexical, { storeIds: [store], text: 'strawberry apricot brine', topK: 5 }],
        [byDense, { storeIds: [store], vector: vec(0.9, 0.1), topK: 3, model: 'test-model' }],
        [byDense, { storeIds: [store], vector: vec(0.2, 0.9), topK: 2 }],
        [byDense, { storeIds: [store], vector: vec(0, 1), topK: 3 }],
      ];
      for (const [search, q] of searches) {
        const hits = await search(q);
        expect(hits.length).toBeGreaterThan(0);
        // a hit is the chunk's place and score (and the adapter's handle where it has one), not the chunk
        for (const h of hits)
          expect(
            Object.keys(h)
              .filter((k) => k !== 'ref')
              .sort(),
          ).toEqual(['chunkIndex', 'fileId', 'score', 'storeId']);
        const read = await index.hydrate(hits);
        expect(read.map(key)).toEqual(hits.map(key));
        for (const c of read) {
          expect(c).toMatchObject((await index.getChunks(c.storeId, c.fileId, [c.chunkIndex]))[0]);
          expect(typeof c.filename).toBe('string');
        }
        // filtered: the unfiltered ranking's chunks that pass, in its order with its scores
        const all = await index.hydrate(await search({ ...q, topK: 100 }));
        expect((await search({ ...q, filter: en })).map(key)).toEqual(all.filter(isEn).slice(0, q.topK).map(key));
        // a hit's place decides, whatever adapter handle (`ref`) it carries
        if (hits.length > 1)
          expect(
            await index.hydrate([
              { ...hits[0], ref: hits[1].ref ?? 123456 },
              { ...hits[1], ref: 987654 },
            ]),
          ).toEqual(read.slice(0, 2));
      }
      expect(await index.searchLexical({ storeIds: [store], text: 'zzzunknownword', topK: 5 })).toEqual([]);
      expect(await index.searchDense({ storeIds: [], vector: vec(1, 0), topK: 5 })).toEqual([]);
      // any order and scores, as given; a chunk that does not exist is left out
      const dense = await index.hydrate(await index.searchDense({ storeIds: [store], vector: vec(0.9, 0.1), topK: 3 }));
      const given = [...dense].reverse().map((c, i) => ({ ...key(c), score: i / 10 }));
      const missing = [
        { storeId: store, fileId: f1, chunkIndex: 7, score: 1 },
        { storeId: store, fileId: randomUUID(), chunkIndex: 0, score: 1 },
      ];
      const read = await index.hydrate([missing[0], ...given.slice(0, 2), missing[1], ...given.slice(2)]);
      expect(read.map(key)).toEqual(given);
      expect(read[0]).toEqual({ ...dense[2], score: 0 });
      expect(await index.hydrate([])).toEqual([]);
    });

    it('metadata updates are searchable at once, without touching chunks or vectors', async () => {
      await index.write([{ op: 'setMetadata', storeId: store, fileId: f2, metadata: { lang: 'nl' } }], cp());
      const f = parseFilters({ key: 'lang', operator: 'eq', value: 'nl' });
      const hits = await index.hydrate(
        await index.searchDense({ storeIds: [store], vector: vec(0, 1), topK: 3, filter: f }),
      );
      expect(hits.map((h) => [h.fileId, h.model])).toEqual([[f2, 'test-model']]);
    });

    it('ignores chunks and vectors of a stale generation; a new generation replaces the chunks', async () => {
      const f4 = randomUUID();
      await index.write(
        [
          put(store, f4, 'v.txt', null, 2),
          { op: 'setChunks', storeId: store, fileId: f4, generation: 1, chunks: [chunk(0, 'stale generation text')] },
        ],
        cp(),
      );
      expect(await index.getChunks(store, f4)).toEqual([]);
      await index.write(
        [{ op: 'setChunks', storeId: store, fileId: f4, generation: 2, chunks: [chunk(0, 'current generation text')] }],
        cp(),
      );
      await index.write([put(store, f4, 'v.txt', null, 3)], cp());
      expect(await index.getChunks(store, f4)).toEqual([]);
      await index.write([{ op: 'deleteFile', storeId: store, fileId: f4 }], cp());
    });

    it('applying the same ops twice changes nothing (idempotent replays)', async () => {
      const before = await index.count(store);
      await index.write(
        [
          {
            op: 'setChunks',
            storeId: store,
            fileId: f2,
            generation: 1,
            chunks: [chunk(0, 'Cucumbers ferment in salt brine.')],
          },
          { op: 'setVectors', storeId: store, fileId: f2, generation: 1, model: 'test-model', vectors: [vec(0, 1)] },
        ],
        cp(),
      );
      await index.write(
        [
          {
            op: 'setChunks',
            storeId: store,
            fileId: f2,
            generation: 1,
            chunks: [chunk(0, 'Cucumbers ferment in salt brine.')],
          },
          { op: 'setVectors', storeId: store, fileId: f2, generation: 1, model: 'test-model', vectors: [vec(0, 1)] },
        ],
        cp(),
      );
      expect(await index.count(store)).toEqual(before);
    });

    it('a chunk of an image (an image/* MIME type) is an image_url chunk whose OCR text is searchable', async () => {
      const s = randomUUID();
      const f = randomUUID();
      const image = {
        ...chunk(0, 'QUINCE MARMALADE seven jars'),
        type: 'image_url' as const,
        mimeType: 'image/png',
        generatedMetadata: { type: 'image', file_type: 'image/png', width: 488 },
      };
      await index.write(
        [put(s, f, 'label.png', null), { op: 'setChunks', storeId: s, fileId: f, generation: 1, chunks: [image] }],
        cp(),
      );
      expect(await index.getChunks(s, f)).toEqual([
        expect.objectContaining({
          type: 'image_url',
          mimeType: 'image/png',
          text: 'QUINCE MARMALADE seven jars',
          generatedMetadata: image.generatedMetadata,
        }),
      ]);
      expect(
        (await index.hydrate(await index.searchLexical({ storeIds: [s], text: 'marmalade', topK: 5 }))).map((c) => [
          c.type,
          c.fileId,
        ]),
      ).toEqual([['image_url', f]]);
      await index.write([{ op: 'deleteStore', storeId: s }], cp());
    });

    it('a deleted file or store never appears in results again', async () => {
      const before = await index.searchLexical({ storeIds: [store], text: 'strawberry', topK: 5 });
      expect(before.map((h) => h.fileId)).toEqual([f1]);
      await index.write([{ op: 'deleteFile', storeId: store, fileId: f1 }], cp());
      expect(await index.searchLexical({ storeIds: [store], text: 'strawberry', topK: 5 })).toEqual([]);
      expect(await index.hydrate(before)).toEqual([]);
      expect(await index.getChunks(store, f1)).toEqual([]);
      await index.write([{ op: 'deleteStore', storeId: other }], cp());
      expect(await index.searchLexical({ storeIds: [other], text: 'strawberry', topK: 5 })).toEqual([]);
      expect(await index.count(other)).toEqual({ files: 0, chunks: 0, vectors: 0 });
    });

    it('reset empties the index and the checkpoint', async () => {
      await index.reset(P, 1);
      expect(await index.readCheckpoint(P)).toBeNull();
      expect((await index.count(store)).chunks).toBe(0);
    });
  });
}
