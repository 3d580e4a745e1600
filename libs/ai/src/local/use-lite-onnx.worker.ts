import { parentPort, workerData } from 'worker_threads';
import type * as Ort from 'onnxruntime-node';
import { buildUseLiteOnnx } from './use-lite.onnx-graph';
import { UseLiteTokenizer } from './use-lite.tokenizer';

// The thread of UseLiteEmbedder's onnx runtime: builds the model graph in memory from the package's
// weights (`modelJson`), then tokenizes texts and runs it.
// Padded positions are masked (zeroed, and out of attention), as the tfjs graph leaves them out.
const port = parentPort!;
const data = workerData as { modelJson: string; ort: string; threads: number; vocab: string };
const message = (err: unknown) => String((err as Error)?.message || err);

let tokenizer: UseLiteTokenizer | undefined;
const tokenize = () => (tokenizer ??= UseLiteTokenizer.fromFile(data.vocab));
let ort: typeof Ort;
// the graph is built and the runtime loaded here, not at the module's top: either failing answers 'unavailable'
const ready = (async () => {
  const model = buildUseLiteOnnx(data.modelJson);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  ort = require(data.ort) as typeof Ort;
  return ort.InferenceSession.create(model, {
    intraOpNumThreads: data.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
})();
ready.catch(() => undefined);
// the vocabulary is read while the session is created, not on the first text
setImmediate(() => {
  try {
    tokenize();
  } catch {
    // reported with the first text
  }
});

async function answer({ id, texts, max }: { id: number; texts: string[]; max: number }): Promise<void> {
  let session: Ort.InferenceSession;
  try {
    session = await ready;
  } catch (err) {
    port.postMessage({ id, error: 'unavailable: ' + message(err) });
    return;
  }
  try {
    const encoded = texts.map((t) => tokenize().encode(t, max));
    const batch = encoded.length;
    const tokens = Math.max(1, ...encoded.map((e) => e.length));
    const dense = new Int32Array(batch * tokens);
    const mask = new Float32Array(batch * tokens);
    for (let b = 0; b < batch; b++) {
      const e = encoded[b];
      for (let t = 0; t < e.length; t++) {
        dense[b * tokens + t] = e[t];
        mask[b * tokens + t] = 1;
      }
    }
    const out = await session.run({
      ids: new ort.Tensor('int32', dense, [batch, tokens]),
      mask: new ort.Tensor('float32', mask, [batch, tokens]),
    });
    const result = Float32Array.from(out.embeddings.data as Float32Array);
    port.postMessage({ id, result }, [result.buffer]);
  } catch (err) {
    port.postMessage({ id, error: message(err) });
  }
}

port.on('message', (m: Parameters<typeof answer>[0]) => void answer(m));
