import 'reflect-metadata';
import { validateRequest, ValidationFailedError } from '@larder/kernel';
import { SearchStoresRequestDto } from './queries/search-stores/search-stores.request.dto';
import { GrepStoresRequestDto } from './queries/grep-stores/grep-stores.request.dto';
import { ListChunksRequestDto } from './queries/list-chunks/list-chunks.request.dto';
import { MetadataFacetsRequestDto } from './queries/metadata-facets/metadata-facets.request.dto';
import { CreateSearchRuleRequestDto } from './commands/create-search-rule/create-search-rule.request.dto';
import { UpdateSearchRuleRequestDto } from './commands/update-search-rule/update-search-rule.request.dto';
import { DeleteSearchRuleEntryRequestDto } from './commands/delete-search-rule-entry/delete-search-rule-entry.request.dto';

type Problem = [(string | number)[], string, string];

/** The 422 entries (loc, type, msg) of a body: the DTO's checks, then what its `params()` compiles below the fields. */
async function problems(dto: new () => object, body: unknown): Promise<Problem[]> {
  try {
    const d = (await validateRequest(dto, body)) as { params?: () => unknown };
    d.params?.();
    return [];
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.detail.map((x) => [x.loc, x.type, x.msg]);
    throw err;
  }
}

const S = { store_identifiers: ['s1'] };

describe('search request DTOs answer the contract’s 422 entries (loc, type, msg)', () => {
  it.each<[string, unknown, Problem[]]>([
    [
      'empty query',
      { ...S, query: '' },
      [[['body', 'query'], 'string_too_short', 'String should have at least 1 character']],
    ],
    ['no query', S, [[['body', 'query'], 'missing', 'Field required']]],
    ['no stores', { query: 'x' }, [[['body', 'store_identifiers'], 'missing', 'Field required']]],
    [
      'stores not a list',
      { query: 'x', store_identifiers: 's1' },
      [[['body', 'store_identifiers'], 'list_type', 'Input should be a valid list']],
    ],
    [
      'no store',
      { query: 'x', store_identifiers: [] },
      [[['body', 'store_identifiers'], 'too_short', 'List should have at least 1 item after validation, not 0']],
    ],
    [
      '17 stores',
      { query: 'x', store_identifiers: Array.from({ length: 17 }, (_, i) => `s${i}`) },
      [[['body', 'store_identifiers'], 'too_long', 'List should have at most 16 items after validation, not 17']],
    ],
    [
      'a store that is no string',
      { query: 'x', store_identifiers: ['s1', 7] },
      [[['body', 'store_identifiers', 1], 'string_type', 'Input should be a valid string']],
    ],
    [
      'top_k 0',
      { ...S, query: 'x', top_k: 0 },
      [[['body', 'top_k'], 'greater_than_equal', 'Input should be greater than or equal to 1']],
    ],
    // no upper bound (the SDK declares none; answers hold at most LIMITS.results): only the lower one
    [
      'top_k -3',
      { ...S, query: 'x', top_k: -3 },
      [[['body', 'top_k'], 'greater_than_equal', 'Input should be greater than or equal to 1']],
    ],
    [
      'top_k 1.5',
      { ...S, query: 'x', top_k: 1.5 },
      [[['body', 'top_k'], 'int_type', 'Input should be a valid integer']],
    ],
    [
      'an unknown filter operator',
      { ...S, query: 'x', filters: { key: 'a', operator: 'approx', value: 1 } },
      [[['body', 'filters', 'operator'], 'value_error', expect.stringMatching(/^operator must be one of eq, /)]],
    ],
    [
      'a nested filter',
      { ...S, query: 'x', filters: { all: [{ key: 'a', operator: 'in', value: 1 }] } },
      [[['body', 'filters', 'all', 0, 'value'], 'value_error', "'in' needs a list value"]],
    ],
    [
      'file_ids: a bare operator',
      { ...S, query: 'x', file_ids: ['in'] },
      [[['body', 'file_ids'], 'value_error', 'The tuple form is [operator, [file ids]]']],
    ],
    [
      'file_ids: an unknown operator',
      { ...S, query: 'x', file_ids: ['between', ['a']] },
      [[['body', 'file_ids', 0], 'value_error', expect.stringMatching(/^Unknown operator 'between'/)]],
    ],
    [
      'an image query',
      { ...S, query: { type: 'image_url', image_url: { url: 'x' } } },
      [
        [
          ['body', 'query'],
          'value_error',
          'Image queries are not supported: this server embeds text only. Images in stores are searchable by their OCR text: send the words you look for as a text query',
        ],
      ],
    ],
    [
      'an empty text input',
      { ...S, query: { type: 'text', text: ' ' } },
      [[['body', 'query', 'text'], 'string_too_short', 'String should have at least 1 character']],
    ],
    [
      'a number as query',
      { ...S, query: 5 },
      [
        [
          ['body', 'query'],
          'value_error',
          'Input should be a string, a text input {type: "text", text} or an embedding (a list of numbers)',
        ],
      ],
    ],
    [
      'an empty embedding',
      { ...S, query: [] },
      [[['body', 'query'], 'too_short', 'An embedding query should have at least 1 number']],
    ],
    [
      'an embedding with a string',
      { ...S, query: [0.1, 'x'] },
      [
        [
          ['body', 'query'],
          'value_error',
          'Input should be a string, a text input {type: "text", text} or an embedding (a list of numbers)',
        ],
      ],
    ],
    [
      'an agentic embedding query',
      { ...S, query: [0.1, 0.2], search_options: { agentic: true } },
      [
        [
          ['body', 'search_options', 'agentic'],
          'value_error',
          'An agentic search needs a text query, not an embedding',
        ],
      ],
    ],
    [
      'an embedding query of the web store',
      { store_identifiers: ['s1', 'mixedbread/web'], query: [0.1, 0.2] },
      [
        [
          ['body', 'store_identifiers'],
          'value_error',
          'mixedbread/web is searched by text: an embedding query searches stores only',
        ],
      ],
    ],
    [
      'offset -1',
      { ...S, query: 'x', offset: -1 },
      [[['body', 'offset'], 'greater_than_equal', 'Input should be greater than or equal to 0']],
    ],
    [
      'offset 1.5',
      { ...S, query: 'x', offset: 1.5 },
      [[['body', 'offset'], 'int_type', 'Input should be a valid integer']],
    ],
    [
      'sort_by a number',
      { ...S, query: 'x', sort_by: 5 },
      [
        [
          ['body', 'sort_by'],
          'value_error',
          "Input should be 'score', 'created_at' or a metadata path, or a [field, ascending] pair",
        ],
      ],
    ],
    [
      'sort_by without a field',
      { ...S, query: 'x', sort_by: ['metadata.', true] },
      [
        [
          ['body', 'sort_by'],
          'value_error',
          "Input should be 'score', 'created_at' or a metadata path, or a [field, ascending] pair",
        ],
      ],
    ],
    [
      'sort_by with a direction that is no boolean',
      { ...S, query: 'x', sort_by: ['year', 'desc'] },
      [
        [
          ['body', 'sort_by'],
          'value_error',
          "Input should be 'score', 'created_at' or a metadata path, or a [field, ascending] pair",
        ],
      ],
    ],
    [
      'search_options not an object',
      { ...S, query: 'x', search_options: 5 },
      [[['body', 'search_options'], 'model_type', 'Input should be an object']],
    ],
    [
      'score_threshold 2',
      { ...S, query: 'x', search_options: { score_threshold: 2 } },
      [[['body', 'search_options', 'score_threshold'], 'value_error', 'Input should be a number between 0 and 1']],
    ],
    [
      'rerank top_k 0',
      { ...S, query: 'x', search_options: { rerank: { top_k: 0 } } },
      [[['body', 'search_options', 'rerank', 'top_k'], 'greater_than', 'Input should be a positive integer']],
    ],
    [
      'return_metadata "yes"',
      { ...S, query: 'x', search_options: { return_metadata: 'yes' } },
      [[['body', 'search_options', 'return_metadata'], 'bool_type', 'Input should be a valid boolean']],
    ],
    [
      'a body that is a list',
      [1],
      [[['body'], 'model_attributes_type', 'Input should be a valid dictionary or object']],
    ],
  ])('search: %s', async (_, body, expected) => {
    expect(await problems(SearchStoresRequestDto, body)).toEqual(expected);
  });

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

  it.each<[string, unknown, Problem[]]>([
    ['no pattern', S, [[['body', 'pattern'], 'missing', 'Field required']]],
    [
      'a number as pattern',
      { ...S, pattern: 5 },
      [[['body', 'pattern'], 'string_type', 'Input should be a valid string']],
    ],
    [
      'an empty pattern',
      { ...S, pattern: '' },
      [[['body', 'pattern'], 'string_too_long', 'String should have 1 to 1024 characters']],
    ],
    [
      'an unknown target',
      { ...S, pattern: 'x', targets: ['images'] },
      [[['body', 'targets'], 'enum', "Input should be a non-empty list of 'text' and 'generated'"]],
    ],
    [
      'case_sensitive "no"',
      { ...S, pattern: 'x', case_sensitive: 'no' },
      [[['body', 'case_sensitive'], 'bool_type', 'Input should be a valid boolean']],
    ],
  ])('grep: %s', async (_, body, expected) => {
    expect(await problems(GrepStoresRequestDto, body)).toEqual(expected);
  });

  it.each<[string, unknown, Problem[]]>([
    [
      'sort_by a number',
      { ...S, sort_by: 5 },
      [[['body', 'sort_by'], 'value_error', 'Input should be a metadata path or a [path, ascending] pair']],
    ],
    [
      'sort_by without a field',
      { ...S, sort_by: ['metadata.', true] },
      [[['body', 'sort_by'], 'value_error', 'The path names no field']],
    ],
  ])('list-chunks: %s', async (_, body, expected) => {
    expect(await problems(ListChunksRequestDto, body)).toEqual(expected);
  });

  it('list-chunks: sort_by addresses file or chunk metadata', async () => {
    expect(
      (await validateRequest(ListChunksRequestDto, { ...S, sort_by: 'generated_metadata.page' })).params().sort,
    ).toEqual({ target: 'chunk', path: ['page'], ascending: true });
    expect(
      (await validateRequest(ListChunksRequestDto, { ...S, sort_by: ['metadata.year', false] })).params().sort,
    ).toEqual({ target: 'file', path: ['year'], ascending: false });
  });

  it.each<[string, unknown, Problem[]]>([
    [
      'max_fields 0',
      { ...S, max_fields: 0 },
      [[['body', 'max_fields'], 'value_error', 'Input should be an integer from 1 to 256']],
    ],
    [
      'max_files 100001',
      { ...S, max_files: 100_001 },
      [[['body', 'max_files'], 'value_error', 'Input should be an integer from 1 to 100000']],
    ],
    [
      'facets not keys',
      { ...S, facets: [1] },
      [[['body', 'facets'], 'list_type', 'Input should be a list of metadata keys']],
    ],
    ['no query is fine', S, []],
  ])('facets: %s', async (_, body, expected) => {
    expect(await problems(MetadataFacetsRequestDto, body)).toEqual(expected);
  });

  it.each<[string, unknown, Problem[]]>([
    [
      'nothing',
      {},
      [
        [['body', 'query'], 'missing', 'Field required'],
        [['body', 'rules'], 'missing', 'Field required'],
      ],
    ],
    ['rules null', { query: 'q', rules: null }, [[['body', 'rules'], 'missing', 'Field required']]],
    [
      'a blank query',
      { query: ' ', rules: [] },
      [[['body', 'query'], 'string_type', 'Input should be a non-empty string']],
    ],
    [
      'a rule that is no object',
      { query: 'q', rules: [5] },
      [[['body', 'rules', 0], 'model_type', 'Input should be a rule object']],
    ],
    [
      'an unknown rule type',
      { query: 'q', rules: [{ type: 'boost' }] },
      [
        [
          ['body', 'rules', 0, 'type'],
          'literal_error',
          "Input should be 'query_string', 'query_regex', 'chunk_search_result' or 'file_search_result'",
        ],
      ],
    ],
    [
      'a rewrite without substitution',
      { query: 'q', rules: [{ type: 'query_string' }] },
      [[['body', 'rules', 0, 'substitution'], 'missing', 'Field required']],
    ],
    [
      'a lookbehind',
      { query: 'q', rules: [{ type: 'query_regex', pattern: '(?<=a)b', replacement: '' }] },
      [
        [
          ['body', 'rules', 0, 'pattern'],
          'value_error',
          expect.stringMatching(/^Invalid regular expression \(RE2 syntax\): /),
        ],
      ],
    ],
    [
      'unknown flags',
      { query: 'q', rules: [{ type: 'query_regex', pattern: 'a', replacement: '', flags: ['X'] }] },
      [
        [
          ['body', 'rules', 0, 'flags'],
          'enum',
          'Flags are a list of IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII, UNICODE',
        ],
      ],
    ],
    [
      'a chunk pin without chunk_index',
      { query: 'q', rules: [{ type: 'chunk_search_result', file_id: 'f', result_index: 0 }] },
      [[['body', 'rules', 0, 'chunk_index'], 'missing', 'Input should be an integer ≥ 0']],
    ],
    [
      'a pin at -1',
      { query: 'q', rules: [{ type: 'file_search_result', file_id: 'f', result_index: -1 }] },
      [[['body', 'rules', 0, 'result_index'], 'int_type', 'Input should be an integer ≥ 0']],
    ],
  ])('create search rule: %s', async (_, body, expected) => {
    expect(await problems(CreateSearchRuleRequestDto, body)).toEqual(expected);
  });

  it('rule entries take their parent’s query and store, and a file pin its first chunk', async () => {
    const d = await validateRequest(CreateSearchRuleRequestDto, {
      query: 'q',
      rules: [
        { type: 'file_search_result', file_id: 'f', result_index: 2, extra: true },
        { type: 'query_regex', pattern: '^a$', replacement: 'b', store_id: 'other' },
      ],
    });
    expect(d.rules.map((r) => r.toEntry({ query: 'q', storeId: 's' }))).toEqual([
      { type: 'file_search_result', query: 'q', store_id: 's', file_id: 'f', chunk_index: 0, result_index: 2 },
      { type: 'query_regex', query: 'q', store_id: 'other', pattern: '^a$', replacement: 'b', flags: [] },
    ]);
    expect(await problems(UpdateSearchRuleRequestDto, { query: null })).toEqual([]);
    expect(await problems(UpdateSearchRuleRequestDto, { rules: 'x' })).toEqual(
      expect.arrayContaining([[['body', 'rules'], 'list_type', 'Input should be a valid list']]),
    );
    expect(await problems(DeleteSearchRuleEntryRequestDto, {})).toEqual([
      [['body', 'rule'], 'missing', 'Field required'],
    ]);
    expect(await problems(DeleteSearchRuleEntryRequestDto, { rule: { type: 'query_string' } })).toEqual([
      [['body', 'rule', 'substitution'], 'missing', 'Field required'],
    ]);
  });
});
