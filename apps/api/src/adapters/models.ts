import { Embedder } from '@larder/ai';
import { OpenAiLlm } from '@larder/ai/http/openai.llm';
import { UseLiteEmbedder } from '@larder/ai/local/use-lite.embedder';
import type { UseLiteOnnxSession } from '@larder/ai/local/use-lite-onnx.session';
import { OpenAiEmbedder } from '@larder/ai/http/openai.embedder';
import { OnnxEmbedder } from '@larder/ai/local/onnx.embedder';
import { OnnxReranker } from '@larder/ai/local/onnx.reranker';
import { HttpReranker } from '@larder/ai/http/http.reranker';
import type { Reranker } from '@larder/search';
import { LarderConfig } from '../config';

/**
 * LARDER_EMBEDDER: the bundled USE-lite model (default), an OpenAI-compatible endpoint, or a local ONNX
 * model; `querySession`: the bundled model's query session, started already (main.ts).
 */
export function createEmbedder(config: LarderConfig, querySession?: UseLiteOnnxSession | null): Embedder {
  switch (config.embedder) {
    case 'openai':
      if (!config.embeddingBaseUrl || !config.embeddingModel || !config.embeddingDimensions) {
        throw new Error(
          'LARDER_EMBEDDER=openai needs LARDER_EMBEDDING_URL, LARDER_EMBEDDING_MODEL and LARDER_EMBEDDING_DIMENSIONS',
        );
      }
      return new OpenAiEmbedder({
        baseUrl: config.embeddingBaseUrl,
        apiKey: config.embeddingApiKey,
        model: config.embeddingModel,
        dimensions: config.embeddingDimensions,
        batchSize: config.embeddingBatchSize,
        queryPrefix: config.embeddingQueryPrefix ?? undefined,
      });
    case 'onnx':
      if (!config.onnxModelDir)
        throw new Error('LARDER_EMBEDDER=onnx needs LARDER_ONNX_MODEL_DIR (a Hugging Face ONNX export directory)');
      return new OnnxEmbedder({
        modelDir: config.onnxModelDir,
        model: config.embeddingModel,
        dtype: config.onnxDtype,
        pooling: config.onnxPooling,
        queryPrefix: config.embeddingQueryPrefix,
        batchSize: Math.min(config.embeddingBatchSize, 32),
      });
    default:
      return new UseLiteEmbedder({
        runtime: config.useLiteRuntime,
        documentWorkers: config.embedWorkers.workers,
        threads: config.embedWorkers.threads,
        queryThreads: config.embedWorkers.queryThreads,
        querySession,
      });
  }
}

/** LARDER_RERANKER: a local ONNX cross-encoder, a rerank endpoint (Mixedbread, Cohere or Jina wire format), or null (none). */
export function createReranker(config: LarderConfig): Reranker | null {
  switch (config.reranker) {
    case 'onnx':
      return new OnnxReranker({
        modelDir: config.rerankerModelDir!,
        model: config.rerankerModel,
        dtype: config.rerankerDtype,
        batchSize: config.rerankerBatchSize,
        maxLength: config.rerankerMaxLength,
      });
    case 'http':
      return new HttpReranker({
        url: config.rerankerUrl!,
        apiKey: config.rerankerApiKey,
        model: config.rerankerModel!,
        format: config.rerankerFormat,
        batchSize: config.rerankerBatchSize,
        timeoutMs: config.rerankerTimeoutMs,
        maxRetries: config.rerankerMaxRetries,
        maxBytes: config.rerankerMaxBytes,
      });
    default:
      return null;
  }
}

/** LARDER_LLM_URL: an OpenAI-compatible chat-completions endpoint, or null (none configured). */
export function createLlm(config: LarderConfig): OpenAiLlm | null {
  if (!config.llmUrl) return null;
  if (!config.llmModel) throw new Error('LARDER_LLM_URL is set but LARDER_LLM_MODEL is not');
  return new OpenAiLlm({
    baseUrl: config.llmUrl,
    apiKey: config.llmApiKey,
    model: config.llmModel,
    timeoutMs: config.llmTimeoutMs,
    streamIdleTimeoutMs: config.llmStreamIdleTimeoutMs,
    maxRetries: config.llmMaxRetries,
    maxResponseBytes: config.llmMaxResponseBytes,
  });
}
