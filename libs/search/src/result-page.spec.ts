import { orderResults, pageOf, resultSort } from './result-page';

const chunk = (
  fileId: string,
  score: number,
  metadata: unknown,
  generatedMetadata: Record<string, unknown> | null = null,
) => ({ storeId: 's', fileId, score, metadata, generatedMetadata });

describe('a search’s result order and pages', () => {
  const ranked = [
    chunk('a', 0.9, { year: 2021, when: '2021-05-01' }),
    chunk('b', 0.8, { year: '2024' }, { page: 3 }),
    chunk('c', 0.7, {}, { page: 1 }),
    chunk('d', 0.6, { year: 2019, when: '2019-01-01' }),
  ];
  const ids = (xs: Array<{ fileId: string }>) => xs.map((x) => x.fileId).join('');

  it('keeps the ranking by score, or reverses it', () => {
    expect(ids(orderResults(ranked, resultSort('score')!))).toBe('abcd');
    expect(ids(orderResults(ranked, resultSort(['score', true])!))).toBe('dcba');
  });

  it('sorts by a metadata path either way (numeric strings as numbers), a result without the field last', () => {
    expect(ids(orderResults(ranked, resultSort('year')!))).toBe('dabc');
    expect(ids(orderResults(ranked, resultSort(['metadata.year', false])!))).toBe('badc');
    expect(ids(orderResults(ranked, resultSort(['when', false])!))).toBe('adbc');
    expect(ids(orderResults(ranked, resultSort('generated_metadata.page')!))).toBe('cbad');
  });

  it('sorts by the files’ creation times, ties in ranking order', () => {
    const createdAt = new Map([
      ['s/a', 30],
      ['s/b', 10],
      ['s/c', 30],
      ['s/d', 20],
    ]);
    expect(ids(orderResults(ranked, resultSort('created_at')!, createdAt))).toBe('bdac');
    expect(ids(orderResults(ranked, resultSort(['created_at', false])!, createdAt))).toBe('acdb');
  });

  it('pages a window with its total, offset, limit and whether more follow', () => {
    expect(pageOf(ranked, 0, 3)).toEqual({
      page: ranked.slice(0, 3),
      pagination: { total: 4, offset: 0, limit: 3, has_more: true },
    });
    expect(pageOf(ranked, 3, 3)).toEqual({
      page: ranked.slice(3),
      pagination: { total: 4, offset: 3, limit: 3, has_more: false },
    });
    expect(pageOf(ranked, 9, 3)).toEqual({ page: [], pagination: { total: 4, offset: 9, limit: 3, has_more: false } });
  });

  it('refuses a sort that names no field', () => {
    expect(resultSort(['metadata.', true])).toBeNull();
    expect(resultSort(5)).toBeNull();
    expect(resultSort(['year', 'desc'])).toBeNull();
  });
});
