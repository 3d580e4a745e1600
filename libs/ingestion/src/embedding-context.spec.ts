import { contextualizationPlan, embedsMetadata, METADATA_CONTEXT_CHARS, metadataLines } from './embedding-context';

describe('store contextualization: what is put before a chunk’s embedded text', () => {
  it('reads every form the clients send', () => {
    expect(contextualizationPlan(true)).toEqual({ fileContext: true, metadata: true });
    expect(contextualizationPlan(false)).toEqual({ fileContext: false, metadata: false });
    expect(contextualizationPlan(null)).toEqual({ fileContext: false, metadata: false });
    expect(contextualizationPlan({})).toEqual({ fileContext: false, metadata: false });
    expect(contextualizationPlan({ with_file_context: true })).toEqual({ fileContext: true, metadata: false });
    // the mxbai CLI: `--contextualization --with-file-context`, `--contextualization title,author.name`
    expect(contextualizationPlan({ with_metadata: true, with_file_context: true })).toEqual({
      fileContext: true,
      metadata: true,
    });
    expect(contextualizationPlan({ with_metadata: ['title', 'author.name'] })).toEqual({
      fileContext: false,
      metadata: ['title', 'author.name'],
    });
    expect(contextualizationPlan({ with_metadata: [] })).toEqual({ fileContext: false, metadata: false });
    expect(embedsMetadata({ with_file_context: true })).toBe(false);
    expect(embedsMetadata(true)).toBe(true);
  });

  it('metadata becomes key: value lines, dot paths for nested keys, only the listed paths when listed', () => {
    const m = { title: 'Preserves', author: { name: 'Ada', born: 1815 }, tags: ['jam', 'jars'], empty: null };
    expect(metadataLines(m, true)).toBe('title: Preserves\nauthor.name: Ada\nauthor.born: 1815\ntags: jam, jars');
    expect(metadataLines(m, ['author.name', 'missing', 'tags'])).toBe('author.name: Ada\ntags: jam, jars');
    expect(metadataLines(m, ['author'])).toBe('author.name: Ada\nauthor.born: 1815');
    expect(metadataLines(m, false)).toBeNull();
    expect(metadataLines(null, true)).toBeNull();
    // metadata that is no object: its value, when all of it is embedded
    expect(metadataLines('shelf two', true)).toBe('shelf two');
    expect(metadataLines(['jam', 3], true)).toBe('jam, 3');
    expect(metadataLines(0, true)).toBe('0');
    expect(metadataLines('shelf two', ['shelf'])).toBeNull();
    expect(metadataLines({ big: 'x'.repeat(10_000) }, true)!.length).toBe(METADATA_CONTEXT_CHARS);
  });
});
