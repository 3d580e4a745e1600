import { CitationExtractor, CitedSource } from './citations';

const sources: CitedSource[] = [
  { fileId: 'f-kraut', filename: 'sauerkraut.md', storeId: 's-1', chunkIndex: 0, citable: true },
  { fileId: 'f-jam', filename: 'jam.md', storeId: 's-1', chunkIndex: 3, citable: true },
  { fileId: 'f-secret', filename: 'hidden.md', storeId: 's-2', chunkIndex: 1, citable: false },
];

describe('CitationExtractor: <cite i="N"/> markers → file_citation annotations', () => {
  it('removes markers and points each annotation at the offset where its marker stood', () => {
    const { content, annotations } = CitationExtractor.extract('Salt it <cite i="0"/>. Boil it<cite i="1"/>.', sources);
    expect(content).toBe('Salt it . Boil it.');
    expect(annotations).toEqual([
      {
        type: 'file_citation',
        file_id: 'f-kraut',
        filename: 'sauerkraut.md',
        index: 8,
        chunk_id: 'f-kraut:0',
        store_id: 's-1',
      },
      { type: 'file_citation', file_id: 'f-jam', filename: 'jam.md', index: 17, chunk_id: 'f-jam:3', store_id: 's-1' },
    ]);
  });

  it('expands ranges; drops unknown sources and sources of tools declared without citations (marker still removed)', () => {
    const { content, annotations } = CitationExtractor.extract('A<cite i="0-2"/> B<cite i="9"/>', sources);
    expect(content).toBe('A B');
    expect(annotations.map((a) => [a.chunk_id, a.index])).toEqual([
      ['f-kraut:0', 1],
      ['f-jam:3', 1],
    ]);
  });

  it('streams: a marker split over deltas is held back and never sent; other text is sent at once', () => {
    const x = new CitationExtractor(sources);
    const pieces = ['Three weeks ', '<ci', 'te i="', '0"', '/>', '. a < b and <c', 'ode>'];
    const sent = pieces.map((p) => x.push(p));
    expect(sent).toEqual(['Three weeks ', '', '', '', '', '. a < b and ', '<code>']);
    expect(sent.join('') + x.flush()).toBe('Three weeks . a < b and <code>');
    expect(x.annotations).toEqual([expect.objectContaining({ chunk_id: 'f-kraut:0', index: 12 })]);
  });

  it('text that only looks like a marker start at the end is sent on flush', () => {
    const x = new CitationExtractor(sources);
    expect(x.push('see <cite i="')).toBe('see ');
    expect(x.flush()).toBe('<cite i="');
    expect(x.annotations).toEqual([]);
  });
});
