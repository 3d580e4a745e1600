// Three tiers: unit (*.spec.ts), integration against real Postgres/NATS/embedded engines (*.int-spec.ts),
// and end to end through the official client (test/*.e2e-spec.ts).
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
const moduleNameMapper = {
  '^@larder/projections/(.*)$': '<rootDir>/projections/$1',
  '^@larder/projections$': '<rootDir>/projections',
  '^@larder/([^/]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
  '^@larder/([^/]+)$': '<rootDir>/libs/$1/src',
};
// Hooks and tests share a 30 s default: embedded Postgres and the local embedder start slowly on a busy 2-core machine.
const common = { transform: { '^.+\\.ts$': swc }, moduleNameMapper, testEnvironment: 'node', rootDir: __dirname };
module.exports = {
  testTimeout: 30_000,
  reporters: ['default', '<rootDir>/tools/summary-reporter.js'],
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,projections,bench}/**/*.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,projections}/**/*.int-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
