export * from './embedder.port';
export * from './llm.port';
export * from './reranker.port';
export * from './ocr.port';
export * from './vectors';
export * from './transcriber.port';
export * from './embed-batcher';
