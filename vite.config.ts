// The renderer bundle (React). Output: out/renderer, loaded by Electron (app:// protocol) and
// served by the headless host.
import react from '@vitejs/plugin-react';
import { type Plugin, defineConfig } from 'vite';

/** The UI's chunk: the entry (main.tsx) imports it with import() once the first calls are on their way. */
const UI_MODULE = '/src/renderer/render.tsx';

/**
 * The UI's chunk, its chunks and its CSS asked for by the page itself, with the entry: the entry
 * imports the UI with import() so that its first calls leave before React is evaluated, and the
 * browser would only then learn which files the UI needs and ask for them, a second round of
 * requests issued late (issue 16, bench start). Preloaded, they are fetched and compiled while
 * the entry runs and the host answers; import() then only evaluates them.
 */
function preloadFirstScreen(): Plugin {
  let base = './';
  return {
    name: 'memdir:preload-first-screen',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, { bundle, chunk: entry }) {
        if (!bundle || !entry) return;
        const ui = Object.values(bundle).find((c) => c.type === 'chunk' && c.facadeModuleId?.endsWith(UI_MODULE));
        if (ui?.type !== 'chunk' || !entry.dynamicImports.includes(ui.fileName))
          throw new Error(`the entry no longer imports ${UI_MODULE}: update vite.config.ts`);
        // The chunks a chunk needs before it runs, and their CSS.
        const closure = (fileName: string, seen: Set<string>, styles: Set<string>): void => {
          const c = bundle[fileName];
          if (seen.has(fileName) || c?.type !== 'chunk') return;
          seen.add(fileName);
          for (const css of c.viteMetadata?.importedCss ?? []) styles.add(css);
          for (const name of c.imports) closure(name, seen, styles);
        };
        // The entry's own are in the page already (Vite's modulepreload and stylesheet links).
        const inPage = new Set<string>();
        const inPageStyles = new Set<string>();
        closure(entry.fileName, inPage, inPageStyles);
        const needed = new Set<string>();
        const neededStyles = new Set<string>();
        closure(ui.fileName, needed, neededStyles);
        // zod checks the contract in main; the dashboard never needs it (84 KB to load and compile
        // at start). A shared module the UI imports that builds a schema at its top level brings it
        // in: keep the schema in a module of its own (src/shared/project-identity-schema.ts).
        const withZod = [...needed].filter((file) => {
          const c = bundle[file];
          return c?.type === 'chunk' && Object.keys(c.modules).some((id) => id.includes('/node_modules/zod/'));
        });
        if (withZod.length > 0) throw new Error(`The first screen's code holds zod (${withZod.join(', ')}): see vite.config.ts.`);
        const scripts = [...needed].filter((file) => !inPage.has(file));
        const styles = [...neededStyles].filter((file) => !inPageStyles.has(file));
        return [
          ...scripts.map((file) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${file}` }, injectTo: 'head' as const })),
          // Fetched only: a stylesheet would hold the entry's script (and its calls) until it loaded.
          // import() then adds it as a stylesheet, from the preloaded copy.
          ...styles.map((file) => ({
            tag: 'link',
            attrs: { rel: 'preload', as: 'style', crossorigin: true, href: `${base}${file}` },
            injectTo: 'head' as const,
          })),
        ];
      },
    },
  };
}

export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react(), preloadFirstScreen()],
  build: {
    outDir: '../../out/renderer',
    emptyOutDir: true,
    sourcemap: true,
    target: 'chrome130',
    chunkSizeWarningLimit: 2000,
  },
});
