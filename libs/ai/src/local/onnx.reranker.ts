import { existsSync, readFileSync } from 'fs';
import { basename, dirname, join, resolve } from 'path';
import { Reranker, RerankError } from '../reranker.port';
import { ModelWorkerHost } from './worker-host';

export interface OnnxRerankerOptions {
  /**
   * A Hugging Face ONNX export of a cross-encoder (sequence classification: `config.json`,
   * `tokenizer.json`, `tokenizer_config.json`, `onnx/model*.onnx`), e.g. mxbai-rerank-xsmall-v1,
   * bge-reranker-base or ms-marco-MiniLM-L-6-v2 exported with optimum.
   */
  modelDir: string;
  /** Its name in logs; defaults to `onnx:<directory name>`. */
  model?: string | null;
  /** `fp32` loads onnx/model.onnx, `q8` onnx/model_quantized.onnx, `fp16` onnx/model_fp16.onnx. */
  dtype?: 'fp32' | 'fp16' | 'q8';
  /** Pairs per model call. */
  batchSize?: number;
  /** Tokens of one (query, document) pair; longer pairs lose the document's tail. At most the model's own limit. */
  maxLength?: number;
}

interface ModelConfig {
  num_labels?: number;
  id2label?: Record<string, string>;
  max_position_embeddings?: number;
}

/** Which logit of a multi-label classifier means "relevant": a label named so, else the last. */
function positiveLabel(config: ModelConfig): { labels: number; positive: number } {
  const names = config.id2label ? Object.entries(config.id2label) : [];
  const labels = names.length || config.num_labels || 1;
  const named = names.find(([, n]) => /^(relevant|positive|entailment|true|yes|label_1|1)$/i.test(n));
  return { labels, positive: named ? Number(named[0]) : labels - 1 };
}

/**
 * A local cross-encoder the operator supplies as an ONNX export, run by onnxruntime-node through
 * @huggingface/transformers with remote models disabled (nothing is downloaded). Each (query,
 * document) pair is tokenized as one sequence (`[CLS] query [SEP] document [SEP]` and its token
 * types), truncated to `maxLength` tokens, and scored in batches: one logit → its sigmoid; several →
 * the softmax probability of the relevant label. Tokenizer and runtime live in a worker thread.
 */
export class OnnxReranker implements Reranker {
  readonly model: string;
  readonly batchSize: number;
  readonly maxLength: number;
  private readonly host: ModelWorkerHost<{ query: string; documents: string[] }, number[]>;

  constructor(options: OnnxRerankerOptions) {
    const dir = resolve(options.modelDir);
    const configPath = join(dir, 'config.json');
    if (!existsSync(configPath))
      throw new Error(
        `LARDER_RERANKER_MODEL_DIR ${dir} has no config.json (expected a Hugging Face ONNX export of a cross-encoder)`,
      );
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as ModelConfig;
    const { labels, positive } = positiveLabel(config);
    this.model = options.model || `onnx:${basename(dir)}`;
    this.batchSize = Math.max(1, options.batchSize ?? 16);
    this.maxLength = Math.max(8, Math.min(options.maxLength ?? 512, config.max_position_embeddings ?? 512));
    this.host = new ModelWorkerHost(
      require.resolve('./onnx-reranker.worker'),
      {
        dir,
        parent: dirname(dir) + '/',
        name: basename(dir),
        dtype: options.dtype ?? 'fp32',
        maxLength: this.maxLength,
        labels,
        positive,
      },
      (message, retryable) => new RerankError(`local rerank failed: ${message}`, retryable),
    );
  }

  async score(query: string, documents: string[]): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < documents.length; i += this.batchSize) {
      const batch = documents.slice(i, i + this.batchSize).map((d) => d || ' ');
      const scores = await this.host.run({ query: query || ' ', documents: batch });
      if (scores.length !== batch.length || scores.some((s) => !Number.isFinite(s)))
        throw new RerankError(`local rerank returned ${scores.length} scores for ${batch.length} documents`, false);
      out.push(...scores);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.host.close();
  }
}
