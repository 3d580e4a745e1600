import { EmbeddingError } from '../embedder.port';
import { EmbeddingsDouble, startEmbeddingsDouble } from '../testing/embeddings-double';
import { OpenAiEmbedder } from './openai.embedder';

describe('OpenAiEmbedder against a local double of the /v1/embeddings wire format', () => {
  let double: EmbeddingsDouble;
  beforeAll(async () => {
    double = await startEmbeddingsDouble({ apiKey: 'sk-test', dims: 24 });
  });
  afterAll(async () => double.close());

  const make = (o: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
    new OpenAiEmbedder({
      baseUrl: double.baseUrl,
      apiKey: 'sk-test',
      model: 'mxbai-embed-large-v1',
      dimensions: 24,
      batchSize: 4,
      ...o,
    });

  it('batches, sends the key and model, and puts vectors back in input order', async () => {
    const texts = Array.from({ length: 10 }, (_, i) => `chunk number ${i}`);
    const before = double.requests.length;
    const vectors = await make().embed(texts, 'document');
    const sent = double.requests.slice(before);
    expect(sent.map((r) => r.input.length)).toEqual([4, 4, 2]);
    expect(
      sent.every(
        (r) =>
          r.model === 'mxbai-embed-large-v1' && r.authorization === 'Bearer sk-test' && r.encoding_format === 'float',
      ),
    ).toBe(true);
    vectors.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(double.vectorOf(texts[i], 24))));
  });

  it('prefixes queries when configured, never documents', async () => {
    const before = double.requests.length;
    const e = make({ queryPrefix: 'Represent this sentence for searching relevant passages: ' });
    await e.embed(['jam'], 'query');
    await e.embed(['jam'], 'document');
    expect(double.requests.slice(before).map((r) => r.input[0])).toEqual([
      'Represent this sentence for searching relevant passages: jam',
      'jam',
    ]);
  });

  it('rate limits and server errors are retryable; a wrong key or dimension is not', async () => {
    double.failNext(429);
    await expect(make().embed(['a'], 'document')).rejects.toMatchObject({
      retryable: true,
      message: expect.stringContaining('429'),
    });
    double.failNext(503);
    await expect(make().embed(['a'], 'document')).rejects.toMatchObject({ retryable: true });
    await expect(make({ apiKey: 'wrong' }).embed(['a'], 'document')).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('401'),
    });
    const err = await make({ dimensions: 32 })
      .embed(['a'], 'document')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect((err as EmbeddingError).retryable).toBe(false);
    expect((err as Error).message).toMatch(/24 dimensions/);
  });

  it('an unreachable endpoint is a retryable error, not a crash', async () => {
    const e = new OpenAiEmbedder({
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: null,
      model: 'm',
      dimensions: 24,
      timeoutMs: 2000,
    });
    await expect(e.embed(['a'], 'document')).rejects.toMatchObject({
      retryable: true,
      message: expect.stringContaining('unreachable'),
    });
  });
});
