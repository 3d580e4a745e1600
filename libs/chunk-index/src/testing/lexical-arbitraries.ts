/** fast-check arbitraries for the lexical property specs: a skewed vocabulary, chunks, index ops, queries, BM25 parameters. */
import fc from 'fast-check';

// a small vocabulary: stems shared by several forms, stop words, a heading-only word
export const VOCAB =
  'jam jams jamming apple apples garden gardens gardening pectin sugar boil boiled the of until zest café cafe 42 string str'.split(
    ' ',
  );
const STORES = ['s1', 's2', 's3'];
const FILES = ['f1', 'f2', 'f3', 'f4', 'f5', 'f6'];

// skewed: the first words are common, the last rare (so lists differ in length and bounds prune)
const word = fc.nat({ max: 9999 }).map((x) => VOCAB[Math.floor(VOCAB.length * (x / 10000) ** 2)]);
const text = fc
  .tuple(
    fc.option(fc.array(word, { minLength: 1, maxLength: 3 }), { nil: null }),
    fc.array(word, { minLength: 0, maxLength: 12 }),
  )
  .map(([heading, body]) => (heading ? `# ${heading.join(' ')}\n` : '') + body.join(' '));
// a code chunk defines a name (the symbol field): `function <word>() {` before its text
const chunkArb = fc.record({
  text,
  context: fc.option(fc.array(word, { maxLength: 2 }), { nil: null }),
  defines: fc.option(word, { nil: null }),
});
export const codeText = (c: { text: string; defines: string | null }) =>
  c.defines ? `function ${c.defines}() {\n${c.text}\n}` : c.text;
export const generatedMetadataOf = (c: { context: string[] | null; defines: string | null }) =>
  c.defines
    ? { type: 'code', heading_context: [] }
    : c.context
      ? { heading_context: c.context.map((h) => ({ level: 1, text: h })) }
      : null;
export const op = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      store: fc.constantFrom(...STORES),
      file: fc.constantFrom(...FILES),
      // the path field: a folder named by a word (a file put again may move)
      folder: word,
      chunks: fc.array(chunkArb, { minLength: 1, maxLength: 60 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deleteFile' as const),
      store: fc.constantFrom(...STORES),
      file: fc.constantFrom(...FILES),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteStore' as const), store: fc.constantFrom(...STORES) }) },
);
export const query = fc.record({
  words: fc.array(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 4 }),
  stores: fc.subarray(STORES, { minLength: 1 }),
  include: fc.option(fc.subarray(FILES), { nil: null }),
  exclude: fc.option(fc.subarray(FILES), { nil: null }),
});
export const params = fc.record({
  k1: fc.double({ min: 0.1, max: 3, noNaN: true }),
  b: fc.double({ min: 0, max: 1, noNaN: true }),
  // b for a store of code chunks and for one of multi-chunk files (a store's b follows their shares)
  codeB: fc.double({ min: 0, max: 1, noNaN: true }),
  multiChunkB: fc.double({ min: 0, max: 1, noNaN: true }),
  headingWeight: fc.double({ min: 0.25, max: 4, noNaN: true }),
  exactBonus: fc.constantFrom(0, 0.2, 1),
  // the other forms of a query word's short-form group (`str` beside "string")
  shortFormWeight: fc.constantFrom(0, 0.25, 1),
  stopWords: fc.boolean(),
  blockSize: fc.constantFrom(2, 5, 16, 128),
  // reads in the worker thread (the module loaded there) or on the index's connection
  readWorker: fc.boolean(),
  // term at a time into a flat array (every query), MaxScore with block bounds (none), chosen by cost, or by impacts wherever a list is dense
  scorer: fc.constantFrom(
    'flat' as const,
    'maxscore' as const,
    'cost' as const,
    'impact' as const,
    'preloadedImpact' as const,
    'preloadedMaxScore' as const,
  ),
  // the preload's share of the block cache (preloadLexical) in bytes: a few blocks, or every list
  preloadShare: fc.constantFrom(200, 1 << 30),
});
