import { parentPort, workerData } from 'worker_threads';
import { AutoModelForSequenceClassification, AutoTokenizer, env, Tensor } from '@huggingface/transformers';

// The thread of OnnxReranker: the tokenizer and the cross-encoder, through @huggingface/transformers with
// remote models disabled (nothing is downloaded, ever). One logit → its sigmoid; several → the softmax
// probability of the relevant label.
const port = parentPort!;
const data = workerData as {
  dir: string;
  parent: string;
  name: string;
  dtype: 'fp32' | 'fp16' | 'q8';
  maxLength: number;
  positive: number;
};
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = data.parent;
const ready = Promise.all([
  AutoTokenizer.from_pretrained(data.name),
  AutoModelForSequenceClassification.from_pretrained(data.name, { dtype: data.dtype, device: 'cpu' }),
]);
ready.catch(() => undefined);

async function answer({ id, query, documents }: { id: number; query: string; documents: string[] }): Promise<void> {
  try {
    const [tokenizer, model] = await ready;
    const inputs = tokenizer(
      documents.map(() => query),
      { text_pair: documents, padding: true, truncation: true, max_length: data.maxLength },
    );
    const { logits } = (await model(inputs)) as { logits: Tensor };
    const [rows, width] = logits.dims;
    if (rows !== documents.length) throw new Error(`the model scored ${rows} pairs of ${documents.length}`);
    const values = logits.data as Float32Array;
    const result: number[] = [];
    for (let r = 0; r < rows; r++) {
      const row = Array.from(values.slice(r * width, (r + 1) * width), Number);
      if (width === 1) result.push(1 / (1 + Math.exp(-row[0])));
      else {
        const m = Math.max(...row);
        const e = row.map((x) => Math.exp(x - m));
        result.push(e[Math.min(data.positive, width - 1)] / e.reduce((a, b) => a + b, 0));
      }
    }
    port.postMessage({ id, result });
  } catch (err) {
    port.postMessage({ id, error: `ONNX cross-encoder in ${data.dir}: ${String((err as Error)?.message || err)}` });
  }
}

port.on('message', (m: Parameters<typeof answer>[0]) => void answer(m));
