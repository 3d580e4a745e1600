import {
  IdCursorFetch,
  paginateByCursor,
  paginateByIdCursor,
  paginateByOffset,
  ValidationFailedError,
  decodeCursor,
} from './index';

const items = Array.from({ length: 7 }, (_, i) => ({ id: i + 1 }));
// A listing ordered by id ascending.
const fetch = async ({
  cursor,
  direction,
  take,
}: {
  cursor: Record<string, string | number> | null;
  direction: 'forward' | 'backward';
  take: number;
}) => {
  const c = cursor ? Number(cursor.id) : null;
  const rows =
    direction === 'forward'
      ? items.filter((x) => c === null || x.id > c)
      : [...items].reverse().filter((x) => c === null || x.id < c);
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
    const p3 = await paginateByCursor(
      { limit: 3, after: p2.pagination.last_cursor, include_total: true },
      cursorOf,
      fetch,
      async () => 7,
    );
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
    const p = await paginateByCursor(
      { limit: 3, after: Buffer.from('{"id":99}').toString('base64url') },
      cursorOf,
      fetch,
    );
    expect(p).toEqual({
      object: 'list',
      data: [],
      pagination: { has_more: false, first_cursor: null, last_cursor: null },
    });
  });

  it('rejects after and before together, and garbage cursors, with 422', async () => {
    await expect(paginateByCursor({ after: 'a', before: 'b' }, cursorOf, fetch)).rejects.toBeInstanceOf(
      ValidationFailedError,
    );
    expect(() => decodeCursor('%%%', 'after')).toThrow(ValidationFailedError);
  });
});

describe('limit/offset pagination', () => {
  it('always returns total and offset', async () => {
    const p = await paginateByOffset({ limit: 2, offset: 4 }, async ({ limit, offset }) => ({
      rows: items.slice(offset, offset + limit),
      total: items.length,
    }));
    expect(p).toEqual({ object: 'list', data: [{ id: 5 }, { id: 6 }], pagination: { limit: 2, offset: 4, total: 7 } });
  });

  it('refuses a forged cursor (a sort key of the wrong form) with a 422, before any query', async () => {
    const forged = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    let fetched = 0;
    const fetchCounting = async () => (fetched++, []);
    for (const after of [
      forged({ c: '2020' }),
      forged({ c: '2020-01-01T00:00:00.000Z', id: 'not-a-uuid' }),
      forged({ t: 5 }),
      forged({ id: [1] }),
      'not base64 json',
    ]) {
      await expect(paginateByCursor({ after }, cursorOf, fetchCounting)).rejects.toBeInstanceOf(ValidationFailedError);
    }
    expect(fetched).toBe(0);
    await expect(
      paginateByCursor(
        { after: forged({ c: '2020-01-01T00:00:00.000Z', id: '5d0b4f0e-2c3a-4e7b-9a34-1b2c3d4e5f60' }) },
        cursorOf,
        fetchCounting,
      ),
    ).resolves.toMatchObject({
      object: 'list',
    });
  });
});

describe('id-cursor pagination (OpenAI lists)', () => {
  // ids in creation order; the fetch answers as a keyset query over (created_at, id) would
  const ids = Array.from({ length: 5 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
  const fetch = async (q: IdCursorFetch) => {
    if (q.anchor && !ids.includes(q.anchor)) return null;
    const at = q.anchor ? ids.indexOf(q.anchor) : q.order === 'DESC' ? ids.length : -1;
    const rows = q.cmp === '<' ? ids.slice(0, Math.max(0, at)) : ids.slice(at + 1);
    return (q.order === 'DESC' ? [...rows].reverse() : rows).slice(0, q.take);
  };

  it('pages newest first by default, and oldest first with order asc, with first_id, last_id and has_more', async () => {
    const p1 = await paginateByIdCursor({ limit: 2 }, (x: string) => x, fetch);
    expect(p1).toEqual({ object: 'list', data: [ids[4], ids[3]], first_id: ids[4], last_id: ids[3], has_more: true });
    const p2 = await paginateByIdCursor({ limit: 2, after: p1.last_id! }, (x: string) => x, fetch);
    expect(p2.data).toEqual([ids[2], ids[1]]);
    const p3 = await paginateByIdCursor({ limit: 2, after: p2.last_id! }, (x: string) => x, fetch);
    expect(p3).toMatchObject({ data: [ids[0]], has_more: false });
    expect((await paginateByIdCursor({ limit: 3, order: 'asc' }, (x: string) => x, fetch)).data).toEqual([
      ids[0],
      ids[1],
      ids[2],
    ]);
  });

  it('pages back with before, in the listing order', async () => {
    expect(await paginateByIdCursor({ limit: 2, before: ids[1] }, (x: string) => x, fetch)).toMatchObject({
      data: [ids[3], ids[2]],
      has_more: true,
    });
    expect(await paginateByIdCursor({ limit: 2, order: 'asc', before: ids[3] }, (x: string) => x, fetch)).toMatchObject(
      { data: [ids[1], ids[2]], has_more: true },
    );
  });

  it('an id that is no row of the listing, a non-id, or both cursors are a 422', async () => {
    await expect(
      paginateByIdCursor({ after: '00000000-0000-4000-8000-000000000009' }, (x: string) => x, fetch),
    ).rejects.toMatchObject({ detail: [{ loc: ['query', 'after'] }] });
    await expect(paginateByIdCursor({ before: 'vs_abc' }, (x: string) => x, fetch)).rejects.toMatchObject({
      detail: [{ loc: ['query', 'before'] }],
    });
    await expect(paginateByIdCursor({ after: ids[0], before: ids[1] }, (x: string) => x, fetch)).rejects.toBeInstanceOf(
      ValidationFailedError,
    );
  });
});
