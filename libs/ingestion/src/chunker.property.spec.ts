import fc from 'fast-check';
import { Chunk, chunkDocument, chunkingFor, ChunkingMode } from './chunker';
import { parseFile } from './parse';

/**
 * Every chunk points at exactly its own text: `offset` is where its text begins in the document,
 * `start_line` (0-based) the line of that character, and `num_lines` reaches the line of its last
 * character. Checked over random code, Markdown and plain text, with budgets small enough that
 * blocks are split and chunks overlap. (Blocks joined into one chunk are separated by whitespace
 * the document may write differently, so whitespace is skipped when the text is walked.)
 */

const WORDS = [
  'jam',
  'plum',
  'sugar',
  'boil',
  'e.g.',
  'set.',
  'done!',
  'why?',
  '...',
  'x2',
  'quince',
  'pectin,',
  'jar',
  '"sealed"',
  'it’s',
  '(hot)',
  'apricot',
];
const word = fc.constantFrom(...WORDS);
const line = (max: number) => fc.array(word, { minLength: 1, maxLength: max }).map((ws) => ws.join(' '));
const indent = fc.constantFrom('', '', '', '  ', '    ', '\t');

const plainText = fc
  .array(
    fc.array(
      fc.tuple(indent, line(14)).map(([i, l]) => i + l),
      { minLength: 1, maxLength: 30 },
    ),
    { minLength: 1, maxLength: 8 },
  )
  .chain((paras) =>
    fc
      .array(fc.constantFrom('\n\n', '\n\n\n', '\n  \n'), { minLength: paras.length, maxLength: paras.length })
      .map((gaps) => paras.map((p, i) => p.join('\n') + gaps[i]).join('')),
  );

const markdownBlock = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 3 }), line(5)).map(([l, t]) => `${'#'.repeat(l)} ${t}`),
  fc
    .array(
      fc.tuple(indent, line(14)).map(([i, l]) => i + l),
      { minLength: 1, maxLength: 20 },
    )
    .map((ls) => ls.join('\n')),
  fc
    .array(
      line(10).map((l) => `- ${l}`),
      { minLength: 1, maxLength: 12 },
    )
    .map((ls) => ls.join('\n')),
  fc
    .array(
      fc.tuple(indent, line(8)).map(([i, l]) => `${i}${l.replace(/[.!?]/g, ';')}`),
      { minLength: 1, maxLength: 60 },
    )
    .map((ls) => ['```ts', ...ls, '```'].join('\n')),
);
const markdown = fc
  .tuple(fc.boolean(), fc.array(markdownBlock, { minLength: 1, maxLength: 12 }))
  .map(([front, blocks]) => (front ? '---\ntitle: Preserves\ntags: [jam]\n---\n' : '') + blocks.join('\n\n') + '\n');

const definition = fc
  .tuple(
    fc.constantFrom('def', 'class'),
    fc.integer({ min: 0, max: 99 }),
    fc.array(line(9), { minLength: 1, maxLength: 50 }),
    fc.constantFrom('\n', '\n\n', '\n\n\n'),
  )
  .map(
    ([kw, n, body, gap]) =>
      `${kw} thing_${n}(${kw === 'def' ? 'x' : ''}):\n${body.map((b) => `    ${b.replace(/^[@#]/, '')}`).join('\n')}${gap}`,
  );
const python = fc
  .tuple(fc.constantFrom('', 'import os\n\n', '\n\n'), fc.array(definition, { minLength: 1, maxLength: 6 }))
  .map(([head, defs]) => head + defs.join(''));

/** The end of `text` walked along `content` from `offset`, skipping whitespace on both sides; -1 where they differ. */
function walk(content: string, offset: number, text: string): number {
  let i = offset;
  for (let j = 0; j < text.length; j++) {
    if (/\s/.test(text[j])) continue;
    while (i < content.length && /\s/.test(content[i])) i++;
    if (content[i] !== text[j]) return -1;
    i++;
  }
  return i;
}

const newlines = (s: string) => (s.match(/\n/g) ?? []).length;

function expectOwnText(content: string, chunks: Chunk[]): void {
  for (const c of chunks) {
    const meta = c.generatedMetadata as { start_line: number; num_lines: number };
    const where = { chunk: c.chunkIndex, offset: c.offset, text: c.text.slice(0, 80) };
    expect({ ...where, at: content[c.offset] }).toEqual({ ...where, at: c.text[0] });
    const end = walk(content, c.offset, c.text);
    expect({ ...where, walked: end >= 0 }).toEqual({ ...where, walked: true });
    const first = newlines(content.slice(0, c.offset));
    const last = newlines(content.slice(0, end - 1));
    expect({ ...where, start_line: meta.start_line, num_lines: meta.num_lines }).toEqual({
      ...where,
      start_line: first,
      num_lines: last - first + 1,
    });
  }
}

async function chunksOf(
  content: string,
  filename: string,
  mime: string,
  mode: ChunkingMode,
  size: number,
): Promise<Chunk[]> {
  const doc = await parseFile(Buffer.from(content), filename, mime);
  return chunkDocument(doc, mode, filename, chunkingFor(mode, size));
}

const setup = fc.tuple(fc.constantFrom<ChunkingMode>('fast', 'high_quality'), fc.integer({ min: 32, max: 160 }));

describe('every chunk points at exactly its own text', () => {
  it('a code block split into pieces: each chunk has its own offset and lines', async () => {
    const content = `def stir(pot):\n${Array.from({ length: 60 }, (_, i) => `    pot.step(${i}, "stir the jam and watch the set")`).join('\n')}\n`;
    const chunks = await chunksOf(content, 'jam.py', 'text/x-python', 'fast', 64);
    expect(chunks.length).toBeGreaterThan(3);
    expect(new Set(chunks.map((c) => c.offset)).size).toBe(chunks.length);
    expect(new Set(chunks.map((c) => (c.generatedMetadata as { start_line: number }).start_line)).size).toBe(
      chunks.length,
    );
    expectOwnText(content, chunks);
  });

  it('plain text', async () => {
    await fc.assert(
      fc.asyncProperty(plainText, setup, async (content, [mode, size]) =>
        expectOwnText(content, await chunksOf(content, 'notes.txt', 'text/plain', mode, size)),
      ),
      { numRuns: 150 },
    );
  });

  it('Markdown (front matter, headings, lists, fenced code)', async () => {
    await fc.assert(
      fc.asyncProperty(markdown, setup, async (content, [mode, size]) =>
        expectOwnText(content, await chunksOf(content, 'guide.md', 'text/markdown', mode, size)),
      ),
      { numRuns: 150 },
    );
  });

  it('code (definitions split when they are larger than a chunk)', async () => {
    await fc.assert(
      fc.asyncProperty(python, setup, async (content, [mode, size]) =>
        expectOwnText(content, await chunksOf(content, 'ferment.py', 'text/x-python', mode, size)),
      ),
      { numRuns: 150 },
    );
  });
});
