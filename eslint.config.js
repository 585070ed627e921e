// Layering is enforced here, not hoped for (STYLE.md "The house"):
//   shared   imports nothing of ours, no node:*, no electron, no DOM (DOM is kept out by tsconfig.json)
//   renderer imports only shared
//   only src/main/shell/electron imports electron (the preload only calls its bridge)
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'node:*'];
const ours = (except) =>
  ['shared', 'main', 'renderer', 'preload', 'server', 'cli'].filter((layer) => !except.includes(layer)).flatMap((layer) => [`**/${layer}/**`, `**/${layer}`]);
const electronOnly = {
  paths: [{ name: 'electron', message: 'Only src/main/shell/electron may import electron.' }],
};

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'e2e/artifacts/**', 'bench/tmp/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Rejecting control characters in names, keys and YAML is deliberate throughout.
      'no-control-regex': 'off',
      'no-restricted-imports': ['error', electronOnly],
    },
  },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...electronOnly.paths, ...nodeBuiltins.map((name) => ({ name, message: 'src/shared is pure: no Node built-ins.' }))],
          patterns: [{ group: ours(['shared']), message: 'src/shared imports nothing else of ours.' }],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...electronOnly.paths, ...nodeBuiltins.map((name) => ({ name, message: 'The renderer never touches Node.' }))],
          patterns: [{ group: ours(['shared', 'renderer']), message: 'The renderer imports only src/shared.' }],
        },
      ],
    },
  },
  {
    files: ['src/main/shell/electron/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The preload only calls the bridge that src/main/shell/electron defines.
    files: ['src/preload/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: electronOnly.paths,
          patterns: [
            { regex: '^\\.\\./(?!main/shell/electron/preload-bridge\\.js$)', message: 'The preload imports only the bridge in src/main/shell/electron.' },
          ],
        },
      ],
    },
  },
);
