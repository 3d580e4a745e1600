import { createServer, Server } from 'http';
import { AddressInfo } from 'net';
import { RerankError, sigmoid } from '../reranker.port';
import { RerankDouble, RerankDoubleFormat, startRerankDouble } from '../testing/rerank-double';
import { HttpReranker, HttpRerankerOptions } from './http.reranker';

const DOCS = [
  'Strawberry jam needs sugar and lemon',
  'Sauerkraut is fermented cabbage',
  'Dill pickles ferment in brine',
  'Cabbage, salt and time: sauerkraut',
  'The cellar log',
  'Brine for pickles: five percent salt',
  'Quince jelly',
];
const QUERY = 'salt brine pickles';

describe.each<[RerankDoubleFormat, string, string]>([
  ['mixedbread', '/v1/reranking', 'input'],
  ['cohere', '/v1/rerank', 'documents'],
  ['jina', '/v1/rerank', 'documents'],
])('HttpReranker against a local double of the %s rerank wire format', (format, path, field) => {
  let double: RerankDouble;
  const rerankers: HttpReranker[] = [];
  beforeAll(async () => {
    double = await startRerankDouble({ format, apiKey: 'sk-rerank-secret', echoKey: true });
  });
  afterAll(async () => {
    await Promise.all(rerankers.map((r) => r.close()));
    await double.close();
  });
  const make = (o: Partial<HttpRerankerOptions> = {}) => {
    const r = new HttpReranker({
      url: double.baseUrl,
      apiKey: 'sk-rerank-secret',
      model: 'rerank-model',
      format,
      batchSize: 3,
      retryBaseMs: 0,
      ...o,
    });
    rerankers.push(r);
    return r;
  };

  it('batches, speaks the format, and maps the scores back by index into input order', async () => {
    const before = double.requests.length;
    const scores = await make().score(QUERY, DOCS);
    expect(scores).toEqual(DOCS.map((d) => double.relevance(QUERY, d)));
    const sent = double.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual([path, path, path]);
    expect(sent.map((r) => (r.body[field] as string[]).length)).toEqual([3, 3, 1]);
    expect(
      sent.every(
        (r) =>
          r.authorization === 'Bearer sk-rerank-secret' && r.body.model === 'rerank-model' && r.body.query === QUERY,
      ),
    ).toBe(true);
    if (format === 'mixedbread') expect(sent[0].body).toMatchObject({ top_k: 3, return_input: false });
    else expect(sent[0].body).toMatchObject({ top_n: 3 });
    if (format === 'jina') expect(sent[0].body).toMatchObject({ return_documents: false });
  });

  it('takes a full endpoint URL as it is', async () => {
    const before = double.requests.length;
    await make({ url: double.baseUrl.replace(/\/v1$/, '') + path }).score(QUERY, DOCS.slice(0, 2));
    expect(double.requests.slice(before).map((r) => r.path)).toEqual([path]);
  });

  it('retries 429 and 5xx a bounded number of times, then fails with a retryable error', async () => {
    double.failNext(429);
    double.failNext(503);
    expect(await make().score(QUERY, DOCS.slice(0, 2))).toHaveLength(2);
    const before = double.requests.length;
    double.failNext(502, 3);
    const err = (await make({ maxRetries: 2 })
      .score(QUERY, DOCS.slice(0, 2))
      .catch((e: unknown) => e)) as RerankError;
    expect(err).toBeInstanceOf(RerankError);
    expect(err).toMatchObject({ retryable: true, message: expect.stringContaining('502') });
    expect(double.requests.length - before).toBe(3);
  });

  it('a wrong key fails at once, and the key is never in the error, even when the service echoes it', async () => {
    const before = double.requests.length;
    const err = (await make({ apiKey: 'sk-wrong-key-123' })
      .score(QUERY, DOCS)
      .catch((e: unknown) => e)) as RerankError;
    expect(err).toMatchObject({ retryable: false, message: expect.stringContaining('401') });
    expect(err.message).not.toContain('sk-wrong-key-123');
    expect(double.requests.length - before).toBe(1); // not retried
  });

  it('an answer that leaves out a document is an error, not a silent misranking', async () => {
    double.dropNext();
    await expect(make().score(QUERY, DOCS.slice(0, 3))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringMatching(/no score for document \d of 3/),
    });
  });

  it('an answer larger than the limit is refused', async () => {
    const many = Array.from({ length: 80 }, (_, i) => `pickles number ${i}`);
    await expect(make({ batchSize: 100, maxBytes: 1024, maxRetries: 0 }).score(QUERY, many)).rejects.toMatchObject({
      message: expect.stringContaining('larger than 1024 bytes'),
    });
  });
});

describe('HttpReranker: other answers', () => {
  it('maps raw logits through the sigmoid, keeping their order', async () => {
    const double = await startRerankDouble({ format: 'jina', logits: true });
    const r = new HttpReranker({ url: double.baseUrl, apiKey: null, model: 'm', format: 'jina' });
    try {
      const scores = await r.score(QUERY, DOCS);
      expect(scores).toEqual(DOCS.map((d) => sigmoid(8 * double.relevance(QUERY, d) - 4)));
      expect(scores.every((s) => s > 0 && s < 1)).toBe(true);
    } finally {
      await r.close();
      await double.close();
    }
  });

  it('Cohere v2 is reached through its base URL', async () => {
    const double = await startRerankDouble({ format: 'cohere' });
    const r = new HttpReranker({
      url: double.baseUrl.replace(/\/v1$/, '/v2'),
      apiKey: null,
      model: 'rerank-v3.5',
      format: 'cohere',
    });
    try {
      expect(await r.score(QUERY, DOCS.slice(0, 2))).toHaveLength(2);
      expect(double.requests.map((q) => q.path)).toEqual(['/v2/rerank']);
    } finally {
      await r.close();
      await double.close();
    }
  });

  it('the wrong format for the endpoint is an error that is not retried', async () => {
    const double = await startRerankDouble({ format: 'cohere' });
    const r = new HttpReranker({ url: `${double.baseUrl}/rerank`, apiKey: null, model: 'm', format: 'mixedbread' });
    try {
      await expect(r.score(QUERY, DOCS.slice(0, 2))).rejects.toMatchObject({
        retryable: false,
        message: expect.stringContaining('answered 422'),
      });
      expect(double.requests).toHaveLength(1);
    } finally {
      await r.close();
      await double.close();
    }
  });

  it('an endpoint that never answers times out; an unreachable one is a retryable error', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
    const r = new HttpReranker({
      url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`,
      apiKey: 'k',
      model: 'm',
      format: 'cohere',
      timeoutMs: 200,
      maxRetries: 1,
      retryBaseMs: 0,
    });
    const gone = new HttpReranker({
      url: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
      model: 'm',
      format: 'cohere',
      maxRetries: 0,
    });
    try {
      await expect(r.score(QUERY, DOCS)).rejects.toMatchObject({
        retryable: true,
        message: expect.stringContaining('no answer within 200 ms'),
      });
      await expect(gone.score(QUERY, DOCS)).rejects.toMatchObject({
        retryable: true,
        message: expect.stringContaining('unreachable'),
      });
    } finally {
      await r.close();
      await gone.close();
      silent.closeAllConnections();
      await new Promise((res) => silent.close(res));
    }
  });
});
