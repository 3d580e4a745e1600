import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLOCK, Clock, DomainError } from '@larder/kernel';
import { EMBEDDER, Embedder } from '@larder/ai';
import { RERANKER, Reranker } from '../reranker.port';
import { MODELS_CONFIG, ModelsConfig } from './models.config';

export type ModelKind = 'embedding' | 'reranking';

/**
 * The reranking Larder does with what it has when no cross-encoder is configured (and on request
 * when one is): BM25 over the documents sent plus cosine similarity by the embedding model, fused
 * as a store search fuses them (docs/api.md, Reranking).
 */
export const HYBRID_RERANKER = 'larder-hybrid-rerank';

export interface ServedModel {
  id: string;
  kind: ModelKind;
  /** Whether `default` (or no model) means this one for its kind. */
  isDefault: boolean;
  /** Other names that reach it (LARDER_MODEL_ALIASES). */
  aliases: string[];
  /** Embedding models: the vector size. */
  dimensions?: number;
  /** Reranking models: a cross-encoder behind the Reranker port, or the hybrid ranking. */
  method?: 'cross_encoder' | 'hybrid';
}

/** OpenAI's model object (`GET /v1/models`), with what Larder knows of the model beside it. */
export function toModelObject(m: ServedModel, created: number) {
  return {
    id: m.id,
    object: 'model' as const,
    created,
    owned_by: 'larder',
    type: m.kind,
    default: m.isDefault,
    aliases: m.aliases,
    ...(m.dimensions !== undefined ? { dimensions: m.dimensions } : {}),
    ...(m.method ? { method: m.method } : {}),
  };
}
export type ModelObject = ReturnType<typeof toModelObject>;

/** A model name that this server does not serve (nor maps to one it serves). */
export class ModelNotFoundError extends DomainError {
  readonly status = 404;
  readonly type = 'model_not_found';
}

/** A served model asked to do the other kind's work (an embedding model named on `/v1/reranking`). */
export class WrongModelKindError extends DomainError {
  readonly status = 400;
  readonly type = 'model_not_supported';
}

/**
 * The models this server really serves: the configured embedding model (LARDER_EMBEDDER), the
 * configured cross-encoder (LARDER_RERANKER) if any, and the hybrid ranking, each under its real
 * name, plus the operator's aliases. Names resolve exactly; `default` is the kind's default (the
 * cross-encoder when configured, else the hybrid ranking). Nothing else is answered to: an unknown
 * name is a 404 that lists what is served.
 */
@Injectable()
export class ServedModels {
  readonly models: ServedModel[];
  /** Unix seconds of when this process started serving them (the model object's `created`). */
  readonly created: number;
  private readonly aliases: Map<string, string>;

  constructor(
    @Inject(EMBEDDER) readonly embedder: Embedder,
    @Optional() @Inject(RERANKER) readonly reranker: Reranker | null,
    @Optional() @Inject(MODELS_CONFIG) config: ModelsConfig | null,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.created = Math.floor(clock.now().getTime() / 1000);
    const aliases = Object.entries(config?.aliases ?? {});
    const of = (id: string) => aliases.filter(([, target]) => target === id).map(([alias]) => alias);
    this.models = [
      {
        id: embedder.model,
        kind: 'embedding',
        isDefault: true,
        aliases: of(embedder.model),
        dimensions: embedder.dimensions,
      },
      ...(reranker && reranker.model !== HYBRID_RERANKER
        ? [
            {
              id: reranker.model,
              kind: 'reranking' as const,
              isDefault: true,
              aliases: of(reranker.model),
              method: 'cross_encoder' as const,
            },
          ]
        : []),
      { id: HYBRID_RERANKER, kind: 'reranking', isDefault: !reranker, aliases: of(HYBRID_RERANKER), method: 'hybrid' },
    ];
    for (const [alias, target] of aliases) {
      if (alias === 'default')
        throw new Error('LARDER_MODEL_ALIASES: "default" is reserved (it names each kind\'s default model)');
      if (this.models.some((m) => m.id === alias))
        throw new Error(`LARDER_MODEL_ALIASES: ${alias} is the name of a served model; an alias cannot replace it`);
      if (!this.models.some((m) => m.id === target))
        throw new Error(
          `LARDER_MODEL_ALIASES maps ${alias} to ${target}, which this server does not serve (served: ${this.models.map((m) => m.id).join(', ')})`,
        );
    }
    this.aliases = new Map(aliases);
  }

  /** A served model by its name, an alias or `default` (GET /v1/models/{id} takes names and aliases). */
  find(name: string): ServedModel | null {
    const id = this.aliases.get(name) ?? name;
    return this.models.find((m) => m.id === id) ?? null;
  }

  /** The model that answers a request of `kind` naming `name` (absent or `default`: the kind's default). */
  resolve(kind: ModelKind, name: string | null | undefined): ServedModel {
    if (name === null || name === undefined || name === 'default')
      return this.models.find((m) => m.kind === kind && m.isDefault)!;
    const found = this.find(name);
    if (!found)
      throw new ModelNotFoundError(`The model ${JSON.stringify(name)} is not served here. ${this.describe(kind)}`);
    if (found.kind !== kind) {
      throw new WrongModelKindError(
        `${found.id}${found.id === name ? '' : ` (which ${JSON.stringify(name)} maps to)`} is ${found.kind === 'embedding' ? 'an embedding' : 'a reranking'} model. ${this.describe(kind)}`,
      );
    }
    return found;
  }

  /** What a client may ask for on a route of `kind`, for error messages. */
  describe(kind: ModelKind): string {
    const served = this.models.filter((m) => m.kind === kind);
    const names = served.map((m) => `${m.id}${m.isDefault ? ' (default)' : ''}`).join(', ');
    const aliases = [...this.aliases].filter(([, t]) => served.some((m) => m.id === t));
    return (
      `${kind === 'embedding' ? 'Embedding' : 'Reranking'} models served: ${names}; "default" names the default.` +
      (aliases.length ? ` Aliases: ${aliases.map(([a, t]) => `${a} → ${t}`).join(', ')}.` : '') +
      ' The operator can map other names with LARDER_MODEL_ALIASES.'
    );
  }
}
