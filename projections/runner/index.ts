export * from './projection';
export * from './projection-runner';
export * from './checkpoints';
export * from './stuck-loops';
