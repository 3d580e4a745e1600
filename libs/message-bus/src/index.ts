export * from './message-bus.port';
export * from './relay/event-relay.reactor';
