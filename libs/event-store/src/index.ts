export * from './event-store.port';
export * from './handle-command';
export * from './writes';
export * from './isolating-append';
