export * from './event-store.port';
export * from './handle-command';
