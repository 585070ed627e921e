/**
 * The Node side of `npm run build`: the headless host, the Electron main process, the launcher
 * and the CLI bundled by esbuild into out/, one file per entry plus shared chunks (out/chunks/).
 *
 * Why a bundle (issue 16, bench `start`): loading the unbundled build — hundreds of modules of
 * ours and node_modules', each resolved, read and compiled on its own — was most of the time from
 * process start to the dashboard's first paint. Code the first paint does not need sits behind
 * `import()` in the source and lands in chunks of its own, read only when used.
 *
 * Kept as they were: each entry's path (npm start, npm run serve, the `memdir` bin, package.json
 * `main`, the installed app's scripts and hooks); native modules (better-sqlite3, pg) and
 * electron loaded from node_modules at run time; source maps beside every file (each entry turns
 * source maps on before loading the rest, so stack traces name src/ files: the CLI with Node's
 * own support, the headless host reading a map only when a stack needs it, core/lazy-source-maps.ts).
 */
import { type BuildOptions, build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = import.meta.dirname;
const outdir = path.join(root, 'out');

/** Each entry's source and the path under out/ everything else names it by. */
export const NODE_ENTRIES: Record<string, string> = {
  'main/shell/launch': 'src/main/shell/launch.ts',
  'main/shell/host/serve': 'src/main/shell/host/serve.ts',
  'main/shell/electron/main': 'src/main/shell/electron/main.ts',
  'cli/memdir': 'src/cli/memdir.ts',
  // Not entries of the app: bench `scale` measures the RSS of these built modules in a bare Node.
  'main/memdir/scan-home': 'src/main/memdir/scan-home.ts',
  'main/recall/local-ranker': 'src/main/recall/local-ranker.ts',
};

/** Loaded from node_modules at run time: native code, and Electron's own module. */
export const NODE_EXTERNAL = ['electron', 'better-sqlite3', 'pg', 'pg-native'];

/** Bundles the Node side into out/ (the renderer and preload are vite's). */
export async function buildNode(): Promise<void> {
  // The unbundled tsc output of earlier builds would sit beside the bundle and mislead.
  for (const dir of ['main', 'cli', 'shared', 'server', 'chunks']) fs.rmSync(path.join(outdir, dir), { recursive: true, force: true });
  fs.rmSync(path.join(outdir, '.tsbuildinfo'), { force: true });
  await build(nodeBuildOptions());
}

/** The Node side's build as `npm run build` makes it (also read by tests of what the bundle loads when). */
export function nodeBuildOptions(): BuildOptions & { entryPoints: { in: string; out: string }[] } {
  return {
    entryPoints: Object.entries(NODE_ENTRIES).map(([out, entry]) => ({ in: path.join(root, entry), out })),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    chunkNames: 'chunks/[name]-[hash]',
    // Packages' ES module builds first: a UMD build (jsonc-parser's) requires its own files by
    // relative paths that a bundle no longer has.
    mainFields: ['module', 'main'],
    sourcemap: 'linked',
    // Stack traces name the files under src/; the sources themselves stay in the checkout.
    sourcesContent: false,
    external: NODE_EXTERNAL,
    // CommonJS packages inside an ES module bundle call `require` for Node's built-ins.
    banner: { js: "import { createRequire as __memdirCreateRequire } from 'node:module'; const require = __memdirCreateRequire(import.meta.url);" },
    logLevel: 'warning',
    legalComments: 'none',
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(root, 'esbuild.config.ts')) await buildNode();
