import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { sigmoid } from '../reranker.port';
import { writeTinyCrossEncoder } from '../testing/tiny-onnx-model';
import { OnnxReranker } from './onnx.reranker';

describe('OnnxReranker on a tiny generated cross-encoder (onnxruntime-node, no network)', () => {
  const root = mkdtempSync(join(tmpdir(), 'larder-onnx-rerank-'));
  const dir = join(root, 'tiny-cross-encoder');
  let reranker: OnnxReranker;
  let short: OnnxReranker;

  beforeAll(() => {
    writeTinyCrossEncoder(dir, [
      'pickled',
      'cucumbers',
      'ferment',
      'in',
      'brine',
      'jam',
      'needs',
      'sugar',
      'cabbage',
      'salt',
    ]);
    reranker = new OnnxReranker({ modelDir: dir, batchSize: 2 });
    short = new OnnxReranker({ modelDir: dir, maxLength: 8 });
  });
  afterAll(async () => {
    await reranker.close();
    await short.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('names its model from the directory', () => {
    expect(reranker.model).toBe('onnx:tiny-cross-encoder');
    expect(reranker.maxLength).toBe(512);
  });

  it('scores every (query, document) pair in input order, across batches of different padding, as sigmoid(logit)', async () => {
    // the model's logit is 2 · (words shared by query and document) − 1
    const docs = [
      'Pickled cucumbers ferment in brine',
      'Jam needs sugar',
      'cabbage in salt',
      '',
      'brine brine cucumbers',
    ];
    const scores = await reranker.score('Cucumbers in brine', docs);
    const shared = [3, 0, 1, 0, 2];
    expect(scores).toHaveLength(docs.length);
    scores.forEach((s, i) => expect(s).toBeCloseTo(sigmoid(2 * shared[i] - 1), 6));
    expect(scores.every((s) => s > 0 && s < 1)).toBe(true);
    // the same pair alone scores the same as in a padded batch
    const [alone] = await reranker.score('Cucumbers in brine', ['cabbage in salt']);
    expect(alone).toBeCloseTo(scores[2], 6);
  });

  it('truncates a pair to maxLength tokens: words past the limit count for nothing', async () => {
    // [CLS] cucumbers in brine [SEP] = 5 tokens; 8 leaves the document three
    const [late, early] = await short.score('cucumbers in brine', ['jam needs sugar brine', 'brine jam needs sugar']);
    expect(late).toBeCloseTo(sigmoid(-1), 6);
    expect(early).toBeCloseTo(sigmoid(1), 6);
    const [full] = await reranker.score('cucumbers in brine', ['jam needs sugar brine '.repeat(200)]);
    expect(full).toBeCloseTo(sigmoid(1), 6);
  });

  it('refuses a directory that is not a model export', () => {
    expect(() => new OnnxReranker({ modelDir: root })).toThrow(/config\.json/);
  });
});
