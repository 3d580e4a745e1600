export * from './blob-storage.port';
export * from './bucket-keys';
export * from './bucket-connector.port';
export * from './routing.blob-storage';
