export * from './blob-storage.port';
