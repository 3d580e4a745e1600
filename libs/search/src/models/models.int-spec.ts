import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Clock, Principal, RandomIdGenerator, ValidationFailedError } from '@larder/kernel';
import { sigmoid } from '@larder/ai';
import { OnnxEmbedder } from '@larder/ai/local/onnx.embedder';
import { OnnxReranker } from '@larder/ai/local/onnx.reranker';
import { writeTinyCrossEncoder, writeTinyOnnxModel } from '@larder/ai/testing/tiny-onnx-model';
import { InMemoryEventStore } from '@larder/event-store/in-memory/in-memory.event-store';
import { SearchActivity } from '../search-activity';
import { searchActivityStream } from '../streams';
import type { SearchConfig } from '../search.config';
import { HYBRID_RERANKER, ServedModels } from './served-models';
import { RerankHandler } from '../queries/rerank/rerank.handler';
import { RerankQuery } from '../queries/rerank/rerank.query';
import { RerankRequestDto } from '../queries/rerank/rerank.request.dto';
import { CreateEmbeddingsHandler } from '../queries/create-embeddings/create-embeddings.handler';
import { CreateEmbeddingsQuery } from '../queries/create-embeddings/create-embeddings.query';
import { CreateEmbeddingsRequestDto } from '../queries/create-embeddings/create-embeddings.request.dto';

const WORDS = ['pickled', 'cucumbers', 'ferment', 'in', 'brine', 'jam', 'needs', 'sugar', 'cabbage', 'salt'];

/**
 * The model routes' handlers over a configured local cross-encoder and ONNX embedding model (tiny
 * generated exports run by the real onnxruntime-node and tokenizer): the cross-encoder answers
 * `default`, the hybrid ranking answers its name, `normalized: false` gets the model's own vectors.
 */
describe('embeddings and reranking with configured ONNX models', () => {
  const root = mkdtempSync(join(tmpdir(), 'larder-models-'));
  const clock: Clock = { now: () => new Date('2026-05-01T12:00:00Z') };
  const ids = new RandomIdGenerator();
  const events = new InMemoryEventStore();
  const p: Principal = {
    organizationId: '7b0e3f4e-8d55-4a51-9d47-0d6cbb0e0001',
    apiKeyId: '7b0e3f4e-8d55-4a51-9d47-0d6cbb0e0002',
    admin: false,
    operator: false,
    scope: null,
  };
  let embedder: OnnxEmbedder;
  let reranker: OnnxReranker;
  let activity: SearchActivity;
  let rerank: RerankHandler;
  let embed: CreateEmbeddingsHandler;
  const body = <T extends object>(dto: new () => T, b: Record<string, unknown>) => Object.assign(new dto(), b);

  beforeAll(() => {
    writeTinyOnnxModel(join(root, 'tiny-bert'), WORDS, 16);
    writeTinyCrossEncoder(join(root, 'tiny-cross-encoder'), WORDS);
    embedder = new OnnxEmbedder({ modelDir: join(root, 'tiny-bert') });
    reranker = new OnnxReranker({ modelDir: join(root, 'tiny-cross-encoder') });
    const models = new ServedModels(
      embedder,
      reranker,
      { aliases: { 'mixedbread-ai/mxbai-rerank-large-v2': 'onnx:tiny-cross-encoder' } },
      clock,
    );
    activity = new SearchActivity(events, clock, ids);
    rerank = new RerankHandler(
      models,
      activity,
      { fusion: 'relative', lexicalWeight: 0.5, candidateFactor: 5, maxSortScan: 1000 } satisfies SearchConfig,
      clock,
      ids,
    );
    embed = new CreateEmbeddingsHandler(models, activity, clock, ids);
  });
  afterAll(async () => {
    await embedder.close();
    await reranker.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('reranks with the cross-encoder by default (and under an alias), sorted, objects by their rank_fields', async () => {
    const input = [
      { text: 'Jam needs sugar' },
      { text: 'Pickled cucumbers ferment in brine' },
      { text: 'cabbage in salt' },
    ];
    const out = await rerank.execute(
      new RerankQuery(
        p,
        body(RerankRequestDto, { query: 'Cucumbers in brine', input, rank_fields: ['text'] }).params(),
      ),
    );
    expect(out.model).toBe('onnx:tiny-cross-encoder');
    // the tiny model's logit is 2 · (shared words) − 1; `text: …` adds a word the vocabulary lacks
    expect(out.data.map((d) => d.index)).toEqual([1, 2, 0]);
    expect(out.data[0].score).toBeCloseTo(sigmoid(2 * 3 - 1), 5);
    expect(out.data[2].score).toBeCloseTo(sigmoid(-1), 5);
    const aliased = await rerank.execute(
      new RerankQuery(
        p,
        body(RerankRequestDto, {
          model: 'mixedbread-ai/mxbai-rerank-large-v2',
          query: 'jam',
          input: ['jam needs sugar', 'brine'],
          top_k: 1,
        }).params(),
      ),
    );
    expect(aliased).toMatchObject({ model: 'onnx:tiny-cross-encoder', top_k: 1, data: [{ index: 0 }] });
  });

  it('ranks with the hybrid lexical + embedding ranking when it is named', async () => {
    const out = await rerank.execute(
      new RerankQuery(
        p,
        body(RerankRequestDto, {
          model: HYBRID_RERANKER,
          query: 'pickled cucumbers',
          input: ['jam needs sugar', 'pickled cucumbers in brine'],
        }).params(),
      ),
    );
    expect(out.model).toBe(HYBRID_RERANKER);
    expect(out.data[0].index).toBe(1);
    expect(out.data[0].score).toBeGreaterThan(out.data[1].score);
  });

  it('gives the model\'s own vectors with normalized: false and unit vectors otherwise; truncation "none" knows the model\'s length', async () => {
    const raw = await embed.execute(
      new CreateEmbeddingsQuery(
        p,
        body(CreateEmbeddingsRequestDto, { model: 'default', input: 'pickled cucumbers', normalized: false }).params(),
      ),
    );
    const unit = await embed.execute(
      new CreateEmbeddingsQuery(
        p,
        body(CreateEmbeddingsRequestDto, { model: 'onnx:tiny-bert', input: 'pickled cucumbers' }).params(),
      ),
    );
    const r = raw.data[0].embedding as number[];
    const u = unit.data[0].embedding as number[];
    expect(raw.normalized).toBe(false);
    expect(Math.hypot(...r)).not.toBeCloseTo(1, 2);
    expect(Math.hypot(...u)).toBeCloseTo(1, 5);
    r.forEach((x, i) => expect(x / Math.hypot(...r)).toBeCloseTo(u[i], 5));
    const long = Array.from({ length: 600 }, () => 'brine').join(' ');
    const refused = await embed
      .execute(
        new CreateEmbeddingsQuery(
          p,
          body(CreateEmbeddingsRequestDto, { model: 'default', input: long, truncation_strategy: 'none' }).params(),
        ),
      )
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationFailedError);
    expect(refused.detail[0].msg).toMatch(/at most 510/);
  });

  it("records one activity event per request in the organization's activity stream", async () => {
    await activity.flush();
    const recorded = await events.readStream(searchActivityStream(p.organizationId));
    const types = recorded.map((e) => e.type);
    expect(types.filter((t) => t === 'DocumentsReranked')).toHaveLength(3);
    expect(types.filter((t) => t === 'EmbeddingsCreated')).toHaveLength(2);
    const first = recorded.find((e) => e.type === 'DocumentsReranked')!;
    expect(first.data).toMatchObject({
      model: 'onnx:tiny-cross-encoder',
      requestedModel: null,
      method: 'cross_encoder',
      documents: 3,
      returned: 3,
      apiKeyId: p.apiKeyId,
    });
    expect(first.metadata).toMatchObject({ orgId: p.organizationId });
    expect(JSON.stringify(recorded.map((e) => e.data))).not.toMatch(/cucumbers|brine|sugar/);
  });
});
