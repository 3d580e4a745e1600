export * from './embedder.port';
