/** Turns texts into dense vectors. Adapters: local/ (USE-lite, ONNX) and http/ (OpenAI-compatible). */
export interface Embedder {
  /** Recorded on every chunk and part of the vectors artifact's key. */
  readonly model: string;
  readonly dimensions: number;
  /** Largest batch the adapter sends at once (callers may pass more; it splits). */
  readonly batchSize: number;
  /** Document batches the adapter runs at once (its worker pool); unset: callers may keep two running. */
  readonly parallelism?: number;
  /**
   * The longest input the model reads, in Larder's token estimate (`estimateTokens`); the model cuts
   * longer texts itself. Unset where Larder cannot know it (an endpoint decides).
   */
  readonly maxInputTokens?: number;
  /**
   * `options.normalize: false` asks for the model's own vectors without L2 normalization where the
   * adapter normalizes them itself (ONNX); adapters whose model answers as it does ignore it.
   */
  embed(texts: string[], kind: 'document' | 'query', options?: EmbedOptions): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface EmbedOptions {
  /** Default true. */
  normalize?: boolean;
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
