export * from './message-bus.port';
