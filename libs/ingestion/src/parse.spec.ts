import { readFileSync } from 'fs';
import { join } from 'path';
import { chunkDocument, CHUNKING } from './chunker';
import { estimateTokens, ParseError, UnsupportedFileError } from './document';
import { parseFile, parserFor } from './parse';

const FIXTURES = join(__dirname, '../../../test/fixtures/ingestion');
const load = (name: string) => readFileSync(join(FIXTURES, name));

async function chunksOf(name: string, mime: string, mode: 'fast' | 'high_quality' = 'fast') {
  const doc = await parseFile(load(name), name, mime);
  return { doc, chunks: chunkDocument(doc, mode, name) };
}

describe('parsers and chunker on the committed fixtures', () => {
  it('picks parsers by extension, then MIME type', () => {
    expect(parserFor('a.md', 'application/octet-stream')).toBe('markdown');
    expect(parserFor('a', 'application/pdf')).toBe('pdf');
    expect(parserFor('x.rs', 'text/plain')).toBe('code');
    expect(parserFor('x.unknown', 'application/octet-stream')).toBeNull();
  });

  it('Markdown: front matter, heading paths, fenced code kept whole, line ranges', async () => {
    const { doc, chunks } = await chunksOf('guide.md', 'text/markdown', 'high_quality');
    expect(doc.frontmatter).toEqual({ title: 'Pantry Guide', tags: ['preserving', 'jars'] });
    const all = chunks.map((c) => c.text).join('\n');
    expect(all).toContain('def brine(litres):\n    return litres * 50');
    const storage = chunks.find((c) => c.text.includes('cool, dark cellar'))!;
    const meta = storage.generatedMetadata as { type: string; heading_context: unknown[]; chunk_headings: unknown[]; start_line: number; num_lines: number; frontmatter: unknown };
    expect(meta.type).toBe('markdown');
    expect(meta.frontmatter).toEqual({ title: 'Pantry Guide', tags: ['preserving', 'jars'] });
    expect([...meta.heading_context, ...meta.chunk_headings]).toEqual(
      expect.arrayContaining([
        { level: 1, text: 'Pantry Guide' },
        { level: 3, text: 'Storage' },
      ]),
    );
    // Line numbers count from the top of the file, front matter included, 0-based (upstream's convention)
    const lines = readFileSync(join(FIXTURES, 'guide.md'), 'utf8').split('\n');
    expect(lines[meta.start_line + meta.num_lines - 1]).toContain('cellar');
    expect(lines[meta.start_line]).toMatch(/\S/);
    // high_quality embeds the heading path with the text
    expect(storage.embedText.startsWith('guide.md')).toBe(true);
    expect(storage.embedText).not.toBe(storage.text);
  });

  it('plain text: paragraphs with line ranges', async () => {
    const { chunks } = await chunksOf('notes.txt', 'text/plain');
    expect(chunks).toHaveLength(1);
    expect(chunks[0].generatedMetadata).toMatchObject({ type: 'text', file_type: 'text/plain', start_line: 0, num_lines: 5, file_extension: 'txt' });
    expect(chunks[0].text).toContain('plum season');
  });

  it('HTML: headings and lists, scripts, styles and navigation dropped, entities decoded', async () => {
    const { doc, chunks } = await chunksOf('recipes.html', 'text/html');
    const text = chunks.map((c) => c.text).join('\n');
    expect(text).toContain('Feed the starter the evening before & let it rise overnight.');
    expect(text).toContain('500 g flour');
    expect(text).not.toMatch(/var x|color:red|Home/);
    expect(doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual(['Sourdough Bread', 'Ingredients', 'Baking']);
  });

  it('PDF: text layer with page numbers; high_quality drops repeated page footers', async () => {
    const { doc, chunks } = await chunksOf('report.pdf', 'application/pdf');
    expect(doc.totalPages).toBe(3);
    const text = chunks.map((c) => c.text).join('\n');
    expect(text).toContain('Rotterdam shipped 4,200 pallets');
    expect(chunks[0].generatedMetadata).toMatchObject({ type: 'pdf', file_type: 'application/pdf', total_pages: 3 });
    const pages = chunks.flatMap((c) => (c.generatedMetadata as { pages: number[] }).pages);
    expect(new Set(pages)).toEqual(new Set([1, 2, 3]));
    const hq = await chunksOf('report.pdf', 'application/pdf', 'high_quality');
    expect(hq.chunks.map((c) => c.text).join('\n')).not.toMatch(/Page \d/);
    expect(text).toMatch(/Page \d/);
  });

  it('a corrupt PDF fails with a useful parse error', async () => {
    await expect(parseFile(load('corrupt.pdf'), 'corrupt.pdf', 'application/pdf')).rejects.toThrow(ParseError);
    await expect(parseFile(load('corrupt.pdf'), 'corrupt.pdf', 'application/pdf')).rejects.toThrow(/Could not read the PDF/);
  });

  it('DOCX: Word heading styles become headings', async () => {
    const { doc, chunks } = await chunksOf('handbook.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(doc.blocks.filter((b) => b.kind === 'heading').map((b) => [b.level, b.text])).toEqual([
      [1, 'Employee Handbook'],
      [2, 'Holidays'],
      [2, 'Safety'],
    ]);
    expect(chunks.map((c) => c.text).join('\n')).toContain('twenty-eight days of paid leave');
  });

  it('CSV: rows as header: value pairs, header repeated in every chunk', async () => {
    const { chunks } = await chunksOf('inventory.csv', 'text/csv');
    expect(chunks[0].text.startsWith('item, quantity, shelf\n')).toBe(true);
    expect(chunks[0].text).toContain('item: pickled cucumbers; quantity: 40; shelf: B2');
  });

  it('JSON: members as path: value lines', async () => {
    const { chunks } = await chunksOf('settings.json', 'application/json');
    const text = chunks.map((c) => c.text).join('\n');
    expect(text).toContain('warehouse.city: Rotterdam');
    expect(text).toContain('products.1: pickles');
  });

  it('source code: language from the extension, one definition per block, line ranges', async () => {
    const ts = await parseFile(load('inventory.ts'), 'inventory.ts', 'text/plain');
    expect(ts.language).toBe('typescript');
    expect(ts.blocks.map((b) => b.text.split('\n').find((l) => /^(export|import)/.test(l)))).toEqual([
      "import { readFileSync } from 'fs';",
      'export interface Jar {',
      'export function loadJars(path: string): Jar[] {',
      'export class Pantry {',
    ]);
    const py = await chunksOf('ferment.py', 'text/x-python');
    expect(py.doc.blocks.map((b) => b.startLine)).toEqual([1, 6, 11]);
    expect(py.chunks[0].generatedMetadata).toMatchObject({ type: 'code', language: 'python', start_line: 0, file_extension: 'py' });
  });

  it('unsupported binary types fail clearly', async () => {
    await expect(parseFile(load('image.png'), 'image.png', 'image/png')).rejects.toThrow(UnsupportedFileError);
  });

  it('long documents are cut under the token budget with overlap; the modes differ', async () => {
    const para = (i: number) => `Paragraph ${i}. ` + 'Preserved plums taste of late summer and keep for a year in the cellar. '.repeat(6);
    const text = Array.from({ length: 40 }, (_, i) => para(i)).join('\n\n');
    const doc = await parseFile(Buffer.from(text), 'long.txt', 'text/plain');
    for (const mode of ['fast', 'high_quality'] as const) {
      const chunks = chunkDocument(doc, mode, 'long.txt');
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(CHUNKING[mode].maxTokens);
      // consecutive chunks overlap
      const tail = chunks[0].text.slice(-60);
      expect(chunks[1].text).toContain(tail.slice(tail.indexOf(' ') + 1));
    }
    expect(chunkDocument(doc, 'high_quality', 'long.txt').length).toBeGreaterThan(chunkDocument(doc, 'fast', 'long.txt').length);
  });
});
