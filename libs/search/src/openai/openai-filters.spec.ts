import { evaluateFilter, Problems } from '@larder/kernel';
import { openAiFilter } from './openai-filters';

const translate = (input: unknown) => {
  const p = new Problems();
  const node = openAiFilter(input, p);
  return { node, problems: p.list };
};
const matches = (input: unknown, attributes: Record<string, unknown>) =>
  evaluateFilter(translate(input).node, { file: attributes });

describe('OpenAI attribute filters as Larder filters', () => {
  const bread = { cuisine: 'bread', year: 2021, vegan: true, 'a.b': 'dotted' };

  it('translates every comparison', () => {
    expect(matches({ key: 'cuisine', type: 'eq', value: 'bread' }, bread)).toBe(true);
    expect(matches({ key: 'cuisine', type: 'ne', value: 'bread' }, bread)).toBe(false);
    expect(matches({ key: 'year', type: 'gt', value: 2020 }, bread)).toBe(true);
    expect(matches({ key: 'year', type: 'gte', value: 2021 }, bread)).toBe(true);
    expect(matches({ key: 'year', type: 'lt', value: 2021 }, bread)).toBe(false);
    expect(matches({ key: 'year', type: 'lte', value: 2021 }, bread)).toBe(true);
    expect(matches({ key: 'cuisine', type: 'in', value: ['bread', 'cake'] }, bread)).toBe(true);
    expect(matches({ key: 'cuisine', type: 'nin', value: ['bread'] }, bread)).toBe(false);
    expect(matches({ key: 'vegan', type: 'eq', value: true }, bread)).toBe(true);
    // an attribute name is one key: a dot is part of it
    expect(matches({ key: 'a.b', type: 'eq', value: 'dotted' }, bread)).toBe(true);
    // a missing attribute matches only ne / nin, as Larder's not_eq / not_in
    expect(matches({ key: 'colour', type: 'ne', value: 'red' }, bread)).toBe(true);
    expect(matches({ key: 'colour', type: 'eq', value: 'red' }, bread)).toBe(false);
  });

  it('translates and / or, nested', () => {
    const f = {
      type: 'or',
      filters: [
        {
          type: 'and',
          filters: [
            { key: 'cuisine', type: 'eq', value: 'bread' },
            { key: 'year', type: 'lt', value: 2000 },
          ],
        },
        { key: 'vegan', type: 'eq', value: true },
      ],
    };
    expect(matches(f, bread)).toBe(true);
    expect(matches(f, { ...bread, vegan: false })).toBe(false);
    expect(translate(null).node).toBeNull();
  });

  it('reports every bad part at its loc', () => {
    const { problems } = translate({
      type: 'and',
      filters: [
        { key: 'year', type: 'between', value: 1 },
        { key: '', type: 'eq', value: 'x' },
        { key: 'x', type: 'in', value: 'a' },
        { key: 'x', type: 'gt', value: true },
        'nope',
      ],
      extra: 1,
    });
    expect(problems.map((d) => d.loc)).toEqual([
      ['body', 'filters', 'extra'],
      ['body', 'filters', 'filters', 0, 'type'],
      ['body', 'filters', 'filters', 1, 'key'],
      ['body', 'filters', 'filters', 2, 'value'],
      ['body', 'filters', 'filters', 3, 'value'],
      ['body', 'filters', 'filters', 4],
    ]);
    expect(translate({ type: 'or' }).problems[0].loc).toEqual(['body', 'filters', 'filters']);
  });

  it('holds the limits of Larder filters: depth and condition count', () => {
    let deep: unknown = { key: 'a', type: 'eq', value: 1 };
    for (let i = 0; i < 20; i++) deep = { type: 'and', filters: [deep] };
    expect(translate(deep).problems[0].msg).toMatch(/nested too deeply/);
    const many = { type: 'or', filters: Array.from({ length: 300 }, (_, i) => ({ key: 'a', type: 'eq', value: i })) };
    expect(translate(many).problems[0].msg).toMatch(/at most 256 conditions/);
  });
});
