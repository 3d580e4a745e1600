/** Search request validation: the 422 entries a search body answers. */
import 'reflect-metadata';
import { SearchStoresRequestDto } from './queries/search-stores/search-stores.request.dto';
import { problems, Problem, S } from './testing/request-problems';

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
});
