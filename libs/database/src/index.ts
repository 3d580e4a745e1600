export * from './embedded-postgres';
export * from './server-database';
