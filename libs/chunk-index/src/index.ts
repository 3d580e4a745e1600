export * from './chunk-index.port';
export * from './artifacts';
export * from './chunk.response';
