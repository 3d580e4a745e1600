import { IvfIndex, kmeans, normalize } from './ivf';
import { fillTrained } from './ivf.training';
import { migrateChunkDatabase, openChunkDatabase } from './sqlite.schema';

/** A seeded generator, so that a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
}

describe('IVF training: every stored vector into the freshly trained lists (fillTrained)', () => {
  it('puts each vector of the model in its nearest list with its store group and code, skipping other widths', () => {
    const db = openChunkDatabase(':memory:');
    migrateChunkDatabase(db);
    const dims = 24;
    const r = rng(7);
    const ins = db.prepare(
      `INSERT INTO chunks (id, store_id, file_id, chunk_index, text, offset, mime_type, model, vector) VALUES (?, ?, 'f', ?, 't', 0, 'text/plain', ?, ?)`,
    );
    const vectors = new Map<number, Float32Array>();
    for (let id = 1; id <= 900; id++) {
      const wrongWidth = id % 97 === 0;
      const v = Float32Array.from({ length: wrongWidth ? dims + 8 : dims }, () => r() * 3);
      const model = id % 50 === 0 ? 'other' : 'm';
      ins.run(id, id % 3 ? 'store-a' : 'store-b', id, model, Buffer.from(v.buffer));
      if (!wrongWidth && model === 'm') vectors.set(id, v);
    }
    const sample = [...vectors.values()].slice(0, 200).map(normalize);
    const ivf = new IvfIndex(dims, kmeans(sample, 16));
    const groups = new Map([
      ['store-a', 3],
      ['store-b', 5],
    ]);
    // fewer than the rows asked for: the arrays grow as rows come
    const { ids, lists } = fillTrained(db, 'm', ivf, 100, (s) => groups.get(s)!);

    expect([...ids].sort((a, b) => a - b)).toEqual([...vectors.keys()]);
    expect(ivf.size).toBe(vectors.size);
    const code = new Int8Array(ivf.stride);
    const seen = new Map<number, { list: number; group: number; code: Uint8Array }>();
    for (let l = 0; l < ivf.nlist; l++) {
      const e = ivf.exportList(l);
      e.ids.forEach((id, j) =>
        seen.set(id, { list: l, group: e.groups[j], code: e.codes.subarray(j * ivf.stride, (j + 1) * ivf.stride) }),
      );
    }
    ids.forEach((id, i) => {
      const unit = normalize(vectors.get(id)!);
      expect(lists[i]).toBe(ivf.listOf(unit));
      const got = seen.get(id)!;
      expect(got.list).toBe(lists[i]);
      expect(got.group).toBe(id % 3 ? 3 : 5);
      ivf.quantize(unit, code);
      expect([...new Int8Array(got.code.buffer, got.code.byteOffset, got.code.byteLength)]).toEqual([...code]);
    });
    // the store groups counted as the catalogue reads them
    expect(ivf.groupCounts()).toEqual(
      new Map([
        [3, [...vectors.keys()].filter((id) => id % 3).length],
        [5, [...vectors.keys()].filter((id) => !(id % 3)).length],
      ]),
    );
    db.close();
  });
});
