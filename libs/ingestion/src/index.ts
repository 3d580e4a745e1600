export * from './document';
export * from './parse';
export * from './parse-thread.host';
export * from './chunker';
export * from './generated-metadata';
export * from './embedding-context';
export * from './media.tools';
