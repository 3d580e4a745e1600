import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { writeTinyOnnxModel } from '../testing/tiny-onnx-model';
import { OnnxEmbedder } from './onnx.embedder';

describe('OnnxEmbedder on a tiny generated model (onnxruntime-node, no network)', () => {
  const root = mkdtempSync(join(tmpdir(), 'larder-onnx-'));
  const dir = join(root, 'tiny-bert');
  let table: Float32Array;
  let vocab: string[];
  let embedder: OnnxEmbedder;
  const DIM = 16;

  beforeAll(() => {
    ({ table, vocab } = writeTinyOnnxModel(
      dir,
      ['pickled', 'cucumbers', 'ferment', 'in', 'brine', 'jam', 'needs', 'sugar'],
      DIM,
    ));
    embedder = new OnnxEmbedder({ modelDir: dir, batchSize: 3 });
  });
  afterAll(async () => {
    await embedder.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** The expected vector: mean of the token rows ([CLS] … [SEP]), L2-normalized. */
  const expected = (words: string[]) => {
    const ids = [2, ...words.map((w) => vocab.indexOf(w)), 3];
    const v = new Float32Array(DIM);
    for (const id of ids) for (let d = 0; d < DIM; d++) v[d] += table[id * DIM + d] / ids.length;
    const n = Math.hypot(...v);
    return Array.from(v, (x) => x / n);
  };

  it('reads its dimension and names its model from the directory', () => {
    expect(embedder.dimensions).toBe(DIM);
    expect(embedder.model).toBe('onnx:tiny-bert');
  });

  it('tokenizes, runs the graph and mean-pools exactly; padding in a batch changes nothing', async () => {
    const texts = ['Pickled cucumbers ferment in brine', 'jam', 'Jam needs sugar', 'brine', 'ferment ferment'];
    const vectors = await embedder.embed(texts, 'document');
    expect(vectors).toHaveLength(5);
    const words = texts.map((t) => t.toLowerCase().split(' '));
    vectors.forEach((v, i) => {
      expect(v).toHaveLength(DIM);
      Array.from(v).forEach((x, d) => expect(x).toBeCloseTo(expected(words[i])[d], 5));
    });
    const [alone] = await embedder.embed(['jam'], 'query');
    Array.from(alone).forEach((x, d) => expect(x).toBeCloseTo(vectors[1][d], 6));
  });

  it('refuses a directory that is not a model export', () => {
    expect(() => new OnnxEmbedder({ modelDir: root })).toThrow(/config\.json/);
  });
});
