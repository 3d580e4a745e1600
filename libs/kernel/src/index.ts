export * from './events';
export * from './streams';
export * from './errors';
export * from './ports';
export * from './pagination';
export * from './consistency';
export * from './principal';
