/* eslint-disable @typescript-eslint/no-explicit-any */
import Mixedbread from '@mixedbread/sdk';
import OpenAI from 'openai';
import { MixedbreadAI, MixedbreadAIClient } from '@mixedbread-ai/sdk';
import { MixedbreadAIEmbeddings, MixedbreadAIReranker } from '@llamaindex/mixedbread';
import { MetadataMode, TextNode } from '@llamaindex/core/schema';
import { createMixedbread } from 'mixedbread-ai-provider';
import { embed, embedMany, rerank } from 'ai';
import { startTestLarder, TestLarder } from './support/in-process-larder';
import { contractViolation, send } from './support/fuzz-http';

jest.setTimeout(120_000);

const USE_LITE = 'universal-sentence-encoder-lite';
const HYBRID = 'larder-hybrid-rerank';
/** The names the clients use by default, mapped by the operator to what this server runs. */
const ALIASES = {
  'mixedbread-ai/mxbai-embed-large-v1': USE_LITE,
  'text-embedding-3-small': USE_LITE,
  'mixedbread-ai/mxbai-rerank-large-v2': HYBRID,
};

const DOCS = [
  'To bake sourdough bread you feed a starter of flour and water, then proof the dough overnight.',
  'The stock market closed higher after the central bank held interest rates steady.',
  'Strawberry jam sets when fruit, sugar and lemon juice boil to 105 degrees.',
  'A bread machine kneads and bakes a loaf with yeast in about three hours.',
];
const QUERY = 'how do I bake bread with a sourdough starter';

const norm = (v: number[]) => Math.hypot(...v);
const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b));
const float32 = (b64: string) => {
  const buf = Buffer.from(b64, 'base64');
  return Array.from({ length: buf.length / 4 }, (_, i) => buf.readFloatLE(i * 4));
};

/**
 * Every client that calls `/v1/embeddings`, `/v1/reranking` or `/v1/models`, unchanged, against one
 * server in its zero-configuration shape (the bundled USE-lite embedder, no cross-encoder: reranking
 * is the hybrid lexical + embedding ranking), with the operator's aliases for the clients' default
 * model names.
 */
describe('models: embeddings, reranking and the model list, through every client', () => {
  let t: TestLarder;
  let key: string;
  let orgId: string;
  let mxbai: Mixedbread;

  const raw = (path: string, body?: unknown, authorization = `Bearer ${key}`) =>
    send(t.baseURL, {
      method: body === undefined ? 'GET' : 'POST',
      path,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const json = async (path: string, body?: unknown, authorization?: string) => {
    const r = await raw(path, body, authorization);
    expect(contractViolation(r)).toBeNull();
    return { status: r.status, body: JSON.parse(r.body) };
  };
  const until = async (path: string, ok: (body: any) => boolean) => {
    let last: any;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      last = (await json(path)).body;
      if (ok(last)) return last;
    }
    throw new Error(`${path} never answered as expected; last answer: ${JSON.stringify(last)}`);
  };

  beforeAll(async () => {
    t = await startTestLarder({
      env: {
        LARDER_MODEL_ALIASES: Object.entries(ALIASES)
          .map(([a, m]) => `${a}=${m}`)
          .join(','),
      },
    });
    const org = await t.newOrganization('models');
    key = org.apiKey;
    orgId = org.organizationId;
    mxbai = t.client(key);
  });
  afterAll(async () => t?.close());

  describe('openai (npm) 6.30', () => {
    let openai: OpenAI;
    beforeAll(() => {
      openai = new OpenAI({ apiKey: key, baseURL: `${t.baseURL}/v1`, maxRetries: 0 });
    });

    it('lists the models this server serves, each under its real name, and retrieves one by name or alias', async () => {
      const ids: string[] = [];
      for await (const m of openai.models.list()) {
        expect(m).toMatchObject({ object: 'model', owned_by: 'larder', created: expect.any(Number) });
        ids.push(m.id);
      }
      expect(ids).toEqual([USE_LITE, HYBRID]);
      expect(await openai.models.retrieve(USE_LITE)).toMatchObject({
        id: USE_LITE,
        object: 'model',
        type: 'embedding',
        dimensions: 512,
        default: true,
      });
      // an alias names the model that answers it: never the name asked for
      const aliased = await openai.models.retrieve('mixedbread-ai/mxbai-embed-large-v1');
      expect(aliased).toMatchObject({
        id: USE_LITE,
        aliases: ['mixedbread-ai/mxbai-embed-large-v1', 'text-embedding-3-small'],
      });
      const err = await openai.models.retrieve('gpt-4o').catch((e) => e);
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err.message).toMatch(
        /"gpt-4o" is not served here.*universal-sentence-encoder-lite \(default\).*larder-hybrid-rerank \(default\)/,
      );
      // a name with a slash also reaches the route unencoded
      expect((await json('/v1/models/mixedbread-ai/mxbai-rerank-large-v2')).body).toMatchObject({
        id: HYBRID,
        type: 'reranking',
        method: 'hybrid',
      });
    });

    it('embeddings.create in base64 (its default) and in float give the same vector', async () => {
      const decoded = await openai.embeddings.create({ model: 'text-embedding-3-small', input: DOCS.slice(0, 2) });
      const floats = await openai.embeddings.create({
        model: 'text-embedding-3-small',
        input: DOCS.slice(0, 2),
        encoding_format: 'float',
      });
      const b64 = await openai.embeddings.create({
        model: 'text-embedding-3-small',
        input: DOCS.slice(0, 2),
        encoding_format: 'base64',
      });
      expect(floats).toMatchObject({
        object: 'list',
        model: USE_LITE,
        usage: { prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) },
      });
      expect(floats.usage.prompt_tokens).toBeGreaterThan(20);
      expect(floats.data.map((d) => [d.object, d.index])).toEqual([
        ['embedding', 0],
        ['embedding', 1],
      ]);
      for (const i of [0, 1]) {
        expect(floats.data[i].embedding).toHaveLength(512);
        expect(decoded.data[i].embedding).toEqual(floats.data[i].embedding);
        expect(float32(b64.data[i].embedding as unknown as string)).toEqual(floats.data[i].embedding);
        expect(norm(floats.data[i].embedding)).toBeCloseTo(1, 5);
      }
      // `dimensions`: the first n values, back to unit length
      const short = await openai.embeddings.create({
        model: USE_LITE,
        input: DOCS[0],
        dimensions: 128,
        encoding_format: 'float',
      });
      const head = floats.data[0].embedding.slice(0, 128);
      expect(short.data[0].embedding).toHaveLength(128);
      expect(norm(short.data[0].embedding)).toBeCloseTo(1, 5);
      expect(cos(short.data[0].embedding, head)).toBeCloseTo(1, 5);
      const tooMany = await openai.embeddings.create({ model: USE_LITE, input: 'x', dimensions: 1024 }).catch((e) => e);
      expect(tooMany).toBeInstanceOf(OpenAI.UnprocessableEntityError);
      const detail = (await json('/v1/embeddings', { model: USE_LITE, input: 'x', dimensions: 1024 })).body.detail;
      expect(detail[0]).toMatchObject({ loc: ['body', 'dimensions'], type: 'less_than_equal' });
    });
  });

  describe('@mixedbread-ai/sdk 2.2.11 (bare key in Authorization)', () => {
    let client: MixedbreadAIClient;
    beforeAll(() => {
      client = new MixedbreadAIClient({ apiKey: key, environment: t.baseURL });
    });

    it('authenticates with the key alone, as it sends it, and still with Bearer', async () => {
      expect((await json('/v1/models', undefined, key)).status).toBe(200);
      expect((await json('/v1/models', undefined, `Bearer ${key}`)).status).toBe(200);
      expect((await json('/v1/models', undefined, 'mxb_not-a-key')).status).toBe(401);
      expect((await json('/v1/models', undefined, `Basic ${key}`)).status).toBe(401);
    });

    it('embeddings: one format, several formats (embedding_dict), text inputs, explicit nulls', async () => {
      const one = await client.embeddings({ model: 'mixedbread-ai/mxbai-embed-large-v1', input: DOCS[0] });
      expect(one).toMatchObject({
        model: USE_LITE,
        normalized: true,
        encodingFormat: 'float',
        dimensions: 512,
        object: 'list',
      });
      expect(one.usage.promptTokens).toBeGreaterThan(10);
      const single = one.data[0] as MixedbreadAI.Embedding;
      expect(single.object).toBe('embedding');
      expect(single.embedding as number[]).toHaveLength(512);

      const many = await client.embeddings({
        model: 'mixedbread-ai/mxbai-embed-large-v1',
        input: [{ text: DOCS[0] }, { text: DOCS[2] }],
        encodingFormat: [
          MixedbreadAI.EncodingFormat.Float,
          MixedbreadAI.EncodingFormat.Int8,
          MixedbreadAI.EncodingFormat.Ubinary,
          MixedbreadAI.EncodingFormat.Base64,
        ],
        truncationStrategy: MixedbreadAI.TruncationStrategy.End,
      });
      expect(many.encodingFormat).toEqual(['float', 'int8', 'ubinary', 'base64']);
      const [d0, d1] = many.data as MixedbreadAI.MultipleEncodingsEmbedding[];
      expect(d0.object).toBe('embedding_dict');
      // the same text in another batch: the same vector up to the runtime's float arithmetic
      expect(cos(d0.embedding.float!, single.embedding as number[])).toBeGreaterThan(0.99999);
      expect(d1.index).toBe(1);
      expect(float32(d0.embedding.base64 as unknown as string)).toEqual(d0.embedding.float);
      expect(d0.embedding.int8).toEqual(d0.embedding.float!.map((x) => Math.round(127 * x) || 0));
      expect(d0.embedding.ubinary).toHaveLength(64);
      const bits = d0.embedding.ubinary!.flatMap((byte) => Array.from({ length: 8 }, (_, k) => (byte >> (7 - k)) & 1));
      expect(bits).toEqual(d0.embedding.float!.map((x) => (x > 0 ? 1 : 0)));

      // the client sends absent options as explicit nulls
      const nulls = await json('/v1/embeddings', {
        model: USE_LITE,
        input: ['a'],
        normalized: null,
        encoding_format: null,
        truncation_strategy: null,
        dimensions: null,
        prompt: null,
      });
      expect(nulls.status).toBe(200);
      expect(nulls.body).toMatchObject({ normalized: true, encoding_format: 'float', dimensions: 512 });
    });

    it('reranking with a text query, top_k and return_input', async () => {
      const r = await client.reranking({
        model: 'default',
        query: { text: QUERY },
        input: DOCS,
        topK: 2,
        returnInput: true,
      });
      expect(r).toMatchObject({ model: HYBRID, topK: 2, returnInput: true, object: 'list' });
      expect(r.data).toHaveLength(2);
      expect(r.data[0]).toMatchObject({ index: 0, input: DOCS[0], object: 'rank_result' });
      expect(r.data[0].score).toBeGreaterThan(r.data[1].score);
      expect(r.usage.promptTokens).toBeGreaterThan(40);
    });

    it('an unknown model is a 404 that names what is served; the 2.x client raises its NotFoundError', async () => {
      const err = await client.embeddings({ model: 'text-embedding-ada-002', input: 'x' }).catch((e) => e);
      expect(err).toBeInstanceOf(MixedbreadAI.NotFoundError);
      expect(JSON.stringify(err.body)).toMatch(/universal-sentence-encoder-lite \(default\).*LARDER_MODEL_ALIASES/);
    });
  });

  describe('@llamaindex/mixedbread 0.0.37', () => {
    it('embeds texts and a query (options it does not set go as nulls)', async () => {
      const embeddings = new MixedbreadAIEmbeddings({ apiKey: key, baseUrl: t.baseURL, maxRetries: 0 });
      const vectors = await embeddings.getTextEmbeddings(DOCS);
      expect(vectors).toHaveLength(4);
      expect(vectors.every((v) => v.length === 512)).toBe(true);
      const q = await embeddings.getTextEmbedding(QUERY);
      const best = vectors.map((v, i) => [cos(q, v), i]).sort((a, b) => b[0] - a[0])[0][1];
      expect([0, 3]).toContain(best);
    });

    it('reranks nodes with model "default"', async () => {
      const reranker = new MixedbreadAIReranker({ apiKey: key, baseUrl: t.baseURL, maxRetries: 0 });
      const nodes = DOCS.map((text) => ({ node: new TextNode({ text }), score: 0 }));
      const out = await reranker.postprocessNodes(nodes, QUERY);
      expect(out).toHaveLength(4);
      expect(out[0].node.getContent(MetadataMode.NONE)).toBe(DOCS[0]);
      const scores = out.map((n) => n.score!);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    });
  });

  describe('mixedbread-ai-provider 4.0 through the ai package', () => {
    it('embed and embedMany get plain number arrays; rerank gets sorted results with token usage', async () => {
      const mb = createMixedbread({ apiKey: key, baseURL: `${t.baseURL}/v1` });
      const one = await embed({
        model: mb.textEmbeddingModel('mixedbread-ai/mxbai-embed-large-v1'),
        value: DOCS[0],
        maxRetries: 0,
      });
      expect(one.embedding).toHaveLength(512);
      expect(one.usage.tokens).toBeGreaterThan(10);
      const many = await embedMany({
        model: mb.textEmbeddingModel(USE_LITE),
        values: DOCS,
        maxRetries: 0,
        providerOptions: {
          mixedbread: { normalized: false, prompt: 'Represent this sentence for searching relevant passages: ' },
        },
      });
      expect(many.embeddings).toHaveLength(4);
      // the prompt is part of what is embedded
      const prompted = await mxbai.embed({
        model: USE_LITE,
        input: [`Represent this sentence for searching relevant passages: ${DOCS[1]}`],
        normalized: false,
      });
      const promptedVector = (prompted.data[0] as { embedding: number[] }).embedding;
      expect(cos(many.embeddings[1], promptedVector)).toBeGreaterThan(0.99999);
      expect(norm(many.embeddings[1])).toBeCloseTo(norm(promptedVector), 4);

      const ranked = await rerank({
        model: mb.reranking('mixedbread-ai/mxbai-rerank-large-v2'),
        query: QUERY,
        documents: DOCS,
        topN: 3,
        maxRetries: 0,
      });
      expect(ranked.ranking).toHaveLength(3);
      expect(ranked.ranking[0]).toMatchObject({ originalIndex: 0, document: DOCS[0] });
      expect(ranked.ranking.map((r) => r.score)).toEqual([...ranked.ranking.map((r) => r.score)].sort((a, b) => b - a));
      const body = ranked.response.body as any;
      expect(body).toMatchObject({ object: 'list', model: HYBRID, usage: { completion_tokens: 0 } });
    });
  });

  describe('@mixedbread/sdk 0.78', () => {
    it('embed in every encoding format at once', async () => {
      const formats = ['float', 'float16', 'base64', 'binary', 'ubinary', 'int8', 'uint8'] as const;
      const r = await mxbai.embed({ model: 'default', input: [DOCS[2]], encoding_format: [...formats] });
      expect(r).toMatchObject({ model: USE_LITE, encoding_format: [...formats], normalized: true, dimensions: 512 });
      const e = (r.data[0] as any).embedding;
      expect(Object.keys(e).sort()).toEqual([...formats].sort());
      const f: number[] = e.float;
      expect(float32(e.base64)).toEqual(f);
      e.float16.forEach((x: number, i: number) =>
        expect(Math.abs(x - f[i])).toBeLessThanOrEqual(Math.abs(f[i]) * 2 ** -11 + 2 ** -25),
      );
      expect(e.binary).toEqual(e.ubinary.map((b: number) => b - 128));
      expect(e.uint8).toEqual(f.map((x) => Math.round(127.5 * (x + 1))));
    });

    it('rerank objects by rank_fields, returning them', async () => {
      const docs = [
        { title: 'Quarterly earnings', body: 'bread' },
        { title: 'Sourdough bread starter guide', body: 'markets' },
      ];
      const r = await mxbai.rerank({
        query: 'sourdough starter',
        input: docs,
        rank_fields: ['title'],
        return_input: true,
        top_k: 1,
      });
      expect(r).toMatchObject({ model: HYBRID, top_k: 1, return_input: true });
      expect(r.data).toEqual([{ object: 'rank_result', index: 1, score: expect.any(Number), input: docs[1] }]);
      // ranked on `body` instead, the other one wins on its words
      const byBody = await mxbai.rerank({ query: 'bread', input: docs, rank_fields: ['body'] });
      expect(byBody.data.map((d) => d.index)).toEqual([0, 1]);
      expect(byBody.data[0]).not.toHaveProperty('input');
    });
  });

  describe('the contract around them', () => {
    it('truncation_strategy: end and start keep different parts; none refuses a text longer than the model reads', async () => {
      const long = `${'Bread rises. '.repeat(600)}Jam sets.`;
      const end = await json('/v1/embeddings', { model: USE_LITE, input: long, truncation_strategy: 'end' });
      const start = await json('/v1/embeddings', { model: USE_LITE, input: long, truncation_strategy: 'start' });
      expect(end.status).toBe(200);
      expect(cos(end.body.data[0].embedding, start.body.data[0].embedding)).toBeLessThan(0.999);
      const none = await json('/v1/embeddings', {
        model: USE_LITE,
        input: ['short', long],
        truncation_strategy: 'none',
      });
      expect(none.status).toBe(422);
      expect(none.body.detail[0]).toMatchObject({ loc: ['body', 'input', 1], type: 'string_too_long' });
    });

    it('refuses bad input with a 422 at its location, and a model of the wrong kind with a 400', async () => {
      const bad = async (body: unknown, path = '/v1/embeddings') => (await json(path, body)).body;
      expect((await bad({ model: USE_LITE, input: [] })).detail[0]).toMatchObject({
        loc: ['body', 'input'],
        type: 'too_short',
      });
      expect((await bad({ model: USE_LITE, input: [[1, 2, 3]] })).detail[0].msg).toMatch(/Token ids/);
      expect((await bad({ model: USE_LITE, input: 'x', encoding_format: ['float', 'int4'] })).detail[0]).toMatchObject({
        loc: ['body', 'encoding_format', 1],
        type: 'enum',
      });
      expect((await bad({ model: USE_LITE, input: 'x', dimensions: 0 })).detail[0]).toMatchObject({
        loc: ['body', 'dimensions'],
      });
      expect((await bad({ model: USE_LITE, input: 'x', normalized: true, normalize: false })).detail[0]).toMatchObject({
        loc: ['body', 'normalize'],
      });
      expect((await bad({ input: 'x' })).detail[0]).toMatchObject({ loc: ['body', 'model'], type: 'missing' });
      expect((await bad({ model: USE_LITE, input: [{ type: 'image_url', image_url: 'x' }] })).detail[0].msg).toMatch(
        /text only/,
      );
      expect((await bad({ query: 'q', input: ['a'], top_k: 0 }, '/v1/reranking')).detail[0]).toMatchObject({
        loc: ['body', 'top_k'],
      });
      expect((await bad({ query: 'q', input: ['a'], rewrite_query: true }, '/v1/reranking')).detail[0]).toMatchObject({
        loc: ['body', 'rewrite_query'],
      });
      expect((await bad({ query: '', input: ['a'] }, '/v1/reranking')).detail[0]).toMatchObject({
        loc: ['body', 'query'],
        type: 'string_too_short',
      });
      expect((await bad({ query: 'q', input: [null] }, '/v1/reranking')).detail[0]).toMatchObject({
        loc: ['body', 'input', 0],
      });
      const wrongKind = await json('/v1/reranking', { model: USE_LITE, query: 'q', input: ['a'] });
      expect(wrongKind.status).toBe(400);
      expect(wrongKind.body.error).toMatchObject({ type: 'model_not_supported', code: 400 });
      expect(wrongKind.body.message).toMatch(/is an embedding model.*larder-hybrid-rerank \(default\)/);
      // top_k -1 (the OAS default) means all
      expect((await json('/v1/reranking', { query: 'q', input: ['a', 'b'], top_k: -1 })).body.data).toHaveLength(2);
    });

    it('scopes: running a model needs create on completions; listing models needs list on completions', async () => {
      const create = async (scope: unknown) =>
        (await mxbai.apiKeys.create({ name: 'scoped', scope: scope as any })).value;
      const storeOnly = await create([{ method: 'search', resource_type: 'store' }]);
      const modelsOnly = await create([{ method: 'create', resource_type: 'completions' }]);
      expect((await json('/v1/embeddings', { model: USE_LITE, input: 'x' }, storeOnly)).status).toBe(403);
      expect((await json('/v1/reranking', { query: 'q', input: ['a'] }, `Bearer ${storeOnly}`)).status).toBe(403);
      expect((await json('/v1/embeddings', { model: USE_LITE, input: 'x' }, modelsOnly)).status).toBe(200);
      expect((await json('/v1/reranking', { query: 'q', input: ['a'] }, modelsOnly)).status).toBe(200);
      expect((await json('/v1/models', undefined, modelsOnly)).status).toBe(403);
    });

    it('records each request as activity of the organization and bills its tokens', async () => {
      const other = await t.newOrganization('models-other');
      const before = (await json('/v1/billing/summary')).body.usages;
      const e = await mxbai.embed({ model: USE_LITE, input: ['one text to bill', 'and another'] });
      const r = await mxbai.rerank({ query: 'bill', input: ['a bill', 'a duck'] });
      const events = await until('/v1/events?event_type=embedding&limit=100', (b) =>
        b.data.some((x: any) => x.input_count === 2 && x.token_usage.prompt_tokens === e.usage.prompt_tokens),
      );
      expect(events.data.find((x: any) => x.input_count === 2)).toMatchObject({
        type: 'embedding',
        model: USE_LITE,
        requested_model: USE_LITE,
        dimensions: 512,
        normalized: true,
        encoding_formats: ['float'],
        store_ids: [],
      });
      const reranks = await until('/v1/events?event_type=reranking&limit=100', (b) =>
        b.data.some((x: any) => x.document_count === 2 && x.token_usage.prompt_tokens === r.usage.prompt_tokens),
      );
      expect(reranks.data[0]).toMatchObject({
        type: 'reranking',
        model: HYBRID,
        method: 'hybrid',
        duration: expect.stringMatching(/^PT/),
      });
      const after = await until(
        '/v1/billing/summary',
        (s) =>
          Number(s.usages.embedding_tokens.current) >=
            Number(before.embedding_tokens.current) + e.usage.prompt_tokens &&
          Number(s.usages.rerank_tokens.current) >= Number(before.rerank_tokens.current) + r.usage.prompt_tokens,
      );
      expect(after.usages.embedding_tokens.unit).toBe('tokens');
      expect(after.cost.products.map((p: any) => p.product_name)).toEqual(
        expect.arrayContaining(['Embeddings', 'Reranking']),
      );
      // another organization sees none of it
      const theirs = await json('/v1/events?event_type=embedding', undefined, `Bearer ${other.apiKey}`);
      expect(theirs.body.data).toEqual([]);
      expect(orgId).not.toBe(other.organizationId);
    });

    it('describes the bodies in the OpenAPI document', async () => {
      const doc = (await json('/v1/schemas/mxjson')).body;
      expect(doc.paths['/v1/embeddings'].post.requestBody.content['application/json'].schema.$ref).toBe(
        '#/components/schemas/EmbeddingCreateParams',
      );
      expect(doc.paths['/v1/reranking'].post.requestBody.content['application/json'].schema.$ref).toBe(
        '#/components/schemas/RerankParams',
      );
      expect(doc.paths['/v1/models']).toBeDefined();
    });
  });
});
