import { readFileSync } from 'fs';
import { join } from 'path';
import { chunkDocument, CHUNKING, chunkingFor, chunkingKey, embeddingInput } from './chunker';
import { estimateTokens, ParseError, UnsupportedFileError, UnsupportedMediaError } from './document';
import { conformGeneratedMetadata } from './generated-metadata';
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
    expect(parserFor('page.html', 'text/markdown')).toBe('html');
    expect(parserFor('scan.JPG', 'application/octet-stream')).toBe('image');
    expect(parserFor('scan', 'image/webp')).toBe('image');
    expect(parserFor('icon.svg', 'image/svg+xml')).toBeNull();
    expect(parserFor('song', 'audio/mpeg')).toBe('audio');
    expect(parserFor('clip.mov', 'application/octet-stream')).toBe('video');
    // the CLI's fix for TypeScript files that mime-types calls MPEG transport streams
    expect(parserFor('main.ts', 'video/mp2t')).toBe('code');
  });

  it('every parser reports a declared generated_metadata variant', async () => {
    const expected: Record<string, [string, string]> = {
      'guide.md': ['markdown', 'text/markdown'],
      'recipes.html': ['markdown', 'text/markdown'],
      'handbook.docx': ['markdown', 'text/markdown'],
      'notes.txt': ['text', 'text/plain'],
      'inventory.csv': ['text', 'text/plain'],
      'settings.json': ['text', 'text/plain'],
      'report.pdf': ['pdf', 'application/pdf'],
      'ferment.py': ['code', 'text/x-python'],
    };
    for (const [name, [type, fileType]] of Object.entries(expected)) {
      const mime = {
        md: 'text/markdown',
        html: 'text/html',
        docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        txt: 'text/plain',
        csv: 'text/csv',
        json: 'application/json',
        pdf: 'application/pdf',
        py: 'text/x-python',
      }[name.split('.')[1]]!;
      const { chunks } = await chunksOf(name, mime);
      expect(chunks.length).toBeGreaterThan(0);
      for (const c of chunks) {
        expect([name, c.generatedMetadata.type, c.generatedMetadata.file_type]).toEqual([name, type, fileType]);
        expect(c.generatedMetadata).toMatchObject({ file_extension: name.split('.')[1] });
        // the mapping of stored (legacy) shapes leaves conforming ones as they are
        expect(conformGeneratedMetadata(c.generatedMetadata)).toEqual(c.generatedMetadata);
      }
    }
    const mail = await parseFile(
      Buffer.from('From: a@example.com\nSubject: jars\n\nThe jars arrive on Monday.'),
      'order.eml',
      'application/octet-stream',
    );
    expect(chunkDocument(mail, 'fast', 'order.eml')[0].generatedMetadata).toMatchObject({
      type: 'text',
      file_type: 'message/rfc822',
    });
  });

  it('shapes stored by earlier releases are answered as declared variants', () => {
    expect(
      conformGeneratedMetadata({
        type: 'markdown',
        file_type: 'text/html',
        word_count: 3,
        heading_context: [{ level: 1, text: 'A' }],
        start_line: 0,
        num_lines: 0,
        frontmatter: {},
      }),
    ).toEqual({
      type: 'markdown',
      file_type: 'text/markdown',
      word_count: 3,
      chunk_headings: [],
      heading_context: [{ level: 1, text: 'A' }],
      start_line: 0,
      num_lines: 0,
      frontmatter: {},
    });
    expect(
      conformGeneratedMetadata({
        type: 'text',
        file_type: 'application/json',
        file_size: 10,
        start_line: 0,
        num_lines: 0,
        file_extension: 'json',
      }),
    ).toEqual({
      type: 'text',
      file_type: 'text/plain',
      file_size: 10,
      start_line: 0,
      num_lines: 0,
      file_extension: 'json',
    });
    expect(conformGeneratedMetadata({ type: 'text', file_type: 'text/csv' })).toMatchObject({
      type: 'text',
      file_type: 'text/plain',
    });
    expect(
      conformGeneratedMetadata({ type: 'pdf', file_type: 'application/pdf', total_pages: 3, page: 2, pages: [2, 3] }),
    ).toEqual({
      type: 'pdf',
      file_type: 'application/pdf',
      total_pages: 3,
      page: 2,
      pages: [2, 3],
    });
    expect(conformGeneratedMetadata({ type: 'spreadsheet' })).toMatchObject({ type: 'text', file_type: 'text/plain' });
    expect(conformGeneratedMetadata(null)).toBeNull();
  });

  it('Markdown: front matter, heading paths, fenced code kept whole, line ranges', async () => {
    const { doc, chunks } = await chunksOf('guide.md', 'text/markdown', 'high_quality');
    expect(doc.frontmatter).toEqual({ title: 'Pantry Guide', tags: ['preserving', 'jars'] });
    const all = chunks.map((c) => c.text).join('\n');
    expect(all).toContain('def brine(litres):\n    return litres * 50');
    const storage = chunks.find((c) => c.text.includes('cool, dark cellar'))!;
    const meta = storage.generatedMetadata as {
      type: string;
      heading_context: unknown[];
      chunk_headings: unknown[];
      start_line: number;
      num_lines: number;
      frontmatter: unknown;
    };
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
    expect(chunks[0].generatedMetadata).toMatchObject({
      type: 'text',
      file_type: 'text/plain',
      start_line: 0,
      num_lines: 5,
      file_extension: 'txt',
    });
    expect(chunks[0].text).toContain('plum season');
  });

  it('HTML: headings and lists, scripts, styles and navigation dropped, entities decoded', async () => {
    const { doc, chunks } = await chunksOf('recipes.html', 'text/html');
    const text = chunks.map((c) => c.text).join('\n');
    expect(text).toContain('Feed the starter the evening before & let it rise overnight.');
    expect(text).toContain('500 g flour');
    expect(text).not.toMatch(/var x|color:red|Home/);
    expect(doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text)).toEqual([
      'Sourdough Bread',
      'Ingredients',
      'Baking',
    ]);
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
    await expect(parseFile(load('corrupt.pdf'), 'corrupt.pdf', 'application/pdf')).rejects.toThrow(
      /Could not read the PDF/,
    );
  });

  it('DOCX: Word heading styles become headings', async () => {
    const { doc, chunks } = await chunksOf(
      'handbook.docx',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
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
    expect(py.chunks[0].generatedMetadata).toMatchObject({
      type: 'code',
      language: 'python',
      start_line: 0,
      file_extension: 'py',
    });
  });

  it('unsupported binary types fail clearly; audio and video without ffmpeg or a recogniser with their own codes', async () => {
    await expect(parseFile(load('image.png'), 'image.png', 'image/png')).rejects.toThrow(/OCR is turned off/); // no OCR engine given
    await expect(parseFile(Buffer.from([1, 2, 0, 3]), 'blob.bin', 'application/octet-stream')).rejects.toThrow(
      UnsupportedFileError,
    );
    await expect(parseFile(Buffer.from('ID3'), 'song.mp3', 'audio/mpeg')).rejects.toMatchObject({
      code: 'audio_not_supported',
      message:
        "Audio files ('audio/mpeg', .mp3) cannot be ingested: this server lacks ffmpeg (to decode it) and a speech recogniser " +
        '(pocketsphinx with pocketsphinx-en-us, or LARDER_TRANSCRIPTION_URL set to an OpenAI-compatible /v1/audio/transcriptions endpoint); ' +
        'install them (apt-get install ffmpeg pocketsphinx pocketsphinx-en-us) and restart it',
    });
    await expect(parseFile(Buffer.from('....ftyp'), 'clip.mp4', 'video/mp4')).rejects.toThrow(UnsupportedMediaError);
    await expect(parseFile(Buffer.from('....ftyp'), 'clip.mp4', 'video/mp4')).rejects.toMatchObject({
      code: 'video_not_supported',
    });
  });

  it('max_chunk_size: every chunk fits it, smaller sizes give more chunks, the overlap keeps its share', async () => {
    expect(chunkingFor('fast', null)).toEqual(CHUNKING.fast);
    expect(chunkingFor('fast', 128)).toEqual({ maxTokens: 128, overlapTokens: 12 });
    expect(chunkingFor('high_quality', 128)).toEqual({ maxTokens: 128, overlapTokens: 32 });
    for (const [name, mime] of [
      ['guide.md', 'text/markdown'],
      ['report.pdf', 'application/pdf'],
      ['inventory.csv', 'text/csv'],
      ['ferment.py', 'text/x-python'],
      ['handbook.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ]) {
      const doc = await parseFile(load(name), name, mime);
      const counts: number[] = [];
      for (const max of [512, 96, 48]) {
        const chunks = chunkDocument(doc, 'fast', name, chunkingFor('fast', max));
        for (const c of chunks) expect([name, max, c.tokens <= max]).toEqual([name, max, true]);
        counts.push(chunks.length);
      }
      expect(counts[2]).toBeGreaterThanOrEqual(counts[1]);
      expect(counts[1]).toBeGreaterThanOrEqual(counts[0]);
    }
    const long = await parseFile(
      Buffer.from(
        Array.from({ length: 30 }, (_, i) => `Paragraph ${i} about brine, jars and cellars. `.repeat(5)).join('\n\n'),
      ),
      'long.txt',
      'text/plain',
    );
    expect(chunkDocument(long, 'fast', 'long.txt', chunkingFor('fast', 64)).length).toBeGreaterThan(
      3 * chunkDocument(long, 'fast', 'long.txt').length,
    );
    // the overlap carried into a chunk never pushes it over the size (it is dropped instead)
    for (const max of [32, 40, 64])
      for (const c of chunkDocument(long, 'fast', 'long.txt', chunkingFor('fast', max)))
        expect([max, c.tokens <= max]).toEqual([max, true]);
  });

  it('the embedded text gets the file context (file name, title, heading path) and metadata lines; the chunk text never does', async () => {
    const filler = (topic: string) =>
      `${topic} keeps for a year when the jars are sealed while hot and stored away from light. `.repeat(20);
    const md = `---\ntitle: Pantry Guide\n---\n# Pantry Guide\n\n${filler('Jam')}\n\n## Pickles\n\n${filler('Brine')}\n\n### Storage\n\nKeep jars in a cool, dark cellar. ${filler('Cellar')}\n`;
    const doc = await parseFile(Buffer.from(md), 'guide.md', 'text/markdown');
    const storage = chunkDocument(doc, 'high_quality', 'guide.md').find(
      (c) => c.text.includes('Cellar keeps') && !c.text.startsWith('#'),
    )!;
    expect(storage.context).toEqual({ title: 'Pantry Guide', headings: ['Pantry Guide', 'Pickles', 'Storage'] });
    const path = 'guide.md > Pantry Guide > Pickles > Storage'; // the title equals the first heading: once
    expect(storage.embedText).toBe(`${path}\n\n${storage.text}`); // high_quality embeds its file context anyway
    expect(
      embeddingInput(storage, { filename: 'guide.md', mode: 'fast', fileContext: true, metadataLines: 'shelf: B2' }),
    ).toBe(`${path}\nshelf: B2\n\n${storage.text}`);
    expect(
      embeddingInput(storage, { filename: 'guide.md', mode: 'fast', fileContext: false, metadataLines: 'shelf: B2' }),
    ).toBe(`shelf: B2\n\n${storage.text}`);
    expect(embeddingInput(storage, { filename: 'guide.md', mode: 'fast', fileContext: false })).toBe(storage.text);
    const html = await chunksOf('recipes.html', 'text/html');
    expect(html.chunks[0].context.title).toBeTruthy();
  });

  it('long documents are cut under the token budget with overlap; the modes differ', async () => {
    const para = (i: number) =>
      `Paragraph ${i}. ` + 'Preserved plums taste of late summer and keep for a year in the cellar. '.repeat(6);
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
    expect(chunkDocument(doc, 'high_quality', 'long.txt').length).toBeGreaterThan(
      chunkDocument(doc, 'fast', 'long.txt').length,
    );
  });

  it('a chosen chunk size (OpenAI static chunking) replaces the mode’s budget and overlap; the artifact key tells them apart', async () => {
    const text = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i}. ` + 'Dried apricots keep their colour when they are sulphured first. '.repeat(5),
    ).join('\n\n');
    const doc = await parseFile(Buffer.from(text), 'long.txt', 'text/plain');
    const small = chunkDocument(doc, 'fast', 'long.txt', { maxTokens: 100, overlapTokens: 0 });
    for (const c of small) expect(estimateTokens(c.text)).toBeLessThanOrEqual(100);
    expect(small.length).toBeGreaterThan(chunkDocument(doc, 'fast', 'long.txt').length);
    // overlap is carried where the budget leaves room for it: short paragraphs here
    const short = await parseFile(
      Buffer.from(Array.from({ length: 60 }, (_, i) => `Jar ${i} holds apricots in light syrup.`).join('\n\n')),
      'jars.txt',
      'text/plain',
    );
    const apart = chunkDocument(short, 'fast', 'jars.txt', { maxTokens: 100, overlapTokens: 0 });
    const overlapping = chunkDocument(short, 'fast', 'jars.txt', { maxTokens: 100, overlapTokens: 50 });
    expect(overlapping.length).toBeGreaterThan(apart.length);
    expect(overlapping[1].text).toContain(overlapping[0].text.split('\n\n').pop());
    expect(chunkingKey('fast')).toBe('fast');
    expect(chunkingKey('fast', CHUNKING.fast)).toBe('fast'); // the mode's own sizes reuse its artifacts
    expect(chunkingKey('fast', { maxTokens: 100, overlapTokens: 50 })).toBe('fast:100:50');
  });
});
