/** Search-rule request validation: create, update and entry-delete bodies and their 422 entries. */
import 'reflect-metadata';
import { validateRequest } from '@larder/kernel';
import { CreateSearchRuleRequestDto } from './commands/create-search-rule/create-search-rule.request.dto';
import { UpdateSearchRuleRequestDto } from './commands/update-search-rule/update-search-rule.request.dto';
import { DeleteSearchRuleEntryRequestDto } from './commands/delete-search-rule-entry/delete-search-rule-entry.request.dto';
import { problems, Problem } from './testing/request-problems';

describe('search request DTOs answer the contract’s 422 entries (loc, type, msg)', () => {
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
