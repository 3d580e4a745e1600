import { Inject, Logger } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@larder/kernel';
import { estimateTokens } from '@larder/ingestion';
import { SearchActivity } from '../../search-activity';
import { SEARCH_CONFIG, SearchConfig } from '../../search.config';
import { ServedModels } from '../../models/served-models';
import { documentText, hybridScores } from '../../models/hybrid-ranking';
import { ModelFailedError } from '../../models/model-errors';
import { RerankQuery } from './rerank.query';

/** Mixedbread's `RerankResponse`; `usage.completion_tokens` is always there (the Vercel AI provider requires it). */
export interface RerankResponse {
  object: 'list';
  model: string;
  data: Array<{ object: 'rank_result'; index: number; score: number; input?: unknown }>;
  usage: { prompt_tokens: number; total_tokens: number; completion_tokens: number };
  top_k: number;
  return_input: boolean;
}

/**
 * `POST /v1/reranking`: scores every document against the query with the model asked for (the
 * configured cross-encoder by default, or the hybrid lexical + embedding ranking where none is
 * configured or it is named), sorts them by score (ties keep input order) and returns the `top_k`
 * best. One `DocumentsReranked` activity event per request, metered as `rerank_tokens` (the query's
 * tokens once per document plus the documents').
 */
@QueryHandler(RerankQuery)
export class RerankHandler implements IQueryHandler<RerankQuery, RerankResponse> {
  private readonly logger = new Logger('Reranking');

  constructor(
    private readonly models: ServedModels,
    private readonly activity: SearchActivity,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async execute({ principal: p, params }: RerankQuery): Promise<RerankResponse> {
    const t0 = performance.now();
    const model = this.models.resolve('reranking', params.model);
    const texts = params.inputs.map((d) => documentText(d, params.rankFields));
    let scores: number[];
    try {
      if (model.method === 'cross_encoder') {
        scores = await this.models.reranker!.score(params.query, texts);
      } else {
        scores = await hybridScores(this.models.embedder, params.query, texts, {
          method: 'relative',
          lexicalWeight: this.config.rerankLexicalWeight ?? this.config.lexicalWeight,
        });
      }
      if (scores.length !== texts.length || scores.some((s) => !Number.isFinite(s)))
        throw new Error(`${scores.length} scores for ${texts.length} documents`);
    } catch (err) {
      this.logger.warn(`reranking with ${model.id} failed: ${(err as Error).message}`);
      throw new ModelFailedError('rerank_failed', `The reranking model ${model.id} did not answer; try again later.`);
    }
    const ranked = scores
      .map((score, index) => ({ index, score }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, params.topK ?? texts.length);
    const queryTokens = estimateTokens(params.query);
    const tokens = texts.reduce((n, t) => n + queryTokens + estimateTokens(t), 0);
    const usage = { prompt_tokens: tokens, total_tokens: tokens, completion_tokens: 0 };
    this.activity.record(p.organizationId, {
      type: 'DocumentsReranked',
      data: {
        requestId: this.ids.uuid(),
        organizationId: p.organizationId,
        apiKeyId: p.apiKeyId,
        model: model.id,
        requestedModel: params.model,
        method: model.method!,
        documents: texts.length,
        topK: params.topK,
        returned: ranked.length,
        tokenUsage: usage,
        durationMs: performance.now() - t0,
        at: this.clock.now().toISOString(),
      },
    });
    return {
      object: 'list',
      model: model.id,
      data: ranked.map((r) => ({
        object: 'rank_result' as const,
        index: r.index,
        score: r.score,
        ...(params.returnInput ? { input: params.inputs[r.index] } : {}),
      })),
      usage,
      top_k: params.topK ?? texts.length,
      return_input: params.returnInput,
    };
  }
}
