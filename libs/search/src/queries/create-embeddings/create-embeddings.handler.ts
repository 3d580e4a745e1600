import { Inject, Logger } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator, Problems } from '@larder/kernel';
import { estimateTokens, truncateToTokens } from '@larder/ingestion';
import { SearchActivity } from '../../search-activity';
import { ServedModels } from '../../models/served-models';
import { EncodedEmbedding, encode, EncodingFormat, l2Normalize } from '../../models/encodings';
import { ModelFailedError } from '../../models/model-errors';
import { CreateEmbeddingsQuery } from './create-embeddings.query';

export interface EmbeddingsUsage {
  prompt_tokens: number;
  total_tokens: number;
  completion_tokens: number;
}

/**
 * Mixedbread's `EmbeddingCreateResponse`, which is also OpenAI's `CreateEmbeddingResponse` with three more
 * fields (`normalized`, `encoding_format`, `dimensions`) that OpenAI's clients ignore.
 */
export interface EmbeddingsResponse {
  object: 'list';
  model: string;
  data: Array<
    | { object: 'embedding'; index: number; embedding: EncodedEmbedding }
    | { object: 'embedding_dict'; index: number; embedding: Partial<Record<EncodingFormat, EncodedEmbedding>> }
  >;
  usage: EmbeddingsUsage;
  normalized: boolean;
  encoding_format: EncodingFormat | EncodingFormat[];
  dimensions: number;
}

/**
 * `POST /v1/embeddings`: the configured embedding model (or the one an alias names) embeds each
 * input as a document, with `prompt` prepended when given; texts beyond the model's input length are
 * cut per `truncation_strategy` (`end`, the default, keeps the beginning; `start` keeps the end;
 * `none` refuses them); `dimensions` keeps the first n values (Matryoshka truncation), which
 * `normalized` (default true) then brings back to unit length; each vector is then encoded in every
 * format asked. One `EmbeddingsCreated` activity event per request, metered as `embedding_tokens`.
 */
@QueryHandler(CreateEmbeddingsQuery)
export class CreateEmbeddingsHandler implements IQueryHandler<CreateEmbeddingsQuery, EmbeddingsResponse> {
  private readonly logger = new Logger('Embeddings');

  constructor(
    private readonly models: ServedModels,
    private readonly activity: SearchActivity,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  async execute({ principal: p, params }: CreateEmbeddingsQuery): Promise<EmbeddingsResponse> {
    const t0 = performance.now();
    const model = this.models.resolve('embedding', params.model);
    const embedder = this.models.embedder;
    const problems = new Problems();
    if (params.dimensions !== null && params.dimensions > embedder.dimensions) {
      problems.add(
        ['body', 'dimensions'],
        `${model.id} gives ${embedder.dimensions} dimensions: ask for 1 to ${embedder.dimensions} (fewer keep the first ones)`,
        'less_than_equal',
        params.dimensions,
      );
    }
    const texts = this.fitted(params.texts, params.prompt, params.truncation, problems, params.inputIsList);
    problems.throwIfAny();

    let vectors: Float32Array[];
    try {
      vectors = await embedder.embed(texts, 'document', { normalize: params.normalized });
      if (vectors.length !== texts.length) throw new Error(`${vectors.length} vectors for ${texts.length} inputs`);
    } catch (err) {
      this.logger.warn(`embedding with ${embedder.model} failed: ${(err as Error).message}`);
      throw new ModelFailedError(
        'embedding_failed',
        `The embedding model ${model.id} did not answer; try again later.`,
      );
    }
    const dimensions = params.dimensions ?? embedder.dimensions;
    const shaped = vectors.map((v) => {
      const cut = dimensions < v.length ? v.slice(0, dimensions) : v;
      return params.normalized ? l2Normalize(cut) : cut;
    });
    const many = Array.isArray(params.encodingFormat) && params.encodingFormat.length > 1;
    const data: EmbeddingsResponse['data'] = shaped.map((v, index) =>
      many
        ? {
            object: 'embedding_dict' as const,
            index,
            embedding: Object.fromEntries(params.formats.map((f) => [f, encode(v, f, params.normalized)])),
          }
        : { object: 'embedding' as const, index, embedding: encode(v, params.formats[0], params.normalized) },
    );
    const tokens = texts.reduce((n, t) => n + estimateTokens(t), 0);
    const usage = { prompt_tokens: tokens, total_tokens: tokens, completion_tokens: 0 };
    this.activity.record(p.organizationId, {
      type: 'EmbeddingsCreated',
      data: {
        requestId: this.ids.uuid(),
        organizationId: p.organizationId,
        apiKeyId: p.apiKeyId,
        model: model.id,
        requestedModel: params.model,
        inputs: texts.length,
        dimensions,
        encodingFormats: params.formats,
        normalized: params.normalized,
        tokenUsage: usage,
        durationMs: performance.now() - t0,
        at: this.clock.now().toISOString(),
      },
    });
    return {
      object: 'list',
      model: model.id,
      data,
      usage,
      normalized: params.normalized,
      encoding_format: params.encodingFormat,
      dimensions,
    };
  }

  /**
   * Each text as the model will read it: the prompt first, then the text, cut to the model's input
   * length (in Larder's token estimate) as `truncation` says. Without a known length (an endpoint
   * model), the texts go as they are and the endpoint applies its own limit.
   */
  private fitted(
    texts: string[],
    prompt: string | null,
    truncation: 'start' | 'end' | 'none',
    problems: Problems,
    list: boolean,
  ): string[] {
    const max = this.models.embedder.maxInputTokens;
    const promptTokens = prompt ? estimateTokens(prompt) : 0;
    if (max !== undefined && promptTokens >= max) {
      problems.add(
        ['body', 'prompt'],
        `The prompt has about ${promptTokens} tokens; the model reads at most ${max}, prompt and text together`,
        'string_too_long',
        prompt!.length,
      );
      return texts;
    }
    return texts.map((text, i) => {
      const budget = max === undefined ? Infinity : max - promptTokens;
      const n = estimateTokens(text);
      if (n > budget) {
        if (truncation === 'none') {
          problems.add(
            list ? ['body', 'input', i] : ['body', 'input'],
            `This input has about ${n} tokens and the model reads at most ${budget} after the prompt (truncation_strategy: none)`,
            'string_too_long',
            text.length,
          );
        } else {
          text = truncateToTokens(text, budget, truncation === 'start' ? 'tail' : 'head');
        }
      }
      return (prompt ?? '') + text;
    });
  }
}
