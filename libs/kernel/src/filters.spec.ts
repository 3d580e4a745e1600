import { evaluateFilter, parseFilters } from './filters';
import { ValidationFailedError } from './errors';

const file = {
  lang: 'en',
  year: 2024,
  tags: ['sweet', 'red'],
  title: 'Strawberry Jam',
  nested: { level: 3 },
  date: '2024-05-01',
};
const chunk = { type: 'pdf', page: 2, heading: 'Intro' };
const matches = (f: unknown) => evaluateFilter(parseFilters(f), { file, chunk });

describe('metadata filters', () => {
  it.each<[string, unknown, boolean]>([
    ['eq', { key: 'lang', operator: 'eq', value: 'en' }, true],
    ['eq on a list element', { key: 'tags', operator: 'eq', value: 'red' }, true],
    ['eq mismatch', { key: 'lang', operator: 'eq', value: 'de' }, false],
    ['not_eq', { key: 'lang', operator: 'not_eq', value: 'de' }, true],
    ['not_eq on a missing key', { key: 'missing', operator: 'not_eq', value: 1 }, true],
    ['gt number', { key: 'year', operator: 'gt', value: 2023 }, true],
    ['gte number', { key: 'year', operator: 'gte', value: 2024 }, true],
    ['lt number', { key: 'year', operator: 'lt', value: 2024 }, false],
    ['lte ISO date string', { key: 'date', operator: 'lte', value: '2024-12-31' }, true],
    ['gt across types is false', { key: 'lang', operator: 'gt', value: 3 }, false],
    ['in', { key: 'lang', operator: 'in', value: ['de', 'en'] }, true],
    ['in on a list field', { key: 'tags', operator: 'in', value: ['sour', 'red'] }, true],
    ['not_in', { key: 'lang', operator: 'not_in', value: ['de', 'fr'] }, true],
    ['like, case-insensitive', { key: 'title', operator: 'like', value: '%jam' }, true],
    ['like with _', { key: 'lang', operator: 'like', value: 'e_' }, true],
    ['not_like', { key: 'title', operator: 'not_like', value: 'straw%' }, false],
    ['starts_with', { key: 'title', operator: 'starts_with', value: 'Straw' }, true],
    ['regex (RE2)', { key: 'title', operator: 'regex', value: '^Straw\\w+\\s+J' }, true],
    ['contains substring', { key: 'title', operator: 'contains', value: 'berry' }, true],
    ['contains list member', { key: 'tags', operator: 'contains', value: 'sweet' }, true],
    ['nested key', { key: 'nested.level', operator: 'eq', value: 3 }, true],
    ['metadata. prefix', { key: 'metadata.lang', operator: 'eq', value: 'en' }, true],
    ['generated_metadata', { key: 'generated_metadata.page', operator: 'gte', value: 2 }, true],
    ['generated_metadata mismatch', { key: 'generated_metadata.type', operator: 'eq', value: 'markdown' }, false],
    ['missing key never equals', { key: 'missing', operator: 'eq', value: null }, false],
    [
      'all',
      {
        all: [
          { key: 'lang', operator: 'eq', value: 'en' },
          { key: 'year', operator: 'eq', value: 2024 },
        ],
      },
      true,
    ],
    [
      'any',
      {
        any: [
          { key: 'lang', operator: 'eq', value: 'de' },
          { key: 'year', operator: 'eq', value: 2024 },
        ],
      },
      true,
    ],
    [
      'none',
      {
        none: [
          { key: 'lang', operator: 'eq', value: 'de' },
          { key: 'year', operator: 'eq', value: 1999 },
        ],
      },
      true,
    ],
    [
      'nesting',
      {
        all: [
          {
            any: [
              { key: 'lang', operator: 'eq', value: 'de' },
              { none: [{ key: 'year', operator: 'lt', value: 2000 }] },
            ],
          },
          { key: 'tags', operator: 'contains', value: 'red' },
        ],
      },
      true,
    ],
    [
      'a list is all',
      [
        { key: 'lang', operator: 'eq', value: 'en' },
        { key: 'year', operator: 'eq', value: 1999 },
      ],
      false,
    ],
  ])('%s', (_name, filter, expected) => {
    expect(matches(filter)).toBe(expected);
  });

  it('null and an empty list filter nothing out', () => {
    expect(parseFilters(null)).toBeNull();
    expect(parseFilters([])).toBeNull();
  });

  it.each<[string, unknown, (string | number)[]]>([
    ['unknown operator', { key: 'a', operator: 'approx', value: 1 }, ['body', 'filters', 'operator']],
    ['in without a list', { key: 'a', operator: 'in', value: 'x' }, ['body', 'filters', 'value']],
    ['invalid RE2 pattern', { key: 'a', operator: 'regex', value: '(?<=x)y' }, ['body', 'filters', 'value']],
    [
      'a bad child keeps its path',
      {
        all: [
          { key: 'a', operator: 'eq', value: 1 },
          { key: 'b', operator: 'like', value: 3 },
        ],
      },
      ['body', 'filters', 'all', 1, 'value'],
    ],
  ])('%s is a 422 pointing at the bad part', (_name, filter, loc) => {
    let err: unknown;
    try {
      parseFilters(filter);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationFailedError);
    expect((err as ValidationFailedError).detail[0].loc).toEqual(loc);
  });

  it('a catastrophic pattern runs in linear time', () => {
    const f = parseFilters({ key: 'title', operator: 'regex', value: '^(a+)+$' });
    const t0 = Date.now();
    expect(evaluateFilter(f, { file: { title: 'a'.repeat(5000) + 'b' } })).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
