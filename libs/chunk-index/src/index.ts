export * from './chunk-index.port';
export * from './artifacts';
