import type { Clock } from '@larder/kernel';
import type { Embedder, Reranker } from '@larder/ai';
import { HYBRID_RERANKER, ModelNotFoundError, ServedModels, WrongModelKindError } from './served-models';

const embedder = { model: 'universal-sentence-encoder-lite', dimensions: 512 } as Embedder;
const crossEncoder = { model: 'onnx:mxbai-rerank-xsmall-v1' } as Reranker;
const clock: Clock = { now: () => new Date('2026-05-01T00:00:00Z') };

describe('ServedModels', () => {
  it('without a cross-encoder serves the embedder and the hybrid ranking, which is the reranking default', () => {
    const m = new ServedModels(embedder, null, { aliases: {} }, clock);
    expect(m.models.map((x) => [x.id, x.kind, x.isDefault])).toEqual([
      ['universal-sentence-encoder-lite', 'embedding', true],
      [HYBRID_RERANKER, 'reranking', true],
    ]);
    expect(m.resolve('reranking', 'default').id).toBe(HYBRID_RERANKER);
    expect(m.resolve('reranking', null).id).toBe(HYBRID_RERANKER);
    expect(m.resolve('embedding', 'default').id).toBe(embedder.model);
    expect(m.created).toBe(Date.parse('2026-05-01T00:00:00Z') / 1000);
  });

  it('with a cross-encoder makes it the default and keeps the hybrid ranking by name', () => {
    const m = new ServedModels(embedder, crossEncoder, { aliases: {} }, clock);
    expect(m.resolve('reranking', 'default').id).toBe(crossEncoder.model);
    expect(m.resolve('reranking', HYBRID_RERANKER).method).toBe('hybrid');
    expect(m.resolve('reranking', crossEncoder.model).method).toBe('cross_encoder');
  });

  it('answers aliases with the model they name, and nothing else', () => {
    const m = new ServedModels(
      embedder,
      null,
      {
        aliases: {
          'mixedbread-ai/mxbai-embed-large-v1': embedder.model,
          'mixedbread-ai/mxbai-rerank-large-v2': HYBRID_RERANKER,
        },
      },
      clock,
    );
    expect(m.resolve('embedding', 'mixedbread-ai/mxbai-embed-large-v1').id).toBe(embedder.model);
    expect(m.models[0].aliases).toEqual(['mixedbread-ai/mxbai-embed-large-v1']);
    expect(() => m.resolve('embedding', 'text-embedding-3-small')).toThrow(ModelNotFoundError);
    expect(() => m.resolve('embedding', 'text-embedding-3-small')).toThrow(
      /universal-sentence-encoder-lite \(default\).*mixedbread-ai\/mxbai-embed-large-v1 → universal-sentence-encoder-lite.*LARDER_MODEL_ALIASES/,
    );
    expect(() => m.resolve('reranking', embedder.model)).toThrow(WrongModelKindError);
    expect(() => m.resolve('embedding', 'mixedbread-ai/mxbai-rerank-large-v2')).toThrow(
      /larder-hybrid-rerank \(which "mixedbread-ai\/mxbai-rerank-large-v2" maps to\) is a reranking model/,
    );
  });

  it('refuses aliases that name nothing served, replace a model or take "default"', () => {
    expect(
      () => new ServedModels(embedder, null, { aliases: { x: 'mixedbread-ai/mxbai-embed-large-v1' } }, clock),
    ).toThrow(/does not serve/);
    expect(() => new ServedModels(embedder, null, { aliases: { [HYBRID_RERANKER]: embedder.model } }, clock)).toThrow(
      /cannot replace/,
    );
    expect(() => new ServedModels(embedder, null, { aliases: { default: embedder.model } }, clock)).toThrow(/reserved/);
  });
});
