/** Turns texts into dense vectors. Adapters: local/ (USE-lite, ONNX) and http/ (OpenAI-compatible). */
export interface Embedder {
  /** Recorded on every chunk and part of the vectors artifact's key. */
  readonly model: string;
  readonly dimensions: number;
  /** Largest batch the adapter sends at once (callers may pass more; it splits). */
  readonly batchSize: number;
  embed(texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export const EMBEDDER = Symbol('EMBEDDER');

export class EmbeddingError extends Error {
  readonly code = 'embedding_failed';
  constructor(
    message: string,
    /** Whether trying again later may succeed (network, 5xx, 429). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}
