import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { toScoredChunkResponse } from '@larder/chunk-index';
import { addTiming, Principal, ValidationFailedError } from '@larder/kernel';
import { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { RankedChunk, RankedHit, Retrieval } from '../../retrieval';
import { fileKey, orderResults, pageOf, RANKING_WINDOW, readsChunks, SearchPagination } from '../../result-page';
import { StoreAccess } from '../../store-access';
import { candidateWindow } from '../../search.config';
import { SearchActivity } from '../../search-activity';
import { SearchAdmission } from '../../search-admission';
import { applyRewrites, SearchRulePins } from '../../rules/search-rule-effects';
import { AgenticSearch } from '../../agentic/agentic-search';
import { runAgentic } from '../../agentic/agentic-request';
import { publicToolCall } from '../../events';
import { WebRetrieval, WEB_SEARCH_HEADER } from '../../web/web-retrieval';
import { QueryRewriter } from '../../query-rewriter';
import { SearchStoresQuery } from './search-stores.query';
import type { SearchStoresParams } from './search-stores.request.dto';

export type SearchStoresResponse = {
  object: 'list';
  data: ReturnType<typeof toScoredChunkResponse>[];
  pagination?: SearchPagination;
  trace?: unknown[];
};

/**
 * Search over stores (`POST /v1/stores/search`): with `rewrite_query` the configured model rewrites
 * the query first; rules rewrite it and pin results; then either hybrid retrieval with rerank, or an
 * agentic search (`search_options.agentic`); then threshold and top_k. A streamed search sends the
 * agentic run's trace events as they happen. An embedding query is searched by the dense index alone;
 * a paged search (`offset`, `sort_by`) ranks to `RANKING_WINDOW`, orders that window and answers one
 * page of it with `pagination`.
 */
@QueryHandler(SearchStoresQuery)
export class SearchStoresHandler implements IQueryHandler<SearchStoresQuery, SearchStoresResponse> {
  constructor(
    private readonly access: StoreAccess,
    private readonly retrieval: Retrieval,
    private readonly agentic: AgenticSearch,
    private readonly pins: SearchRulePins,
    private readonly activity: SearchActivity,
    private readonly webStore: WebRetrieval,
    private readonly rewriter: QueryRewriter,
    private readonly storeFiles: StoreFilesReader,
    private readonly admission: SearchAdmission,
  ) {}

  /** In its turn (search-admission.ts): a full queue is a 503. */
  execute(query: SearchStoresQuery): Promise<SearchStoresResponse> {
    return this.admission.run(async () => {
      // the activity of earlier searches is appended once the searches pause (search-activity.ts)
      const ended = this.activity.searching();
      try {
        return await this.search(query);
      } finally {
        ended();
      }
    }, query.signal);
  }

  private async search({
    principal: p,
    params: asked,
    live,
    signal,
    setHeader,
  }: SearchStoresQuery): Promise<SearchStoresResponse> {
    const t0 = performance.now();
    // `rewrite_query`: the configured model rewrites the query first (an agentic search plans its own queries)
    const params =
      asked.options.rewriteQuery && !asked.rewrite && !asked.options.agentic && !asked.vector
        ? { ...asked, ...(await this.rewriter.rewrite(asked.query)) }
        : asked;
    const { query, options } = params;
    // The query's embedding runs beside the lookup of stores and rules (one round trip); a rewrite
    // (rare) embeds the rewritten query instead. An embedding query is its own vector.
    const te = performance.now();
    const prefetched = params.vector
      ? Promise.resolve(this.queryVector(params.vector))
      : this.retrieval.embedQuery(query).then((v) => (addTiming('embed', performance.now() - te), v));
    // The web store (mixedbread/web): its providers are asked beside the store lookups.
    const split = WebRetrieval.split(params.storeIdentifiers);
    const pendingWeb = split.web ? this.webStore.search(query, !split.stores.length, signal) : null;
    pendingWeb?.catch(() => undefined);
    const tr = performance.now();
    const { stores, rules } = await this.access.resolveForSearch(
      p,
      params.storeIdentifiers,
      options.applySearchRules && !params.vector ? query : null,
    );
    addTiming('stores_and_rules', performance.now() - tr);
    const web = pendingWeb ? await pendingWeb : null;
    if (web) setHeader?.(WEB_SEARCH_HEADER, this.webStore.header(web));
    live?.start();

    // Search rules: query rewrites first, then result pins.
    const { effective, rewritten, pins } = applyRewrites(query, rules);
    if (options.agentic) {
      const run = await runAgentic(this.agentic, this.webStore, options.agentic, {
        stores,
        query,
        effective,
        prefetched,
        params,
        live,
        signal,
        web,
      });
      let results = await this.pins.pin(run.results, pins, stores, params);
      const { page, pagination } = await this.paged(
        p,
        params,
        results.filter((c) => c.score >= options.scoreThreshold),
      );
      results = page;
      addTiming('search', performance.now() - t0);
      const common = this.activity.common(p, stores, params, results, t0);
      this.activity.record(p.organizationId, {
        type: 'StoreAgenticSearchPerformed',
        data: {
          ...common,
          query,
          instructions: options.agentic.instructions,
          model: run.model,
          rankingStrategy: run.rankingStrategy,
          roundsExecuted: run.roundsExecuted,
          tokenUsage: {
            prompt_tokens: run.usage.promptTokens,
            completion_tokens: run.usage.completionTokens,
            total_tokens: run.usage.totalTokens,
          },
          toolCalls: run.toolCalls.slice(0, 100),
          startedAt: run.startedAt,
          ...(web ? { web: this.webStore.activity(web) } : {}),
        },
      });
      // a client that hung up is recorded (and billed) for what the run did, then the request ends
      if (signal?.aborted) throw signal.reason;
      const data = results.map((c) => toScoredChunkResponse(c, options.returnMetadata));
      return {
        object: 'list',
        data,
        ...(pagination ? { pagination } : {}),
        ...(options.agentic.verbose ? { trace: run.toolCalls.map(publicToolCall) } : {}),
      };
    }

    const candidates =
      params.offset === undefined
        ? candidateWindow(params.topK, this.retrieval.config.candidateFactor)
        : RANKING_WINDOW;
    const vector = effective === query ? prefetched : undefined;
    let results: RankedChunk[];
    let reranked: { reranked: boolean };
    let pagination: SearchPagination | undefined;
    if (!web && !pins.length && !this.retrieval.reranks(options)) {
      // The ranking is the fusion's: only the chunks of the answer's hits are read, not those of all the candidates.
      const hits = (await this.retrieval.retrieveHits(stores, effective, params, candidates, vector)).filter(
        (c) => c.score >= options.scoreThreshold,
      );
      // without a reranker, `rerank.top_k` still bounds the answer
      const topK = Math.min(params.topK, options.rerank?.topK ?? params.topK);
      ({ results, pagination } = await this.hydratedPage(p, { ...params, topK }, hits));
      reranked = { reranked: false };
    } else {
      results = web
        ? await this.webStore.retrieve(stores, effective, params, candidates, web, vector)
        : await this.retrieval.retrieve(stores, effective, params, candidates, vector);
      const rerank = web ? this.webStore.rerankOptions(options) : options;
      const out = await this.retrieval.rerank(effective, results, rerank);
      reranked = out;
      results = out.results;
      results = await this.pins.pin(results, pins, stores, params);
      ({ page: results, pagination } = await this.paged(
        p,
        params,
        results.filter((c) => c.score >= options.scoreThreshold),
      ));
    }

    const data = results.map((c) => toScoredChunkResponse(c, options.returnMetadata));
    addTiming('search', performance.now() - t0);
    this.activity.record(p.organizationId, {
      type: 'StoreSearchPerformed',
      data: {
        ...this.activity.common(p, stores, params, results, t0),
        // a query the model rewrote first (OpenAI's `rewrite_query`) is recorded as asked, its rewrite as the rewritten query
        query: params.vector ? null : (params.rewrite?.from ?? query),
        ...(params.vector ? { queryDimensions: params.vector.length } : {}),
        rewrittenQuery: params.rewrite ? effective : rewritten,
        ...(params.rewrite ? { rewriteModel: params.rewrite.model, tokenUsage: params.rewrite.usage } : {}),
        rerank: reranked.reranked,
        ...(web ? { web: this.webStore.activity(web) } : {}),
      },
    });
    return { object: 'list', data, ...(pagination ? { pagination } : {}) };
  }

  /** An embedding query as a vector of the embedder's model: 422 at `query` when its dimensions differ. */
  private queryVector(v: number[]): Float32Array {
    const { model, dimensions } = this.retrieval.embedding;
    if (v.length !== dimensions) {
      throw new ValidationFailedError([
        {
          loc: ['body', 'query'],
          msg: `The query embedding has ${v.length} dimensions; the stores' embedding model ${model} has ${dimensions}`,
          type: 'value_error',
          input: v.length,
        },
      ]);
    }
    return Float32Array.from(v);
  }

  /** The results of a plain search (its first `top_k`), or a paged search's page of its ranked window, ordered. */
  private async paged<T extends RankedChunk>(
    p: Principal,
    params: SearchStoresParams,
    ranked: T[],
  ): Promise<{ page: T[]; pagination?: SearchPagination }> {
    if (params.offset === undefined || !params.sort) return { page: ranked.slice(0, params.topK) };
    const window = ranked.slice(0, RANKING_WINDOW);
    return pageOf(
      orderResults(window, params.sort, params.sort.by === 'created_at' ? await this.createdAt(p, window) : undefined),
      params.offset,
      params.topK,
    );
  }

  /**
   * As `paged`, over fused hits whose chunks are not read yet: only the page's chunks are read, unless
   * the order needs every chunk of the window (a metadata field, or the files' creation times).
   */
  private async hydratedPage(
    p: Principal,
    params: SearchStoresParams,
    hits: RankedHit[],
  ): Promise<{ results: RankedChunk[]; pagination?: SearchPagination }> {
    if (params.offset === undefined || !params.sort)
      return { results: await this.retrieval.hydrate(hits, params.topK) };
    const window = hits.slice(0, RANKING_WINDOW);
    if (readsChunks(params.sort)) {
      const { page, pagination } = await this.paged(p, params, await this.retrieval.hydrate(window, RANKING_WINDOW));
      return { results: page, pagination };
    }
    const { page, pagination } = pageOf(
      params.sort.ascending ? [...window].reverse() : window,
      params.offset,
      params.topK,
    );
    return { results: await this.retrieval.hydrate(page, params.topK), pagination };
  }

  /** The creation time (ms) of each result's store file, by `fileKey`. */
  private async createdAt(p: Principal, results: RankedChunk[]): Promise<Map<string, number>> {
    const files = [...new Map(results.map((c) => [fileKey(c), { storeId: c.storeId, fileId: c.fileId }])).values()];
    const rows = await this.storeFiles.many(p.organizationId, files);
    return new Map(rows.map((r) => [fileKey(r), r.createdAt.getTime()]));
  }
}
