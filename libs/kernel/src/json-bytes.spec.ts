import { jsonbParameter, jsonBytes } from './json-bytes';

describe('a JSON body as bytes', () => {
  const same = (body: unknown) => expect(jsonBytes(body).toString('utf8')).toBe(JSON.stringify(body) ?? '');

  it('is JSON.stringify’s text, in UTF-8', () => {
    same({ object: 'list', data: [{ a: 1, b: 'é – 😀', c: null }, { d: [1, 2, { e: 'x' }] }] });
    same({ object: 'list', data: [], pagination: { has_more: false, first_cursor: null } });
    same({ data: [undefined, () => 1, Symbol('s'), NaN, new Date(0)], skipped: undefined, f: () => 1, last: 'z' });
    same({});
    same({ only: undefined });
    same({ '1': 'integer keys first', b: [['nested', 'arrays']], a: '\u2028\ud800' });
    const b = jsonBytes({ t: 'ü'.repeat(10) });
    expect(b.length).toBe(Buffer.byteLength(JSON.stringify({ t: 'ü'.repeat(10) })));
  });

  it('serializes an array member by member', () => {
    same([{ a: 1 }, 2, undefined, [3, [4]], 'ü']);
    same([]);
  });

  it('is a jsonb parameter in binary form: version 1, then the text', () => {
    const value = [{ a: 'é', b: [1, 2] }, null];
    const b = jsonbParameter(value);
    expect(b[0]).toBe(1);
    expect(b.subarray(1).toString('utf8')).toBe(JSON.stringify(value));
  });

  it('serializes whole what is no plain object, or has its own toJSON', () => {
    same('text');
    same(42);
    same(null);
    same(new Date(0));
    same({ toJSON: () => ({ replaced: true }) });
    same(Object.assign(Object.create(null) as object, { a: [1] }));
    const arr = Object.assign([1, 2], { toJSON: () => 'array' });
    same({ arr });
    class Answer {
      data = [1];
    }
    same(new Answer());
  });

  it('writes a search answer of 100 chunks as JSON.stringify does', () => {
    const data = Array.from({ length: 100 }, (_, i) => ({
      id: `chunk-${i}`,
      chunk_index: i,
      score: 1 / (i + 1),
      text: `Dokument ${i}: naïve café — ${'x'.repeat(1200)}`,
      metadata: { page: i, tags: ['a', 'b'] },
    }));
    same({ object: 'list', data });
  });
});
