export * from './addresses';
export * from './outbound-policy';
export * from './outbound-fetch';
