export * from './document';
export * from './parse';
export * from './chunker';
