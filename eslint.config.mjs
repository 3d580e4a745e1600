// House rules: typescript-eslint's recommended type-checked set over every TypeScript file the
// typecheck covers, plus the rules that catch what this codebase must never do (an un-awaited append, a dropped
// promise). Formatting is Prettier's job (.prettierrc), so no stylistic rule is enabled here.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const nodeGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
};

export default defineConfig(
  { ignores: ['dist/', 'data/', 'coverage/', 'node_modules/', 'test/fixtures/', 'test/output/', '.tmp/'] },
  js.configs.recommended,
  {
    // apps/console/**/*.tsx is type-checked through apps/console/tsconfig.json (DOM, JSX), found by the project service
    files: ['**/*.ts', 'apps/console/**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // In the recommended set already; named here because a dropped promise is an un-awaited append or wait.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // An async port method without await is deliberate here: a throw becomes a rejection, as callers expect.
      '@typescript-eslint/require-await': 'off',
      // Logs go through Nest's Logger; the few deliberate console lines say so with a disable comment.
      'no-console': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // The web console (React in the browser): the same type-checked rules plus the Rules of Hooks and the
    // React Compiler's checks from eslint-plugin-react-hooks. It has no console output at all (no-console
    // above), so an API key can never reach a log.
    files: ['apps/console/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat['recommended-latest']],
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: nodeGlobals },
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_' }] },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: nodeGlobals },
  },
  {
    // Tests read loosely typed JSON (HTTP bodies, rows) and hand jest method references to expect(): the
    // `any`-flow rules and unbound-method only add noise there. Everything else applies to tests too.
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.int-spec.ts', '**/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
