/** The Reranker port lives with the other model ports in @larder/ai (adapters: local/ ONNX cross-encoder, http/ rerank endpoints). */
export { RERANKER } from '@larder/ai';
export type { Reranker } from '@larder/ai';
