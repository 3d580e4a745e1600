import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { metadataAsMap } from '@larder/kernel';
import { chunkResponseText } from '@larder/chunk-index';
import { QueryRewriter } from '../../../query-rewriter';
import { DEFAULT_RERANK_MODEL } from '../../../search-options.request.dto';
import { SearchStoresQuery } from '../../../queries/search-stores/search-stores.query';
import type { SearchStoresResponse } from '../../../queries/search-stores/search-stores.handler';
import type { SearchStoresParams } from '../../../queries/search-stores/search-stores.request.dto';
import { SearchVectorStoreQuery } from './search-vector-store.query';

export interface VectorStoreSearchResult {
  file_id: string;
  filename: string;
  score: number;
  attributes: unknown;
  content: Array<{ type: 'text'; text: string }>;
}
export interface VectorStoreSearchPage {
  object: 'vector_store.search_results.page';
  search_query: string[];
  data: VectorStoreSearchResult[];
  has_more: false;
  next_page: null;
}

/**
 * OpenAI's vector store search: the store search of `POST /v1/stores/search` (same retrieval, search
 * rules, reranking, activity event and billing) run through the bus over one store, and answered as
 * OpenAI's result page. Several queries are searched as one text (one search, one event). With
 * `rewrite_query` the configured model rewrites the query first; its tokens are recorded on the
 * search's event.
 */
@QueryHandler(SearchVectorStoreQuery)
export class SearchVectorStoreHandler implements IQueryHandler<SearchVectorStoreQuery, VectorStoreSearchPage> {
  constructor(
    private readonly queries: QueryBus,
    private readonly rewriter: QueryRewriter,
  ) {}

  async execute({ principal, vectorStoreId, input, filter }: SearchVectorStoreQuery): Promise<VectorStoreSearchPage> {
    const asked = Array.isArray(input.query) ? input.query : [input.query];
    let text = asked.join('\n');
    let rewrite: SearchStoresParams['rewrite'];
    if (input.rewrite_query) ({ query: text, rewrite } = await this.rewriter.rewrite(text));
    const ranker = input.ranking_options?.ranker ?? 'auto';
    const params: SearchStoresParams = {
      storeIdentifiers: [vectorStoreId],
      topK: input.max_num_results ?? 10,
      filter,
      rawFilters: input.filters ?? null,
      fileIds: null,
      query: text,
      options: {
        scoreThreshold: input.ranking_options?.score_threshold ?? 0,
        rewriteQuery: false,
        // `auto` (OpenAI's default) reranks with the configured cross-encoder, if there is one
        rerank: ranker === 'none' ? null : { model: DEFAULT_RERANK_MODEL, withMetadata: false, topK: null },
        returnMetadata: true,
        applySearchRules: true,
        agentic: null,
      },
      stream: false,
      ...(rewrite ? { rewrite } : {}),
    };
    const out = await this.queries.execute<SearchStoresQuery, SearchStoresResponse>(
      new SearchStoresQuery(principal, params),
    );
    return {
      object: 'vector_store.search_results.page',
      search_query: rewrite ? [text] : asked,
      data: out.data.map((c) => ({
        file_id: c.file_id,
        filename: c.filename,
        score: c.score,
        attributes: metadataAsMap(c.metadata),
        content: [{ type: 'text', text: chunkResponseText(c) }],
      })) /* an image chunk answers with its OCR text, a recording with its transcript */,
      has_more: false,
      next_page: null,
    };
  }
}
