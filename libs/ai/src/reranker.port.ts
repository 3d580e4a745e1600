/**
 * Scores (query, document) pairs by relevance: a cross-encoder. Adapters: local/ (an ONNX
 * cross-encoder the operator supplies) and http/ (the Mixedbread, Cohere and Jina `rerank` endpoints).
 */
export interface Reranker {
  readonly model: string;
  /** One relevance score in [0, 1] per document, in input order. */
  score(query: string, documents: string[]): Promise<number[]>;
  close(): Promise<void>;
}

export const RERANKER = Symbol('RERANKER');

export class RerankError extends Error {
  readonly code = 'rerank_failed';
  constructor(
    message: string,
    /** Whether trying again later may succeed (network, 5xx, 429). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The logistic function: a cross-encoder's logit as a relevance in (0, 1). */
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
