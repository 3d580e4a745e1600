import { readFileSync } from 'fs';
import { join } from 'path';
import Mixedbread, { toFile } from '@mixedbread/sdk';
import { estimateTokens } from '@larder/ingestion/document';
import { textPng } from '../libs/ai/src/testing/text-image';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { SdkTypes } from './support/sdk-types';

jest.setTimeout(240_000);

const FIXTURES = join(__dirname, 'fixtures');
/** Keys Larder adds beyond the SDK's declarations (documented in docs/api.md). */
const EXTRAS = {
  PdfChunkGeneratedMetadata: ['page', 'pages'],
  StoreFileConfig: ['max_chunk_size'],
  StoreQuestionAnsweringResponse: ['model'],
};

type Chunk = {
  type: string;
  chunk_index: number;
  mime_type: string;
  generated_metadata: Record<string, unknown>;
  text?: string;
  ocr_text?: string;
  image_url?: { url: string; format: string } | null;
};
type StoreFileWithChunks = {
  id: string;
  status: string;
  filename: string;
  content_url: string;
  last_error: unknown;
  config: Record<string, unknown>;
  chunks?: Chunk[];
};

describe('Chunk shapes, chunking options, contextualization and OCR through the official client', () => {
  let t: TestLarder;
  let c: Mixedbread;
  let key: string;
  const sdk = new SdkTypes();

  beforeAll(async () => {
    t = await startTestLarder({ env: { LARDER_INGESTION_POLL_MS: '100' } });
    key = (await t.newOrganization('formats')).apiKey;
    c = t.client(key);
  });
  afterAll(async () => t?.close());

  const raw = (path: string, body: unknown) =>
    fetch(`${t.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const detail = async (res: Response) => {
    expect(res.status).toBe(422);
    return ((await res.json()) as { detail: Array<{ loc: unknown[]; type: string; msg: string }> }).detail.map((d) => [
      d.loc.join('.'),
      d.type,
    ]);
  };
  const upload = async (store: string, name: string, body: Buffer, type: string, extra: Record<string, unknown> = {}) =>
    (await c.stores.files.uploadAndPoll({
      storeIdentifier: store,
      file: await toFile(body, name, { type }),
      body: extra,
      pollIntervalMs: 100,
      returnChunks: true,
    })) as unknown as StoreFileWithChunks;
  const chunksOf = async (store: string, id: string) =>
    (await c.stores.files.retrieve(id, {
      store_identifier: store,
      return_chunks: true,
    })) as unknown as StoreFileWithChunks;

  it('the validator derived from the SDK’s declarations rejects what a strict client rejects', () => {
    const scored = (meta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      object: 'list',
      data: [
        {
          type: 'text',
          chunk_index: 0,
          score: 0.5,
          file_id: 'f',
          filename: 'a.html',
          store_id: 's',
          generated_metadata: meta,
          text: 'x',
          ...extra,
        },
      ],
    });
    // what earlier releases answered for HTML and JSON
    expect(sdk.check('StoreSearchResponse', scored({ type: 'markdown', file_type: 'text/html' })).join()).toMatch(
      /file_type: expected "text\/markdown", got "text\/html"/,
    );
    expect(sdk.check('StoreSearchResponse', scored({ type: 'text', file_type: 'application/json' })).join()).toMatch(
      /file_type: expected "(text\/plain|message\/rfc822)", got "application\/json"/,
    );
    expect(sdk.check('StoreSearchResponse', scored({ type: 'spreadsheet' })).join()).toMatch(
      /none of the declared variants/,
    );
    expect(
      sdk
        .check('StoreSearchResponse', scored({ type: 'markdown', file_type: 'text/markdown', start_line: '3' }))
        .join(),
    ).toMatch(/start_line: expected a number/);
    expect(
      sdk.check('StoreSearchResponse', scored({ type: 'text', file_type: 'text/plain' }, { score: undefined })).join(),
    ).toMatch(/score: required/);
    expect(
      sdk.check('StoreSearchResponse', scored({ type: 'text', file_type: 'text/plain' }, { surprise: 1 })).join(),
    ).toMatch(/surprise: not declared/);
    expect(sdk.check('StoreSearchResponse', scored({ type: 'pdf', file_type: 'application/pdf', page: 1 }))).toEqual([
      "StoreSearchResponse.data[0].generated_metadata.page: not declared by the SDK's PdfChunkGeneratedMetadata",
    ]);
    expect(
      sdk.check('StoreSearchResponse', scored({ type: 'pdf', file_type: 'application/pdf', page: 1 }), EXTRAS),
    ).toEqual([]);
    expect(
      sdk.check(
        'StoreSearchResponse',
        scored({ type: 'code', file_type: 'text/x-python', language: 'python', start_line: 1, num_lines: 2 }),
      ),
    ).toEqual([]);
  });

  describe('one file of each supported type in one store', () => {
    let store: string;
    const files: Record<string, StoreFileWithChunks> = {};
    const LABELS: Record<string, string> = {
      jpg: 'PEAR CHUTNEY',
      webp: 'DAMSON JAM',
      gif: 'LEMON CURD',
      bmp: 'PICKLED WALNUTS',
      tiff: 'ROWAN JELLY',
    };
    // [file, MIME, chunk type, generated_metadata.type, generated_metadata.file_type]
    const CASES: Array<[string, string, string, string, string]> = [
      ['guide.md', 'text/markdown', 'text', 'markdown', 'text/markdown'],
      ['recipes.html', 'text/html', 'text', 'markdown', 'text/markdown'],
      [
        'handbook.docx',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        'text',
        'markdown',
        'text/markdown',
      ],
      ['notes.txt', 'text/plain', 'text', 'text', 'text/plain'],
      ['inventory.csv', 'text/csv', 'text', 'text', 'text/plain'],
      ['settings.json', 'application/json', 'text', 'text', 'text/plain'],
      ['pantry.yaml', 'application/yaml', 'text', 'text', 'text/plain'],
      ['order.eml', 'message/rfc822', 'text', 'text', 'message/rfc822'],
      ['ferment.py', 'text/x-python', 'text', 'code', 'text/x-python'],
      ['inventory.ts', 'text/typescript', 'text', 'code', 'text/typescript'],
      ['report.pdf', 'application/pdf', 'text', 'pdf', 'application/pdf'],
      ['label.png', 'image/png', 'image_url', 'image', 'image/png'],
      ['label.jpg', 'image/jpeg', 'image_url', 'image', 'image/jpeg'],
      ['label.webp', 'image/webp', 'image_url', 'image', 'image/webp'],
      ['label.gif', 'image/gif', 'image_url', 'image', 'image/gif'],
      ['label.bmp', 'image/bmp', 'image_url', 'image', 'image/bmp'],
      ['label.tiff', 'image/tiff', 'image_url', 'image', 'image/tiff'],
    ];
    const content = (name: string): Buffer => {
      if (name === 'label.png') return textPng(['QUINCE MARMALADE', 'ZEPHYR WALTZ JOCKEY']);
      if (name.startsWith('label.')) return readFileSync(join(FIXTURES, 'images', name));
      if (name === 'pantry.yaml')
        return Buffer.from(
          'shelves:\n  - name: B2\n    holds: pickled cucumbers\n  - name: C1\n    holds: apricot jam\n',
        );
      if (name === 'order.eml')
        return Buffer.from(
          'From: cellar@example.com\nTo: kitchen@example.com\nSubject: jars\n\nForty jars of plum jam arrive on Monday.\n',
        );
      return readFileSync(join(FIXTURES, 'ingestion', name));
    };

    beforeAll(async () => {
      store = (await c.stores.create({ name: 'every-format' })).id;
      await Promise.all(
        CASES.map(async ([name, mime]) => (files[name] = await upload(store, name, content(name), mime))),
      );
    });

    it('every file completes, and every chunk and its generated_metadata are of a type the SDK declares', async () => {
      for (const [name, , chunkType, metaType, fileType] of CASES) {
        const sf = await chunksOf(store, files[name].id);
        expect([name, sf.status, sf.last_error]).toEqual([name, 'completed', null]);
        expect([name, sdk.check('StoreFile', sf, EXTRAS)]).toEqual([name, []]);
        expect(sf.chunks!.length).toBeGreaterThan(0);
        for (const ch of sf.chunks!) {
          expect([name, ch.type, ch.generated_metadata.type, ch.generated_metadata.file_type]).toEqual([
            name,
            chunkType,
            metaType,
            fileType,
          ]);
        }
      }
    });

    it('images are image_url chunks: the OCR text in ocr_text, the picture at image_url, width and height in the metadata', async () => {
      const png = await chunksOf(store, files['label.png'].id);
      const [chunk] = png.chunks!;
      expect(chunk).toMatchObject({
        type: 'image_url',
        mime_type: 'image/png',
        summary: null,
        context: null,
        image_url: { url: png.content_url, format: 'image/png' },
      });
      expect(chunk.ocr_text).toMatch(/QUINCE MARMALADE\s+ZEPHYR WALTZ JOCKEY/);
      expect(chunk).not.toHaveProperty('text');
      expect(chunk.generated_metadata).toEqual({
        type: 'image',
        file_type: 'image/png',
        file_size: content('label.png').length,
        width: 488,
        height: 112,
        file_extension: 'png',
      });
      const picture = await fetch(chunk.image_url!.url);
      expect(Buffer.from(await picture.arrayBuffer()).equals(content('label.png'))).toBe(true);
      for (const [ext, words] of Object.entries(LABELS)) {
        const sf = await chunksOf(store, files[`label.${ext}`].id);
        expect([ext, sf.chunks![0].ocr_text]).toEqual([ext, expect.stringContaining(words)]);
      }
    });

    it('the OCR text is searchable: search, grep (`generated`), list-chunks and question answering answer in the SDK’s shapes', async () => {
      const hits = await c.stores.search({ query: 'quince marmalade', store_identifiers: [store], top_k: 5 });
      expect(sdk.check('StoreSearchResponse', hits, EXTRAS)).toEqual([]);
      expect(hits.data[0]).toMatchObject({ type: 'image_url', filename: 'label.png', file_id: files['label.png'].id });
      expect((hits.data[0] as { ocr_text: string }).ocr_text).toContain('ZEPHYR');
      const pear = await c.stores.search({ query: 'pear chutney', store_identifiers: [store], top_k: 3 });
      expect(pear.data[0]).toMatchObject({ type: 'image_url', filename: 'label.jpg' });

      const generated = await c.stores.grep({
        pattern: 'ROWAN\\s+JELLY',
        store_identifiers: [store],
        targets: ['generated'],
      } as never);
      expect(sdk.check('StoreGrepResponse', generated, EXTRAS)).toEqual([]);
      expect((generated as { data: Array<{ filename: string }> }).data.map((d) => d.filename)).toEqual(['label.tiff']);
      const textOnly = await c.stores.grep({
        pattern: 'ROWAN',
        store_identifiers: [store],
        targets: ['text'],
      } as never);
      expect((textOnly as { data: unknown[] }).data).toEqual([]);

      const all = await c.stores.listChunks({ store_identifiers: [store], top_k: 500 });
      expect(sdk.check('StoreListChunksResponse', all, EXTRAS)).toEqual([]);
      const types = new Set(
        (all as unknown as { data: Chunk[] }).data.map((d) => `${d.type}/${String(d.generated_metadata.type)}`),
      );
      expect([...types].sort()).toEqual(['image_url/image', 'text/code', 'text/markdown', 'text/pdf', 'text/text']);

      const qa = await c.stores.questionAnswering({
        query: 'How many jars of damson jam?',
        store_identifiers: [store],
        top_k: 5,
      });
      expect(sdk.check('StoreQuestionAnsweringResponse', qa, EXTRAS)).toEqual([]);
    });

    it('an image query is refused with a 422 that says how to search images', async () => {
      const res = await raw('/v1/stores/search', {
        query: {
          type: 'image_url',
          image_url: { url: `data:image/png;base64,${textPng(['PEAR']).toString('base64')}` },
        },
        store_identifiers: [store],
      });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toMatch(/searchable by their OCR text/);
    });

    it('an unreadable image fails with a parse error (audio and video: test/media.e2e-spec.ts)', async () => {
      const broken = await upload(store, 'broken.png', textPng(['X']).subarray(0, 40), 'image/png');
      expect([broken.status, broken.last_error]).toEqual([
        'failed',
        { code: 'parse_error', message: expect.stringMatching(/Could not read the image \(image\/png\)/) },
      ]);
    });
  });

  describe('chunking options the clients send', () => {
    const words = 'Plums keep for a year when the jars are sealed hot and stored in a cool cellar away from light';
    const long = Array.from({ length: 12 }, (_, i) => `Section ${i}. ${words}. ${words}.`).join('\n\n');

    it('config.max_chunk_size yields chunks no larger than it; the default size fewer, larger ones', async () => {
      const store = (await c.stores.create({ name: 'chunk-sizes' })).id;
      const small = await upload(store, 'small.txt', Buffer.from(long), 'text/plain', {
        config: { parsing_strategy: 'fast', max_chunk_size: 64 },
      });
      const plain = await upload(store, 'plain.txt', Buffer.from(long), 'text/plain');
      expect(small).toMatchObject({ status: 'completed', config: { parsing_strategy: 'fast', max_chunk_size: 64 } });
      expect(plain.config).toEqual({ parsing_strategy: 'fast' });
      expect(sdk.check('StoreFile', small, EXTRAS)).toEqual([]);
      for (const ch of small.chunks!) expect(estimateTokens(ch.text!)).toBeLessThanOrEqual(64);
      expect(Math.max(...plain.chunks!.map((ch) => estimateTokens(ch.text!)))).toBeGreaterThan(64);
      expect(small.chunks!.length).toBeGreaterThan(3 * plain.chunks!.length);

      // the multipart route (`params`, as mxbai's upload sends it) and the legacy `experimental`
      const form = new FormData();
      form.append('file', new Blob([long], { type: 'text/plain' }), 'form.txt');
      form.append('params', JSON.stringify({ config: { max_chunk_size: 128 } }));
      const res = await fetch(`${t.baseURL}/v1/stores/${store}/files/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      expect(res.status).toBe(201);
      const viaForm = (await c.stores.files.poll(
        store,
        ((await res.json()) as { id: string }).id,
        100,
        60_000,
      )) as unknown as StoreFileWithChunks;
      const formChunks = (await chunksOf(store, viaForm.id)).chunks!;
      for (const ch of formChunks) expect(estimateTokens(ch.text!)).toBeLessThanOrEqual(128);
      expect(formChunks.length).toBeLessThan(small.chunks!.length);

      // attaching the same file again with another size re-ingests it with that size
      const again = (await c.stores.files.createAndPoll({
        storeIdentifier: store,
        body: { file_id: plain.id, experimental: { max_chunk_size: 32 } } as never,
        pollIntervalMs: 100,
        returnChunks: true,
      })) as unknown as StoreFileWithChunks;
      expect(again.config).toEqual({ parsing_strategy: 'fast', max_chunk_size: 32 });
      for (const ch of again.chunks!) expect(estimateTokens(ch.text!)).toBeLessThanOrEqual(32);
      expect(again.chunks!.length).toBeGreaterThan(small.chunks!.length);
    });

    it('a size that is not an integer from 32 to 8192, or a malformed contextualization, is a 422 (nothing is stored and ignored)', async () => {
      const s = (await c.stores.create({ name: 'bad-options' })).id;
      const file = await c.files.create({ file: await toFile(Buffer.from('jam'), 'jam.txt', { type: 'text/plain' }) });
      for (const bad of [0, 10, 9000, 64.5, '64']) {
        const problems = await detail(
          await raw(`/v1/stores/${s}/files`, { file_id: file.id, config: { max_chunk_size: bad } }),
        );
        expect(new Set(problems.map(([loc]) => loc))).toEqual(new Set(['body.config.max_chunk_size']));
      }
      for (const bad of [
        'yes',
        null,
        1,
        { with_metadata: 5 },
        { with_file_context: 'true' },
        { with_metadata: [''] },
        { with_summaries: true },
      ]) {
        expect(
          await detail(
            await raw('/v1/stores', {
              name: `bad-${Math.random().toString(36).slice(2, 8)}`,
              config: { contextualization: bad },
            }),
          ),
        ).toEqual([['body.config.contextualization', 'value_error']]);
      }
      expect((await c.stores.list()).data.map((x) => x.name).filter((n) => n.startsWith('bad-'))).toEqual([
        'bad-options',
      ]);
    });
  });

  describe('contextualization changes what is embedded, never the returned text', () => {
    // the title and the metadata words appear nowhere in the text: only the embedding can find them
    const guide =
      '---\ntitle: Zanzibar Clove Harvest\n---\nWorkers start before dawn. Baskets are weighed at noon and the yield is written in the ledger.\n';
    const note = 'The crates were loaded in the morning and the ledger was signed by the foreman.\n';
    let on: string;
    let meta: string;
    let off: string;

    beforeAll(async () => {
      on = (await c.stores.create({ name: 'ctx-on', config: { contextualization: { with_file_context: true } } })).id;
      meta = (await c.stores.create({ name: 'ctx-meta', config: { contextualization: { with_metadata: ['origin'] } } }))
        .id;
      off = (await c.stores.create({ name: 'ctx-off' })).id;
    });

    /** The stores of the chunks of `filename` a search finds, best first, with their scores. */
    const best = async (query: string, stores: string[], filename: string) => {
      const r = await c.stores.search({ query, store_identifiers: stores, top_k: 10 });
      return r.data.filter((d) => d.filename === filename).map((d) => [d.store_id, d.score] as const);
    };

    it('with_file_context: a query that matches only the title finds the contextualized chunk first', async () => {
      const a = await upload(on, 'harvest-notes.md', Buffer.from(guide), 'text/markdown');
      const b = await upload(off, 'harvest-notes.md', Buffer.from(guide), 'text/markdown');
      expect((await c.stores.retrieve(on)).config).toMatchObject({ contextualization: { with_file_context: true } });
      expect(a.chunks!.map((ch) => ch.text)).toEqual(b.chunks!.map((ch) => ch.text)); // the returned text is the same
      expect(a.chunks![0].text).not.toMatch(/Zanzibar/);
      const ranking = await best('Zanzibar clove harvest', [off, on], 'harvest-notes.md');
      expect(ranking.map(([s]) => s)).toEqual([on, off]);
      expect(ranking[0][1]).toBeGreaterThan(ranking[1][1]);
    });

    it('with_metadata: the listed metadata is embedded, and a metadata change embeds the file again', async () => {
      const body = { metadata: { origin: 'Madagascar vanilla', shelf: 'B2' } };
      const a = await upload(meta, 'crates.txt', Buffer.from(note), 'text/plain', body);
      await upload(off, 'crates.txt', Buffer.from(note), 'text/plain', body);
      expect(a.status).toBe('completed');
      expect((await best('Madagascar vanilla', [off, meta], 'crates.txt')).map(([s]) => s)).toEqual([meta, off]);

      const updated = await c.stores.files.update(a.id, {
        store_identifier: meta,
        metadata: { origin: 'Tahitian lime', shelf: 'B2' },
      });
      expect(['pending', 'in_progress']).toContain(updated.status); // embedded again, not just re-labelled
      const done = await c.stores.files.poll(meta, a.id, 100, 60_000);
      expect(done.status).toBe('completed');
      const offFile = (await c.stores.files.list(off, {})).data.find((f) => f.filename === 'crates.txt')!;
      await c.stores.files.update(offFile.id, {
        store_identifier: off,
        metadata: { origin: 'Tahitian lime', shelf: 'B2' },
      });
      expect((await c.stores.files.retrieve(offFile.id, { store_identifier: off })).status).toBe('completed'); // no contextualization: no re-embedding
      expect((await best('Tahitian lime', [off, meta], 'crates.txt')).map(([s]) => s)).toEqual([meta, off]);
    });
  });
});
