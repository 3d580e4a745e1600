import 'reflect-metadata';
import { validateRequest, ValidationFailedError } from '@larder/kernel';
import { SearchFilesRequestDto } from './search-files.request.dto';

type Problem = [(string | number)[], string, string];

async function problems(body: unknown): Promise<Problem[]> {
  try {
    (await validateRequest(SearchFilesRequestDto, body)).params();
    return [];
  } catch (err) {
    if (err instanceof ValidationFailedError) return err.detail.map((x) => [x.loc, x.type, x.msg]);
    throw err;
  }
}

const S = { store_identifiers: ['s1'], query: 'x' };

describe('file search request DTO: the checks of a search, and its own options', () => {
  it.each<[string, unknown, Problem[]]>([
    [
      'empty query',
      { ...S, query: '' },
      [[['body', 'query'], 'string_too_short', 'String should have at least 1 character']],
    ],
    ['no stores', { query: 'x' }, [[['body', 'store_identifiers'], 'missing', 'Field required']]],
    [
      'top_k 0',
      { ...S, top_k: 0 },
      [[['body', 'top_k'], 'greater_than_equal', 'Input should be greater than or equal to 1']],
    ],
    [
      'a bad filter',
      { ...S, filters: { key: 'a', operator: 'approx', value: 1 } },
      [[['body', 'filters', 'operator'], 'value_error', expect.stringMatching(/^operator must be one of/)]],
    ],
    [
      'file_ids: an unknown operator',
      { ...S, file_ids: ['between', ['a']] },
      [[['body', 'file_ids', 0], 'value_error', expect.stringMatching(/^Unknown operator 'between'/)]],
    ],
    [
      'score_threshold 2',
      { ...S, search_options: { score_threshold: 2 } },
      [[['body', 'search_options', 'score_threshold'], 'value_error', 'Input should be a number between 0 and 1']],
    ],
    [
      'return_chunks a string',
      { ...S, search_options: { return_chunks: 'yes' } },
      [[['body', 'search_options', 'return_chunks'], 'bool_type', 'Input should be a valid boolean']],
    ],
    [
      'chunks_per_file 1.5',
      { ...S, search_options: { chunks_per_file: 1.5 } },
      [[['body', 'search_options', 'chunks_per_file'], 'int_type', 'Input should be a valid integer']],
    ],
    [
      'chunks_per_file -1',
      { ...S, search_options: { chunks_per_file: -1 } },
      [
        [
          ['body', 'search_options', 'chunks_per_file'],
          'greater_than_equal',
          'Input should be greater than or equal to 0',
        ],
      ],
    ],
    [
      'chunks_per_file 101',
      { ...S, search_options: { chunks_per_file: 101 } },
      [[['body', 'search_options', 'chunks_per_file'], 'less_than_equal', 'Input should be less than or equal to 100']],
    ],
  ])('%s', async (_, body, expected) => {
    expect(await problems(body)).toEqual(expected);
  });

  it('compiles defaults and the options the mxbai CLI sends', async () => {
    const plain = (await validateRequest(SearchFilesRequestDto, S)).params();
    expect(plain).toMatchObject({
      query: 'x',
      storeIdentifiers: ['s1'],
      topK: 10,
      options: { returnChunks: true, chunksPerFile: 3, returnMetadata: true, scoreThreshold: 0, rerank: null },
    });
    const cli = (
      await validateRequest(SearchFilesRequestDto, {
        query: { type: 'text', text: 'jam' },
        store_identifiers: ['s1', 's1'],
        top_k: 5,
        search_options: {
          return_metadata: false,
          score_threshold: 0.4,
          rerank: true,
          return_chunks: false,
          chunks_per_file: 0,
          agentic: null,
        },
      })
    ).params();
    expect(cli).toMatchObject({
      query: 'jam',
      storeIdentifiers: ['s1'],
      topK: 5,
      options: {
        returnChunks: false,
        chunksPerFile: 0,
        returnMetadata: false,
        scoreThreshold: 0.4,
        rerank: { model: expect.any(String) },
      },
    });
  });
});
