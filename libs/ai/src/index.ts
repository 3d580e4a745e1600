export * from './embedder.port';
export * from './llm.port';
