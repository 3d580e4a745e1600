import { paginateByCursor, paginateByOffset, ValidationFailedError, decodeCursor } from './index';

const items = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }));
// A listing ordered by id ascending.
const fetch = async ({ cursor, direction, take }: { cursor: Record<string, string | number> | null; direction: 'forward' | 'backward'; take: number }) => {
  const c = cursor ? Number(cursor.id) : null;
  const rows = direction === 'forward' ? items.filter((x) => c === null || x.id > c) : [...items].reverse().filter((x) => c === null || x.id < c);
  return rows.slice(0, take);
};
const cursorOf = (x: { id: number }) => ({ id: x.id });

describe('cursor pagination', () => {
  it('pages forward then backward with has_more following the direction', async () => {
    const p1 = await paginateByCursor({ limit: 3 }, cursorOf, fetch, async () => items.length);
    expect(p1.data.map((x) => x.id)).toEqual([1, 2, 3]);
    expect(p1.pagination.has_more).toBe(true);
    expect(p1.pagination.total).toBeUndefined();
    const p2 = await paginateByCursor({ limit: 3, after: p1.pagination.last_cursor }, cursorOf, fetch);
    expect(p2.data.map((x) => x.id)).toEqual([4, 5, 6]);
    const p3 = await paginateByCursor({ limit: 3, after: p2.pagination.last_cursor, include_total: true }, cursorOf, fetch, async () => 7);
    expect(p3.data.map((x) => x.id)).toEqual([7]);
    expect(p3.pagination).toMatchObject({ has_more: false, total: 7 });
    const back = await paginateByCursor({ limit: 3, before: p3.pagination.first_cursor }, cursorOf, fetch);
    expect(back.data.map((x) => x.id)).toEqual([4, 5, 6]);
    expect(back.pagination.has_more).toBe(true);
    const back2 = await paginateByCursor({ limit: 3, before: p1.pagination.last_cursor }, cursorOf, fetch);
    expect(back2.data.map((x) => x.id)).toEqual([1, 2]);
    expect(back2.pagination.has_more).toBe(false);
  });

  it('returns null cursors for an empty page', async () => {
    const p = await paginateByCursor({ limit: 3, after: Buffer.from('{"id":99}').toString('base64url') }, cursorOf, fetch);
    expect(p).toEqual({ object: 'list', data: [], pagination: { has_more: false, first_cursor: null, last_cursor: null } });
  });

  it('rejects after and before together, and garbage cursors, with 422', async () => {
    await expect(paginateByCursor({ after: 'a', before: 'b' }, cursorOf, fetch)).rejects.toBeInstanceOf(ValidationFailedError);
    expect(() => decodeCursor('%%%', 'after')).toThrow(ValidationFailedError);
  });
});

describe('limit/offset pagination', () => {
  it('always returns total and offset', async () => {
    const p = await paginateByOffset({ limit: 2, offset: 4 }, async ({ limit, offset }) => ({ rows: items.slice(offset, offset + limit), total: items.length }));
    expect(p).toEqual({ object: 'list', data: [{ id: 5 }, { id: 6 }], pagination: { limit: 2, offset: 4, total: 7 } });
  });

  it('refuses a forged cursor (a sort key of the wrong form) with a 422, before any query', async () => {
    const forged = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    let fetched = 0;
    const fetchCounting = async () => (fetched++, []);
    for (const after of [forged({ c: '2020' }), forged({ c: '2020-01-01T00:00:00.000Z', id: 'not-a-uuid' }), forged({ t: 5 }), forged({ id: [1] }), 'not base64 json']) {
      await expect(paginateByCursor({ after }, cursorOf, fetchCounting)).rejects.toBeInstanceOf(ValidationFailedError);
    }
    expect(fetched).toBe(0);
    await expect(paginateByCursor({ after: forged({ c: '2020-01-01T00:00:00.000Z', id: '5d0b4f0e-2c3a-4e7b-9a34-1b2c3d4e5f60' }) }, cursorOf, fetchCounting)).resolves.toMatchObject({
      object: 'list',
    });
  });
});
