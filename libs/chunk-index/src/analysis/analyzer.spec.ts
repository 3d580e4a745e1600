import { analyzeChunk, EXACT, queryShortForms, queryTerms, queryWords, tokens, words } from './analyzer';

const terms = (text: string) => [...analyzeChunk(text).terms.keys()].filter((t) => !t.startsWith(EXACT)).sort();

describe('analyzer: identifiers whole and split', () => {
  it.each([
    ['getUserName', ['get', 'user', 'name'], 'getusername'],
    ['HTMLParser', ['html', 'parser'], 'htmlparser'],
    ['parse_http_header', ['parse', 'http', 'header'], 'parse_http_header'],
    ['kebab-case-name', ['kebab', 'case', 'name'], 'kebab-case-name'],
    ['fs.readFileSync', ['fs', 'read', 'file', 'sync'], 'fs.readfilesync'],
    ['src/app/main.ts', ['src', 'app', 'main', 'ts'], 'src/app/main.ts'],
    ['1.2.3', ['1', '2', '3'], '1.2.3'],
    ['utf8', ['utf8'], null],
    ['getHTTP2Client', ['get', 'http2', 'client'], 'gethttp2client'],
    ['Café', ['cafe'], null],
    ['IDs', ['ids'], null],
  ])('%s → parts %j, whole %s', (text, parts, whole) => {
    expect(tokens(text)).toEqual([{ parts, whole }]);
  });

  it('keeps sentence punctuation out of tokens', () => {
    expect(tokens('Call it. Then, e.g. stop')).toEqual([
      { parts: ['call'], whole: null },
      { parts: ['it'], whole: null },
      { parts: ['then'], whole: null },
      { parts: ['e', 'g'], whole: 'e.g' },
      { parts: ['stop'], whole: null },
    ]);
    expect(words('readFile(path), then_close.')).toEqual(['read', 'file', 'path', 'then', 'close']);
    // a dash or an ellipsis between words joins nothing
    expect(tokens('thrust--the end..Next').map((t) => t.whole)).toEqual([null, null, null, null]);
  });

  it('indexes each part stemmed and the whole, counting the parts in the length', () => {
    const a = analyzeChunk('parseHttpHeaders reads headers');
    expect(terms('parseHttpHeaders reads headers')).toEqual(['header', 'http', 'pars', 'parsehttphead', 'read']);
    expect(a.terms.get('header')).toEqual({ body: 2, heading: 0 });
    expect(a.length).toBe(5);
  });

  it('analyzes a query the same way, so a split or a whole identifier finds the other', () => {
    const q = queryTerms('parseHttpHeaders', { stopWords: true, exactBonus: 0 });
    expect([...q.keys()].sort()).toEqual(['header', 'http', 'pars', 'parsehttphead']);
    const split = queryTerms('parse http headers', { stopWords: true, exactBonus: 0 });
    for (const t of split.keys()) expect(analyzeChunk('function parseHttpHeaders() {}').terms.has(t)).toBe(true);
  });

  it('drops stop-word parts from a query but keeps the whole', () => {
    expect([...queryTerms('isEmpty', { stopWords: true, exactBonus: 0 }).keys()].sort()).toEqual(['empti', 'isempti']);
  });

  it('takes a dotted abbreviation as one word, not its letters; e.g. and i.e. are stop words', () => {
    const keys = (text: string) => [...queryTerms(text, { stopWords: true, exactBonus: 0 }).keys()].sort();
    expect(keys('group theory, e.g. for U.S. patents, i.e. law')).toEqual(['group', 'law', 'patent', 'theori', 'u.s']);
    // identifiers, versions and tokens joined otherwise keep their parts (`a` and `i` are stop words)
    expect(keys('I/O in src/a.ts, v1.2.3 and fooBar')).toEqual(
      ['2', '3', 'bar', 'foo', 'foobar', 'i/o', 'o', 'src', 'src/a.ts', 'ts', 'v1', 'v1.2.3'].sort(),
    );
    // a query of nothing else still searches them
    expect(keys('e.g.')).toEqual(['e.g']);
    // the words counted for feedback: an abbreviation is one word, other tokens their parts
    expect(queryWords('e.g. U.S. fooBar', false)).toEqual(['e.g', 'u.s', 'foo', 'bar']);
    expect(queryWords('e.g. U.S. fooBar', true)).toEqual(['e.g', 'u.s', 'foo', 'bar', 'foobar']);
  });

  it("searches a word's short forms beside it, weighted, and a short form's word", () => {
    const q = queryTerms('the length of a string', { stopWords: true, exactBonus: 0, shortFormWeight: 0.25 });
    expect(Object.fromEntries(q)).toEqual({ length: 1, len: 0.25, string: 1, str: 0.25 });
    // a short form searches its word and the group's other forms; found in a split identifier
    expect(Object.fromEntries(queryTerms('cfg', { stopWords: true, exactBonus: 0, shortFormWeight: 0.5 }))).toEqual({
      cfg: 1,
      configur: 0.5,
      config: 0.5,
      conf: 0.5,
    });
    expect(analyzeChunk('const strLen = (s) => s.length').terms.has('str')).toBe(true);
    // none without the weight, and none for a token's whole
    expect([...queryTerms('string', { stopWords: true, exactBonus: 0 }).keys()]).toEqual(['string']);
    expect(queryShortForms('maxLength of strings', true)).toEqual(['maximum', 'len', 'str']);
    expect(queryShortForms('unrelated words', true)).toEqual([]);
  });
});
