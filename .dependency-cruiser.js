/**
 * Import boundaries (docs/architecture.md, map of the code): a bounded context imports only the kernel, capability ports,
 * other contexts' events.ts and projection readers; adapter folders are imported only by apps.
 */
const CONTEXTS = 'libs/(organizations|api-keys|files|stores|search|buckets|trace-destinations|billing|activity)';
module.exports = {
  forbidden: [
    {
      name: 'adapters-only-from-apps',
      comment: 'Adapter folders (postgres/, esdb/, in-memory/, nats/, in-process/, …) are chosen by apps only.',
      severity: 'error',
      from: { path: `^(${CONTEXTS}/src/|projections/)`, pathNot: ['\\.(int-)?spec\\.ts$', '/testing/'] },
      to: { path: '^libs/[^/]+/src/(postgres|esdb|in-memory|nats|in-process|elasticsearch|embedded|local-disk|s3)/' },
    },
    {
      name: 'contexts-talk-through-events',
      comment: 'A context may import another context only through its events.ts.',
      severity: 'error',
      from: { path: `^${CONTEXTS}/src/`, pathNot: '\\.(int-)?spec\\.ts$' },
      to: { path: `^${CONTEXTS}/src/`, pathNot: ['/events\\.ts$', '$1'] },
    },
    {
      name: 'contexts-read-projections-through-readers',
      comment: 'A context reads projections only through *.reader.ts.',
      severity: 'error',
      from: { path: `^${CONTEXTS}/src/`, pathNot: '\\.(int-)?spec\\.ts$' },
      to: { path: '^projections/', pathNot: '\\.reader\\.ts$|\\.entity\\.ts$' },
    },
    {
      name: 'events-import-only-the-kernel',
      comment:
        'An events.ts is the contract other contexts import: it depends on @larder/kernel and nothing else (no npm package, no ' +
        'node module, no code of its own context), except type-only imports of another events.ts of the same context.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/src.*/events\\.ts$' },
      to: { pathNot: ['^libs/kernel/src/', '^libs/$1/src.*/events\\.ts$'] },
    },
    {
      name: 'events-import-own-events-as-types',
      comment: 'Another events.ts of the same context is imported for its types only (import type), never for values.',
      severity: 'error',
      from: { path: '^libs/([^/]+)/src.*/events\\.ts$' },
      to: { path: '^libs/$1/src.*/events\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'readers-never-load-projection-code',
      comment:
        'A reader takes its table names from <read-model>.tables.ts; it never imports the projection that writes them.',
      severity: 'error',
      from: { path: '^projections/.+\\.reader\\.ts$' },
      to: { path: '\\.projection\\.ts$' },
    },
    {
      name: 'tables-files-are-leaves',
      comment:
        'A <read-model>.tables.ts holds the table names (and column encodings) of its read model and imports nothing.',
      severity: 'error',
      from: { path: '^projections/.+\\.tables\\.ts$' },
      to: {},
    },
    {
      name: 'contexts-never-import-apps',
      severity: 'error',
      from: { path: '^(libs|projections)/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-orphans',
      comment: 'A module nothing imports is dead code (entry points, specs, testing helpers and declarations aside).',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: [
          '\\.(int-|e2e-)?spec\\.ts$',
          '/testing/',
          '\\.d\\.ts$',
          '^apps/[^/]+/src/main\\.ts$',
          '^apps/console/',
          '(^|/)[^/]+\\.(js|mjs|cjs|json)$',
        ],
      },
      to: {},
    },
    {
      name: 'not-to-spec',
      comment: 'Production code never imports a spec.',
      severity: 'error',
      from: {},
      to: { path: '\\.(int-|e2e-)?spec\\.ts$' },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'Production code imports only dependencies, never devDependencies (the runtime image has none).',
      severity: 'error',
      from: {
        path: '^(apps|libs|projections)/',
        pathNot: ['\\.(int-|e2e-)?spec\\.ts$', '/testing/', '^apps/console/'],
      },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package (the server bundle is a build output).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^\\./create-app\\.bundle$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
