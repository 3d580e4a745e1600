/**
 * Test helpers (`@larder/kernel/testing`): given/when/then for deciders, a recorded-event log, and a
 * projection harness on the machine's PostgreSQL. Specs only: the kernel's index does not export
 * them and the build leaves testing/ out.
 */
export * from './decider.testing';
export * from './event-log.testing';
export * from './projection.testing';
export * from './random';
