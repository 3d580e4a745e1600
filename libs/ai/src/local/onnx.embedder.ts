import { existsSync, readFileSync } from 'fs';
import { basename, dirname, join, resolve } from 'path';
import { EmbedOptions, Embedder } from '../embedder.port';
import { EmbeddingWorkerHost } from './worker-host';

export interface OnnxEmbedderOptions {
  /** A Hugging Face ONNX export: config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx. */
  modelDir: string;
  /** Recorded on every chunk; defaults to `onnx:<directory name>`. */
  model?: string | null;
  /** `fp32` loads onnx/model.onnx, `q8` onnx/model_quantized.onnx, `fp16` onnx/model_fp16.onnx. */
  dtype?: 'fp32' | 'fp16' | 'q8';
  /** `mean` (MiniLM, bge-small with mean…) or `cls` (mxbai-embed, bge). */
  pooling?: 'mean' | 'cls';
  /** Prepended to queries (mxbai: "Represent this sentence for searching relevant passages: "). */
  queryPrefix?: string | null;
  batchSize?: number;
}

/**
 * A local sentence-embedding model the operator supplies as an ONNX export, run by onnxruntime-node
 * through @huggingface/transformers with remote models disabled: nothing is downloaded, ever. The
 * tokenizer and runtime live in a worker thread, so the event loop stays free while it embeds.
 */
export class OnnxEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  readonly batchSize: number;
  readonly maxInputTokens: number;
  private readonly host: EmbeddingWorkerHost;

  constructor(private readonly options: OnnxEmbedderOptions) {
    const dir = resolve(options.modelDir);
    const configPath = join(dir, 'config.json');
    if (!existsSync(configPath))
      throw new Error(`LARDER_ONNX_MODEL_DIR ${dir} has no config.json (expected a Hugging Face ONNX export)`);
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as {
      hidden_size?: number;
      d_model?: number;
      dim?: number;
      max_position_embeddings?: number;
    };
    const dims = config.hidden_size ?? config.d_model ?? config.dim;
    if (!dims) throw new Error(`${configPath} names no hidden_size`);
    this.dimensions = dims;
    this.model = options.model || `onnx:${basename(dir)}`;
    this.batchSize = options.batchSize ?? 16;
    // the tokenizer cuts at the model's positions, two of which hold [CLS] and [SEP]
    this.maxInputTokens = Math.max(1, (config.max_position_embeddings ?? 512) - 2);
    this.host = new EmbeddingWorkerHost(require.resolve('./onnx-embedder.worker'), dims, {
      dir,
      parent: dirname(dir) + '/',
      name: basename(dir),
      dtype: options.dtype ?? 'fp32',
      pooling: options.pooling ?? 'mean',
      queryPrefix: options.queryPrefix ?? null,
    });
  }

  /** L2-normalized vectors (what the index stores), or the pooled output as the model gives it with `normalize: false`. */
  async embed(texts: string[], kind: 'document' | 'query', options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(
        ...(await this.host.run(
          texts.slice(i, i + this.batchSize).map((t) => t || ' '),
          kind,
          { normalize: options.normalize !== false },
        )),
      );
    }
    return out;
  }

  async close(): Promise<void> {
    await this.host.close();
  }
}
