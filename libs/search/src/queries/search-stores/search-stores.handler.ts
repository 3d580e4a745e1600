import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { toScoredChunkResponse } from '@larder/chunk-index';
import { RankedChunk, Retrieval } from '../../retrieval';
import { StoreAccess } from '../../store-access';
import { SearchActivity } from '../../search-activity';
import { applyRewrites, SearchRulePins } from '../../rules/search-rule-effects';
import { AgenticSearch } from '../../agentic/agentic-search';
import { publicToolCall } from '../../events';
import { WebRetrieval, WEB_SEARCH_HEADER } from '../../web/web-retrieval';
import { SearchStoresQuery } from './search-stores.query';

export type SearchStoresResponse = { object: 'list'; data: ReturnType<typeof toScoredChunkResponse>[]; trace?: unknown[] };

/**
 * Search over stores (§15): rules rewrite the query and pin results; then either hybrid retrieval
 * with rerank, or an agentic search (`search_options.agentic`); then threshold and top_k. A streamed
 * search sends the agentic run's trace events as they happen.
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
  ) {}

  async execute(query: SearchStoresQuery): Promise<SearchStoresResponse> {
    // the activity of earlier searches is appended once the searches pause (search-activity.ts)
    const ended = this.activity.searching();
    try {
      return await this.search(query);
    } finally {
      ended();
    }
  }

  private async search({ principal: p, params, timing, live, signal, setHeader }: SearchStoresQuery): Promise<SearchStoresResponse> {
    const t0 = performance.now();
    const { query, options } = params;
    // The query's embedding runs beside the lookup of stores and rules (one round trip); a rewrite
    // (rare) embeds the rewritten query instead.
    const te = performance.now();
    const prefetched = this.retrieval.embedQuery(query).then((v) => ((timing.embed = performance.now() - te), v));
    // The web store (mixedbread/web): its providers are asked beside the store lookups.
    const split = WebRetrieval.split(params.storeIdentifiers);
    const pendingWeb = split.web ? this.webStore.search(query, !split.stores.length, signal, timing) : null;
    pendingWeb?.catch(() => undefined);
    const tr = performance.now();
    const { stores, rules } = await this.access.resolveForSearch(p, params.storeIdentifiers, options.applySearchRules ? query : null);
    timing.stores_and_rules = performance.now() - tr;
    const web = pendingWeb ? await pendingWeb : null;
    if (web) setHeader?.(WEB_SEARCH_HEADER, this.webStore.header(web));
    live?.start();

    // Search rules: query rewrites first, then result pins.
    const { effective, rewritten, pins } = applyRewrites(query, rules);
    if (options.agentic) {
      const run = await this.agentic.run({
        stores,
        question: effective,
        params,
        config: options.agentic,
        trace: live ? (name, data) => live.send(name, { type: name, ...data }) : undefined,
        signal,
        questionVector: effective === query ? prefetched : undefined,
        // the web results join the question's own search (round 1), ranked with the stores' candidates
        searchQuestion: web ? (q, candidates, vector) => this.webStore.retrieve(stores, q, params, candidates, web, vector) : undefined,
      });
      let results = await this.pins.pin(run.results, pins, stores, params);
      results = results.filter((c) => c.score >= options.scoreThreshold).slice(0, params.topK);
      timing.search = performance.now() - t0;
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
          tokenUsage: { prompt_tokens: run.usage.promptTokens, completion_tokens: run.usage.completionTokens, total_tokens: run.usage.totalTokens },
          toolCalls: run.toolCalls.slice(0, 100),
          startedAt: run.startedAt,
          ...(web ? { web: this.webStore.activity(web) } : {}),
        },
      });
      // a client that hung up is recorded (and billed) for what the run did, then the request ends
      if (signal?.aborted) throw signal.reason;
      const data = results.map((c) => toScoredChunkResponse(c, options.returnMetadata));
      return options.agentic.verbose ? { object: 'list', data, trace: run.toolCalls.map(publicToolCall) } : { object: 'list', data };
    }

    const candidates = Math.max(params.topK * this.retrieval.config.candidateFactor, 50);
    const vector = effective === query ? prefetched : undefined;
    let results: RankedChunk[];
    let reranked: { reranked: boolean };
    if (!web && !pins.length && !this.retrieval.reranks(options)) {
      // The ranking is the fusion's: only the chunks of the answer's hits are read, not those of all the candidates.
      const hits = await this.retrieval.retrieveHits(stores, effective, params, candidates, vector, timing);
      results = await this.retrieval.hydrate(
        hits.filter((c) => c.score >= options.scoreThreshold),
        params.topK,
        timing,
      );
      reranked = { reranked: false };
    } else {
      results = web ? await this.webStore.retrieve(stores, effective, params, candidates, web, vector, timing) : await this.retrieval.retrieve(stores, effective, params, candidates, vector, timing);
      const rerank = web ? this.webStore.rerankOptions(options) : options;
      const out = await this.retrieval.rerank(effective, results, rerank, timing);
      reranked = out;
      results = out.results;
      results = await this.pins.pin(results, pins, stores, params);
      results = results.filter((c) => c.score >= options.scoreThreshold).slice(0, params.topK);
    }

    const data = results.map((c) => toScoredChunkResponse(c, options.returnMetadata));
    timing.search = performance.now() - t0;
    this.activity.record(p.organizationId, {
      type: 'StoreSearchPerformed',
      data: {
        ...this.activity.common(p, stores, params, results, t0),
        // a query the model rewrote first (OpenAI's `rewrite_query`) is recorded as asked, its rewrite as the rewritten query
        query: params.rewrite?.from ?? query,
        rewrittenQuery: params.rewrite ? effective : rewritten,
        ...(params.rewrite ? { rewriteModel: params.rewrite.model, tokenUsage: params.rewrite.usage } : {}),
        rerank: reranked.reranked,
        ...(web ? { web: this.webStore.activity(web) } : {}),
      },
    });
    return { object: 'list', data };
  }
}
