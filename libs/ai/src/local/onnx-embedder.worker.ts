import { parentPort, workerData } from 'worker_threads';
import { env, pipeline } from '@huggingface/transformers';

// The thread of OnnxEmbedder: the tokenizer and onnxruntime, through @huggingface/transformers with
// remote models disabled (nothing is downloaded, ever).
const port = parentPort!;
const data = workerData as {
  dir: string;
  parent: string;
  name: string;
  dtype: 'fp32' | 'fp16' | 'q8';
  pooling: 'mean' | 'cls';
  queryPrefix: string | null;
};
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = data.parent;
const ready = pipeline('feature-extraction', data.name, { dtype: data.dtype, device: 'cpu' });
ready.catch(() => undefined);

async function answer({
  id,
  texts,
  kind,
  normalize,
}: {
  id: number;
  texts: string[];
  kind: 'document' | 'query';
  normalize?: boolean;
}): Promise<void> {
  try {
    const extract = await ready;
    const input = kind === 'query' && data.queryPrefix ? texts.map((t) => data.queryPrefix + t) : texts;
    const out = await extract(input, { pooling: data.pooling, normalize: normalize !== false });
    const flat = Float32Array.from(out.data as Float32Array);
    port.postMessage({ id, flat }, [flat.buffer]);
  } catch (err) {
    port.postMessage({ id, error: 'ONNX model in ' + data.dir + ': ' + String((err as Error)?.message || err) });
  }
}

port.on('message', (m: Parameters<typeof answer>[0]) => void answer(m));
