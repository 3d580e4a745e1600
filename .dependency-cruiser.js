/**
 * Boundaries of architecture.md §3.6: a bounded context imports only the kernel, capability ports,
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
      name: 'contexts-never-import-apps',
      severity: 'error',
      from: { path: '^(libs|projections)/' },
      to: { path: '^apps/' },
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
    exclude: { path: '(^dist/|node_modules)' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
