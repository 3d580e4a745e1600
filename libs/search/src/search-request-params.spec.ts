/** Search request compilation: the parameters a valid search body compiles to. */
import 'reflect-metadata';
import { validateRequest } from '@larder/kernel';
import { SearchStoresRequestDto } from './queries/search-stores/search-stores.request.dto';
import { S } from './testing/request-problems';

describe('search request DTOs answer the contract’s 422 entries (loc, type, msg)', () => {
  it('search: a valid body compiles to its parameters', async () => {
    const d = await validateRequest(SearchStoresRequestDto, {
      query: { text: 'jam' },
      store_identifiers: ['a', 'b', 'a'],
      top_k: 3,
      filters: { key: 'lang', operator: 'eq', value: 'de' },
      file_ids: ['not_in', ['f1']],
      search_options: { rerank: { model: 'm', with_metadata: ['k'] }, return_metadata: false },
      unknown: 1,
    });
    expect(d.params()).toEqual({
      query: 'jam',
      storeIdentifiers: ['a', 'b'],
      topK: 3,
      filter: expect.objectContaining({ kind: 'condition', path: ['lang'], value: 'de' }),
      rawFilters: { key: 'lang', operator: 'eq', value: 'de' },
      fileIds: { exclude: ['f1'] },
      options: {
        scoreThreshold: 0,
        rewriteQuery: false,
        rerank: { model: 'm', withMetadata: ['k'], topK: null },
        returnMetadata: false,
        applySearchRules: true,
        agentic: null,
      },
      stream: false,
    });
    const agentic = await validateRequest(SearchStoresRequestDto, {
      query: 'q',
      store_identifiers: ['a'],
      stream: true,
      search_options: { agentic: { max_rounds: 2, instructions: 'be brief' } },
    });
    expect(agentic.params()).toMatchObject({
      stream: true,
      options: {
        agentic: {
          maxRounds: 2,
          queriesPerRound: 4,
          resultsPerQuery: null,
          strictTopK: false,
          mediaContent: 'auto',
          instructions: 'be brief',
          verbose: false,
        },
      },
    });
    expect(
      (
        await validateRequest(SearchStoresRequestDto, {
          query: 'q',
          store_identifiers: ['a'],
          search_options: { agentic: true },
        })
      ).params().options.agentic,
    ).toMatchObject({
      maxRounds: 3,
      queriesPerRound: 4,
    });
    expect(
      (
        await validateRequest(SearchStoresRequestDto, {
          query: 'q',
          store_identifiers: ['a'],
          search_options: { rerank: true },
        })
      ).params().options.rerank,
    ).toEqual({
      model: 'mixedbread-ai/mxbai-rerank-large-v2',
      withMetadata: false,
      topK: null,
    });
  });

  it('search: an embedding query, offset and sort_by compile to their parameters; without them the search is not paged', async () => {
    const plain = (await validateRequest(SearchStoresRequestDto, { ...S, query: 'jam' })).params();
    expect(plain).not.toHaveProperty('offset');
    expect(plain).not.toHaveProperty('sort');
    expect(plain).not.toHaveProperty('vector');
    const vector = (await validateRequest(SearchStoresRequestDto, { ...S, query: [0.5, -1, 0], offset: 20 })).params();
    expect(vector).toMatchObject({
      query: '',
      vector: [0.5, -1, 0],
      offset: 20,
      sort: { by: 'score', ascending: false },
    });
    const sorts = async (sort_by: unknown) =>
      (await validateRequest(SearchStoresRequestDto, { ...S, query: 'q', sort_by })).params();
    expect(await sorts('score')).toMatchObject({ offset: 0, sort: { by: 'score', ascending: false } });
    expect((await sorts(['score', true])).sort).toEqual({ by: 'score', ascending: true });
    expect((await sorts('created_at')).sort).toEqual({ by: 'created_at', ascending: true });
    expect((await sorts(['created_at', false])).sort).toEqual({ by: 'created_at', ascending: false });
    expect((await sorts(['metadata.year', false])).sort).toEqual({
      by: 'metadata',
      target: 'file',
      path: ['year'],
      ascending: false,
    });
    expect((await sorts('generated_metadata.page')).sort).toEqual({
      by: 'metadata',
      target: 'chunk',
      path: ['page'],
      ascending: true,
    });
  });
});
