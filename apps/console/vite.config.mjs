// The web console (README, Console): a React single-page app that Vite bundles into dist/console, which the
// API serves at /console. JSX/TSX is compiled by Vite's own Oxc transform (no Babel, no dev-server plugin).
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: '../../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    rolldownOptions: {
      // react-router marks its modules "use client" (for server components); a browser bundle has no use for it
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
    chunkSizeWarningLimit: 1200,
  },
});
