import type { StoreFilesReader } from '@larder/projections/stores/store-files.reader';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '@larder/kernel';
import type { Llm } from '@larder/ai';
import { QueryRewriteNeedsLlmError, QueryRewriter } from './query-rewriter';
import { SearchAdmission } from './search-admission';
import { SearchVectorStoreHandler } from './openai/queries/search-vector-store/search-vector-store.handler';
import { SearchVectorStoreQuery } from './openai/queries/search-vector-store/search-vector-store.query';
import type { SearchVectorStoreRequestDto } from './openai/queries/search-vector-store/search-vector-store.request.dto';
import { SearchStoresHandler } from './queries/search-stores/search-stores.handler';
import { SearchStoresQuery } from './queries/search-stores/search-stores.query';
import { SearchOptionsRequestDto } from './search-options.request.dto';
import type { StoreAccess } from './store-access';
import type { Retrieval } from './retrieval';
import type { AgenticSearch } from './agentic/agentic-search';
import type { SearchRulePins } from './rules/search-rule-effects';
import type { SearchActivity } from './search-activity';
import type { WebRetrieval } from './web/web-retrieval';

const principal: Principal = { organizationId: 'o', apiKeyId: 'k', admin: false, operator: false, scope: null };

/** A store search whose every collaborator refuses to be used: the rewrite must fail before any of them. */
function storeSearch(rewriter: QueryRewriter) {
  const untouched = () => {
    throw new Error('searched');
  };
  const access = { resolveForSearch: jest.fn(untouched) } as unknown as StoreAccess;
  const retrieval = { embedQuery: jest.fn(untouched) } as unknown as Retrieval;
  const activity = { searching: () => () => undefined } as unknown as SearchActivity;
  const handler = new SearchStoresHandler(
    access,
    retrieval,
    {} as AgenticSearch,
    {} as SearchRulePins,
    activity,
    {} as WebRetrieval,
    rewriter,
    {} as StoreFilesReader,
    new SearchAdmission(),
  );
  return { handler, access, retrieval };
}

const params = (rewrite_query: boolean) => ({
  storeIdentifiers: ['s'],
  topK: 10,
  filter: null,
  rawFilters: null,
  fileIds: null,
  query: 'umm the spicy cabbage thing',
  options: SearchOptionsRequestDto.toOptions(Object.assign(new SearchOptionsRequestDto(), { rewrite_query })),
  stream: false,
});

describe('rewrite_query', () => {
  it('without a model: vector store search refuses it with a 400 that says what to configure, and searches nothing', async () => {
    const bus = { execute: jest.fn() } as unknown as QueryBus;
    const handler = new SearchVectorStoreHandler(bus, new QueryRewriter(new SearchAdmission(), null));
    const input = { query: 'rye', rewrite_query: true } as SearchVectorStoreRequestDto;
    const err = await handler.execute(new SearchVectorStoreQuery(principal, 's', input, null)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryRewriteNeedsLlmError);
    expect(err).toMatchObject({
      status: 400,
      type: 'llm_not_configured',
      message: expect.stringContaining('LARDER_LLM_URL'),
    });
    expect(bus.execute).not.toHaveBeenCalled();
  });

  it('without a model: store search (search_options.rewrite_query) refuses it the same way, and searches nothing', async () => {
    const { handler, access, retrieval } = storeSearch(new QueryRewriter(new SearchAdmission(), null));
    const err = await handler.execute(new SearchStoresQuery(principal, params(true))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryRewriteNeedsLlmError);
    expect(access.resolveForSearch).not.toHaveBeenCalled();
    expect(retrieval.embedQuery).not.toHaveBeenCalled();
  });

  it('with a model: the first line of its answer, unquoted, is the query; what was asked, the model and its tokens come with it', async () => {
    const chat = jest.fn().mockResolvedValue({
      model: 'rewriter',
      message: { content: ' "spicy fermented cabbage"\nbecause…' },
      usage: { promptTokens: 30, completionTokens: 5, totalTokens: 35 },
    });
    const r = await new QueryRewriter(new SearchAdmission(), { chat } as unknown as Llm).rewrite(
      'umm the spicy cabbage thing',
    );
    expect(r).toEqual({
      query: 'spicy fermented cabbage',
      rewrite: {
        from: 'umm the spicy cabbage thing',
        model: 'rewriter',
        usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 },
      },
    });
    expect(chat.mock.calls[0][0].messages[1]).toEqual({ role: 'user', content: 'umm the spicy cabbage thing' });
  });
});
