// Layering is enforced here, not hoped for (STYLE.md "The house"; issue 17, item 6). Each rule has
// an offending and an allowed example in test/lint-layers.test.ts.
//   shared   imports nothing of ours, no node:*, no electron, no DOM (DOM is kept out by tsconfig.json)
//   renderer imports only shared, no node:*, no Node-only package (chokidar, pg, …)
//   renderer views and components reach main only through stores: never the transport or the bridge
//   server   imports no src/main and no src/renderer (the wire protocol is in src/shared/protocol)
//   src/main imports no src/server, statically or through import() (only tests and their fixtures start one)
//   nothing under src/main but app/, api/ and shell/ imports src/main/app: the rest stands under the
//   running app (its event bus, root and version are in main/core)
//   only src/main/shell/electron imports electron or electron/* (the preload only calls its bridge)
//   shared and the renderer load no other layer, no Node and no electron through import() either,
//   and their import() takes a plain string (a computed one could load anything)
//   cli and main/api reach src/main only through a capability's front door (main/<capability>/index.js)
//   or main/core, statically or through import()
//   inside src/main, code outside a capability imports only its index.js (core, api, app and shell are no
//   capabilities; tests and test-support may reach in)
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';
import path from 'node:path';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'node:*'];
const ours = (except) =>
  ['shared', 'main', 'renderer', 'preload', 'server', 'cli'].filter((layer) => !except.includes(layer)).flatMap((layer) => [`**/${layer}/**`, `**/${layer}`]);

const ELECTRON_ONLY = 'Only src/main/shell/electron may import electron.';
const electronOnly = {
  paths: [{ name: 'electron', message: ELECTRON_ONLY }],
  patterns: [{ group: ['electron/*'], message: ELECTRON_ONLY }],
};
/** One `no-restricted-imports` setting: a files block replaces the rule's options, so electron's rule is carried into each. */
const restrictImports = ({ paths = [], patterns = [] } = {}) => [
  'error',
  { paths: [...electronOnly.paths, ...paths], patterns: [...electronOnly.patterns, ...patterns] },
];

// Packages that only run under Node (file watching, locks, databases, git, the model, the servers).
const nodeOnlyPackages = [
  'chokidar',
  'proper-lockfile',
  'better-sqlite3',
  'pg',
  'simple-git',
  '@anthropic-ai/sdk',
  'hono',
  '@hono/node-server',
  'electron-builder',
  '@electron/asar',
];
const RENDERER_NO_NODE = 'The renderer never touches Node.';
const RENDERER_ONLY_SHARED = 'The renderer imports only src/shared.';
const rendererImports = {
  paths: [
    ...nodeBuiltins.map((name) => ({ name, message: RENDERER_NO_NODE })),
    ...nodeOnlyPackages.map((name) => ({ name, message: `${name} runs only under Node: the renderer never touches Node.` })),
  ],
  patterns: [
    { group: ['@secretlint/*', ...nodeOnlyPackages.map((name) => `${name}/*`)], message: `${RENDERER_NO_NODE} That package runs only under Node.` },
    { group: ours(['shared', 'renderer']), message: RENDERER_ONLY_SHARED },
  ],
};

// `import()` is not seen by no-restricted-imports: these catch it by its (literal) source.
const builtinSource = `^(node:.*|${builtinModules.map((m) => m.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('|')})$`;
const otherLayer = (except) => `(^|/)(${['shared', 'main', 'renderer', 'preload', 'server', 'cli'].filter((layer) => !except.includes(layer)).join('|')})(/|$)`;
const dynamicImport = (pattern, message) => ({
  // esquery ends a regex at any '/', escaped or not: a slash is written \x2F.
  selector: `ImportExpression[source.value=/${pattern.replace(/\//g, '\\x2F')}/]`,
  message,
});
const electronDynamic = dynamicImport('^electron(/|$)', ELECTRON_ONLY);
// A computed source would slip past the checks above.
const computedDynamic = {
  selector: "ImportExpression[source.type!='Literal']",
  message: 'import() here takes a plain string, so lint can see which layer it loads.',
};

// The CLI and the api are thin adapters over the same services (issue 17, item 1): from src/main
// they import a capability's front door (`<capability>/index.js`) or the core floor, nothing else.
const ENTRIES_ONLY =
  'Import a capability (or the core floor) through its front door, src/main/<capability>/index.js: the CLI and the api call the same services.';
const notAnEntry = '(?![a-z-]+/index\\.js$)';
const entriesOnly = (fromMain) => {
  const pattern = { regex: `^${fromMain}${notAnEntry}`, message: ENTRIES_ONLY };
  return { pattern, imports: restrictImports({ patterns: [pattern] }), dynamic: dynamicImport(pattern.regex, ENTRIES_ONLY) };
};
const cliEntries = entriesOnly('(\\.\\./)+main/');
// A sibling folder of src/main/api (not ../../shared).
const apiEntries = entriesOnly('\\.\\./(?!\\.\\./)');

// The arrows inside src/main run down (issue 17, items 2 and 4). The team and personal clients
// speak the wire protocol from src/shared/protocol, never the server's own files; tests and their
// fixtures (test-support/) start a real server, and the CLI's `server` command composes one.
const NO_SERVER = 'src/main imports nothing of src/server: the wire protocol is in src/shared/protocol (only tests start a real server).';
const noServer = { regex: '^(\\.\\./)+server(/|$)', message: NO_SERVER };
const noServerDynamic = dynamicImport(noServer.regex, NO_SERVER);
// Capabilities, jobs, hooks and the core stand under the running app: only the app itself, the
// api that binds it and the shells that create it import src/main/app.
const NO_APP =
  'Only src/main/app, src/main/api and src/main/shell import src/main/app: the rest of src/main stands under the running app (the event bus, root and version are in src/main/core).';
const noApp = { regex: '^(\\.\\./)+app(/|$)', message: NO_APP };
const noAppDynamic = dynamicImport(noApp.regex, NO_APP);
const MAIN_TESTS = ['**/*.test.ts', '**/test-support/**'];
// Capabilities meet only at their front doors (issue 17, item 1): inside src/main, a file outside a
// capability imports its `index.js`, never another of its files. core is the floor anyone stands on;
// api, app and shell are not capabilities (api has its own stricter rule above). Tests and
// test-support are exempt: they test the private files. A specifier is resolved against the importing
// file, so `../memdir/x.js` and `../../memdir/x.js` are judged by where they land.
const NOT_CAPABILITIES = new Set(['core', 'api', 'app', 'shell']);
const MAIN = path.join(import.meta.dirname, 'src', 'main');
/** The capability folder a path under src/main is in and the rest of its path, or null. */
const placeOf = (file) => {
  const rel = path.relative(MAIN, file).split(path.sep);
  return rel.length > 1 && rel[0] !== '..' ? { folder: rel[0], rest: rel.slice(1).join('/') } : null;
};
const frontDoors = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      private:
        "{{file}} is private to {{capability}}: import it from {{capability}}'s front door, src/main/{{capability}}/index.js (only its own folder, tests and test-support reach in).",
    },
  },
  create(context) {
    const from = placeOf(context.filename);
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const to = placeOf(path.resolve(path.dirname(context.filename), source.value));
      if (!to || NOT_CAPABILITIES.has(to.folder) || to.folder === from?.folder || /^index\.(js|ts)$/.test(to.rest)) return;
      context.report({ node, messageId: 'private', data: { file: `${to.folder}/${to.rest}`, capability: to.folder } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument?.literal),
    };
  },
};

// `import { z } from 'zod'` (or its default) names zod's whole namespace object, so a bundle keeps all
// of zod and its forty locales (esbuild: 755 KB against 170 KB for one schema); a namespace import is
// shaken to what is used (issue 16, bench start: the host's eager code). no-restricted-imports cannot
// tell the two apart (it refuses the namespace import too), hence a rule of its own.
const zodNamespace = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { named: "Import zod as a namespace, import * as z from 'zod': a named z keeps all of zod and its locales in the bundle." },
  },
  create(context) {
    return {
      ImportDeclaration(node) {
        if (node.source.value !== 'zod' || node.importKind === 'type') return;
        for (const spec of node.specifiers)
          if (spec.type === 'ImportDefaultSpecifier' || (spec.type === 'ImportSpecifier' && spec.importKind !== 'type' && spec.imported.name === 'z'))
            context.report({ node: spec, messageId: 'named' });
      },
    };
  },
};
const memdirRules = { plugins: { memdir: { rules: { 'front-doors': frontDoors, 'zod-namespace': zodNamespace } } } };

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'e2e/artifacts/**', 'bench/tmp/**', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    ...memdirRules,
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'memdir/zod-namespace': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Rejecting control characters in names, keys and YAML is deliberate throughout.
      'no-control-regex': 'off',
      'no-restricted-imports': restrictImports(),
    },
  },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': restrictImports({
        paths: nodeBuiltins.map((name) => ({ name, message: 'src/shared is pure: no Node built-ins.' })),
        patterns: [{ group: ours(['shared']), message: 'src/shared imports nothing else of ours.' }],
      }),
      'no-restricted-syntax': [
        'error',
        electronDynamic,
        computedDynamic,
        dynamicImport(builtinSource, 'src/shared is pure: no Node built-ins, not even through import().'),
        dynamicImport(otherLayer(['shared']), 'src/shared imports nothing else of ours, not even through import().'),
      ],
    },
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': restrictImports(rendererImports),
      'no-restricted-syntax': [
        'error',
        electronDynamic,
        computedDynamic,
        dynamicImport(builtinSource, `${RENDERER_NO_NODE} Not even through import().`),
        dynamicImport(`^(${nodeOnlyPackages.join('|')}|@secretlint/.*)(/|$)`, `${RENDERER_NO_NODE} That package runs only under Node.`),
        dynamicImport(otherLayer(['shared', 'renderer']), `${RENDERER_ONLY_SHARED} Not even through import().`),
        {
          // The browser's locale decides the clock there ("10:04:05 PM"): the app says times one way.
          selector: 'CallExpression[callee.property.name=/^toLocale(Time)?String$/][arguments.length=0]',
          message: 'A time is shown 24-hour by the one formatter: when() or exactTime() from components/format.ts (a number: toLocaleString("en-US")).',
        },
      ],
    },
  },
  {
    // Views and components read stores and call their actions; only a store calls main (STYLE.md
    // "Stores are small and per domain"). main.tsx picks the transport once at start-up.
    files: ['src/renderer/**'],
    ignores: ['src/renderer/stores/**', 'src/renderer/transport/**', 'src/renderer/main.tsx'],
    rules: {
      'no-restricted-imports': restrictImports({
        paths: rendererImports.paths,
        patterns: [
          ...rendererImports.patterns,
          { group: ['**/transport/**', '**/transport'], message: 'Views and components talk to stores only: call a store action, which calls main.' },
        ],
      }),
      'no-restricted-properties': [
        'error',
        { object: 'window', property: 'memdirBridge', message: 'Views and components talk to stores only: call a store action, which calls main.' },
      ],
    },
  },
  {
    // No file is exempt: the server and the client share only src/shared (issue 17, item 4).
    files: ['src/server/**'],
    rules: {
      'no-restricted-imports': restrictImports({
        patterns: [
          { group: ['**/main/**', '**/main', '**/renderer/**', '**/renderer'], message: 'src/server imports only src/shared (the wire protocol lives there).' },
        ],
      }),
    },
  },
  {
    files: ['src/main/**'],
    ignores: MAIN_TESTS,
    rules: { 'no-restricted-imports': restrictImports({ patterns: [noServer] }), 'no-restricted-syntax': ['error', noServerDynamic] },
  },
  {
    files: ['src/main/**'],
    ignores: [...MAIN_TESTS, 'src/main/app/**', 'src/main/api/**', 'src/main/shell/**'],
    rules: {
      'no-restricted-imports': restrictImports({ patterns: [noServer, noApp] }),
      'no-restricted-syntax': ['error', noServerDynamic, noAppDynamic],
    },
  },
  {
    files: ['src/main/shell/electron/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The one place electron is imported; the arrow to src/server still holds there.
    files: ['src/main/shell/electron/**'],
    ignores: MAIN_TESTS,
    rules: { 'no-restricted-imports': ['error', { patterns: [noServer] }] },
  },
  {
    files: ['src/cli/**'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': cliEntries.imports, 'no-restricted-syntax': ['error', cliEntries.dynamic] },
  },
  {
    files: ['src/main/api/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': restrictImports({ patterns: [apiEntries.pattern, noServer] }),
      'no-restricted-syntax': ['error', apiEntries.dynamic, noServerDynamic],
    },
  },
  {
    files: ['src/main/**'],
    ignores: ['**/*.test.ts', '**/*.test.tsx', '**/test-support/**', 'src/main/api/**'],
    rules: { 'memdir/front-doors': 'error' },
  },
  {
    // The preload only calls the bridge that src/main/shell/electron defines.
    files: ['src/preload/**'],
    rules: {
      'no-restricted-imports': restrictImports({
        patterns: [
          { regex: '^\\.\\./(?!main/shell/electron/preload-bridge\\.js$)', message: 'The preload imports only the bridge in src/main/shell/electron.' },
        ],
      }),
    },
  },
);
