export * from './addresses';
export * from './outbound-policy';
export * from './outbound-fetch';
export * from './retry';
export * from './post-json';
