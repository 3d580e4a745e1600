/** Reorders the head of a result list by relevance to the query. Adapters: local/ (ONNX cross-encoder). */
export interface Reranker {
  readonly model: string;
  /** One relevance score in [0, 1] per document, in input order. */
  score(query: string, documents: string[]): Promise<number[]>;
  close(): Promise<void>;
}

export const RERANKER = Symbol('RERANKER');
