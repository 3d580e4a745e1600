import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { addTiming, BadRequestError } from '@larder/kernel';
import type { ScoredChunk } from '@larder/chunk-index';
import { EMBEDDER, Embedder } from '@larder/ai';
import type { StoreRef } from '@larder/projections/stores/stores.reader';
import { RankedChunk, Retrieval, withFirstStage } from '../retrieval';
import { fuse } from '../ranking';
import { SEARCH_CONFIG, SearchConfig } from '../search.config';
import { DEFAULT_RERANK_MODEL, SearchOptions } from '../search-options.request.dto';
import type { CommonParams } from '../store-query.request.dto';
import { jointRanking, webChunk } from './joint-ranking';
import { WEB_SEARCH, WEB_STORE, WebSearch, WebSearchOutcome, WebSearchUnavailableError } from './web-search.port';

/** The response header that says what became of the web part of a search. */
export const WEB_SEARCH_HEADER = 'Larder-Web-Search';

export const NO_PROVIDER_MESSAGE =
  'The web store (mixedbread/web) needs a web search provider, and none is configured on this server: set LARDER_SEARXNG_URL (a SearXNG instance with the json format enabled) ' +
  'and/or LARDER_BRAVE_API_KEY (Brave Search API), or list them in LARDER_WEB_SEARCH_PROVIDERS';

/** The web part of one request: what the providers gave, as chunks (with their vectors), and how it went. */
export interface WebPart {
  /** null: no provider is configured (the web part was skipped). */
  outcome: WebSearchOutcome | null;
  chunks: ScoredChunk[];
  /** The chunks' embeddings (search embedder, `document`), or null when embedding them failed. */
  vectors: Float32Array[] | null;
}

/** What an activity event records of the web part (never a key or an upstream message). */
export interface WebActivity {
  providers: string[];
  answered: string[];
  failed: Array<{ provider: string; kind: string }>;
  results: number;
  skipped: 'no_provider' | 'all_failed' | null;
}

/**
 * The web store (`mixedbread/web`) inside a search: the providers are asked once per
 * request (beside the store lookups), their results become scored chunks and are ranked together
 * with the stores' candidates (`jointRanking`), and the web part degrades instead of failing the
 * request: without a provider, or with every provider failing, the other stores still answer and the
 * `Larder-Web-Search` header says the web part was skipped. Only a search that names the web store
 * alone fails: 400 without a provider, 502 when every provider failed.
 */
@Injectable()
export class WebRetrieval {
  private readonly logger = new Logger('WebSearch');

  constructor(
    private readonly retrieval: Retrieval,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(SEARCH_CONFIG) private readonly config: SearchConfig,
    @Optional() @Inject(WEB_SEARCH) private readonly web: WebSearch | null,
  ) {}

  /** Whether the identifiers name the web store, and the other (real) store identifiers. */
  static split(identifiers: string[]): { web: boolean; stores: string[] } {
    return { web: identifiers.includes(WEB_STORE), stores: identifiers.filter((x) => x !== WEB_STORE) };
  }

  /**
   * Searches the web for `query` with every configured provider and embeds the results. `alone`: the
   * request names no other store, so a web part that cannot answer fails it (400 without a provider,
   * 502 when every provider failed, each with the header); otherwise it is skipped.
   */
  async search(query: string, alone: boolean, signal?: AbortSignal): Promise<WebPart> {
    if (!this.web) {
      if (alone) throw withHeader(new BadRequestError(NO_PROVIDER_MESSAGE), 'skipped; no provider configured');
      return { outcome: null, chunks: [], vectors: null };
    }
    const t = performance.now();
    const outcome = await this.web.search(query, this.config.webMaxResults ?? 20, signal);
    addTiming('web', performance.now() - t);
    if (!outcome.answered.length && alone) {
      const why = outcome.failed.map((f) => `${f.provider}: ${f.message}`).join('; ');
      throw withHeader(
        new WebSearchUnavailableError(`The web search failed: no provider answered (${why})`),
        this.header({ outcome, chunks: [], vectors: null }),
      );
    }
    const chunks = outcome.results.map(webChunk);
    let vectors: Float32Array[] | null = null;
    if (chunks.length) {
      const te = performance.now();
      vectors = await this.embedder
        .embed(
          chunks.map((c) => c.text),
          'document',
        )
        .catch((err: Error) => {
          this.logger.warn(`embedding the web results failed, ranking them lexically only: ${err.message}`);
          return null;
        });
      addTiming('web_embed', performance.now() - te);
    }
    return { outcome, chunks, vectors };
  }

  /**
   * The `Larder-Web-Search` header: `ok; answered=searxng,brave`, `partial; answered=searxng;
   * failed=brave (timeout)`, `skipped; failed=searxng (timeout)` or `skipped; no provider configured`.
   */
  header(part: WebPart): string {
    if (!part.outcome) return 'skipped; no provider configured';
    const { answered, failed } = part.outcome;
    const f = failed.map((x) => `${x.provider} (${x.kind})`).join(', ');
    if (!answered.length) return `skipped; failed=${f}`;
    return failed.length
      ? `partial; answered=${answered.join(',')}; failed=${f}`
      : `ok; answered=${answered.join(',')}`;
  }

  activity(part: WebPart): WebActivity {
    const o = part.outcome;
    return {
      providers: this.web?.providers ?? [],
      answered: o?.answered ?? [],
      failed: o?.failed.map(({ provider, kind }) => ({ provider, kind })) ?? [],
      results: part.chunks.length,
      skipped: !o ? 'no_provider' : o.answered.length ? null : 'all_failed',
    };
  }

  /**
   * The stores' candidates and the web results in one ranking (before rerank, rules, threshold and
   * top_k). Without web results it is the stores' own hybrid ranking.
   */
  async retrieve(
    stores: StoreRef[],
    query: string,
    params: Pick<CommonParams, 'filter' | 'fileIds'>,
    candidates: number,
    part: WebPart,
    vectorPromise?: Promise<Float32Array | null>,
  ): Promise<RankedChunk[]> {
    const { lexical, dense, vector } = await this.retrieval.candidateLists(
      stores,
      query,
      params,
      candidates,
      vectorPromise,
    );
    const options = { method: this.retrieval.config.fusion, lexicalWeight: this.retrieval.config.lexicalWeight };
    if (!part.chunks.length) return withFirstStage(fuse(lexical, dense, options), lexical, dense);
    return jointRanking(query, vector, { lexical, dense }, part, options);
  }

  /** The web store is always reranked: `rerank` on, whatever the request said (with a reranker configured it re-scores stores and web alike). */
  rerankOptions(options: SearchOptions): SearchOptions {
    return options.rerank
      ? options
      : { ...options, rerank: { model: DEFAULT_RERANK_MODEL, withMetadata: false, topK: null } };
  }
}

function withHeader<E extends BadRequestError | WebSearchUnavailableError>(err: E, value: string): E {
  err.headers = { ...err.headers, [WEB_SEARCH_HEADER]: value };
  return err;
}
