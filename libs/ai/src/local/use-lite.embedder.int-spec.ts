import { cosineSimilarity as cosine } from '../vectors';
import { UseLiteEmbedder } from './use-lite.embedder';
import { prestartUseLiteQuerySession } from './use-lite-onnx.session';

describe('UseLiteEmbedder: the onnxruntime path gives the vectors of the TensorFlow.js graph', () => {
  const onnx = new UseLiteEmbedder();
  const tfjs = new UseLiteEmbedder({ runtime: 'tfjs' });
  afterAll(async () => {
    await onnx.close();
    await tfjs.close();
  });

  const prose =
    'The retrieval of documents by their descriptive titles depends on how well the title reflects the content. ';
  const texts = [
    'What is information science? Give definitions where possible.',
    'How can actually pertinent data, as opposed to references or entire articles themselves, be retrieved automatically?',
    'jam',
    '',
    '😀 日本語 ﬁne',
    'Pickled cucumbers ferment in brine; jam needs sugar and pectin to set.',
    prose.repeat(12), // past the model's 128 tokens
    'a b c d e f g',
  ];

  it('embeds queries one at a time and documents in padded batches like the tfjs graph (cosine ≥ 0.999)', async () => {
    const expected = await tfjs.embed(texts, 'document');
    const batched = await onnx.embed(texts, 'document');
    expect(onnx.activeRuntime).toBe('onnx');
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await onnx.embed([texts[i]], 'query');
      expect(alone).toHaveLength(512);
      expect(cosine(alone, expected[i])).toBeGreaterThanOrEqual(0.999);
      expect(cosine(batched[i], expected[i])).toBeGreaterThanOrEqual(0.999);
      expect(cosine(alone, batched[i])).toBeGreaterThanOrEqual(0.99999);
      expect(Math.hypot(...alone)).toBeCloseTo(1, 5);
    }
    // distinct texts stay distinct
    expect(cosine(batched[0], batched[5])).toBeLessThan(0.9);
  });

  it('answers queries with a query session started before it (a server starts one with the process)', async () => {
    const session = prestartUseLiteQuerySession(2)!;
    const run = jest.spyOn(session, 'run');
    const early = new UseLiteEmbedder({ querySession: session });
    try {
      const [v] = await early.embed([texts[0]], 'query');
      const [expected] = await onnx.embed([texts[0]], 'query');
      expect(cosine(v, expected)).toBeGreaterThanOrEqual(0.99999);
      expect(run).toHaveBeenCalledWith({ texts: [texts[0]], max: 128 });
    } finally {
      await early.close();
    }
  });

  it('splits more texts than a batch and keeps their order', async () => {
    const many = Array.from({ length: 70 }, (_, i) => `document number ${i} about ${i % 2 ? 'pickles' : 'jam'}`);
    const vectors = await onnx.embed(many, 'document');
    expect(vectors).toHaveLength(70);
    const [v69] = await onnx.embed([many[69]], 'query');
    expect(cosine(vectors[69], v69)).toBeGreaterThanOrEqual(0.99999);
  });

  it('embeds batches side by side in as many document sessions as asked, with the same vectors', async () => {
    const pool = new UseLiteEmbedder({ documentWorkers: 2, threads: 1 });
    try {
      expect(pool.parallelism).toBe(2);
      const [a, b] = await Promise.all([
        pool.embed(texts.slice(0, 4), 'document'),
        pool.embed(texts.slice(4), 'document'),
      ]);
      const expected = await onnx.embed(texts, 'document');
      [...a, ...b].forEach((v, i) => expect(cosine(v, expected[i])).toBeGreaterThanOrEqual(0.99999));
      // two batches at once found the first session busy: a second one started
      expect((pool as unknown as { onnx: { document: unknown[] } }).onnx.document).toHaveLength(2);
    } finally {
      await pool.close();
    }
  });

  it.each([
    ['is not installed', 'onnxruntime-node-that-is-not-installed'],
    ['cannot start a session (the worker fails)', 'path'],
  ])('falls back to TensorFlow.js for good where onnxruntime %s', async (_why, module) => {
    const broken = new UseLiteEmbedder({ onnxRuntimeModule: module });
    const warned = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const [v] = await broken.embed([texts[0]], 'query');
      expect(broken.activeRuntime).toBe('tfjs');
      expect(warned).toHaveBeenCalledWith(
        expect.stringMatching(/onnxruntime is unavailable.*TensorFlow\.js/),
        'LarderWarning',
      );
      const [expected] = await tfjs.embed([texts[0]], 'query');
      expect(cosine(v, expected)).toBeGreaterThanOrEqual(0.99999);
    } finally {
      warned.mockRestore();
      await broken.close();
    }
  });
});
