/**
 * Packaging the desktop app (`npm run dist`): AppImage and deb, dmg, nsis. Nothing here runs
 * during install, build or test — except src/main/shell/packaging.test.ts, which builds a `--dir`
 * package with it and looks inside.
 *
 * What goes in: the built app (`out/`, without source maps), `assets/`, package.json and the
 * runtime dependencies — never the team server's own (better-sqlite3, pg, hono: the server runs
 * from a checkout or `npx memdir server`, not from the desktop app), so the app carries no native
 * module and `@electron/rebuild` has nothing to do. It is switched off all the same: it rebuilds
 * native modules for Electron's ABI *in the developer's node_modules*, which breaks the server
 * under Node afterwards.
 *
 * The code Node can run (`out/main`, `out/cli`, the bundle's shared chunks in `out/chunks` —
 * see esbuild.config.ts —, node_modules and package.json) is listed in app.asar but kept
 * unpacked beside it, so the `memdir` command and Claude Code's hooks (packaging/bin/memdir:
 * the app's binary with ELECTRON_RUN_AS_NODE=1) run from the install with any Node,
 * Electron's included; the window's renderer, preload and assets stay packed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Configuration } from 'electron-builder';

/** Dependencies only the team server uses (src/server): never packed into the desktop app. */
export const SERVER_ONLY_DEPENDENCIES = ['better-sqlite3', 'pg', 'hono', '@hono/node-server'];

interface LockPackage {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * The packages only the server-only dependencies need: their closure in package-lock.json minus
 * everything another runtime dependency reaches (a package both use stays).
 */
export function serverOnlyPackages(root: string = import.meta.dirname): string[] {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage & { dev?: boolean }> };
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const closure = (names: string[]): Set<string> => {
    const seen = new Set<string>();
    const stack = [...names];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const entry = lock.packages[`node_modules/${name}`];
      stack.push(...Object.keys({ ...entry?.dependencies, ...entry?.optionalDependencies }));
    }
    return seen;
  };
  const others = closure(Object.keys(manifest.dependencies).filter((name) => !SERVER_ONLY_DEPENDENCIES.includes(name)));
  return [...closure(SERVER_ONLY_DEPENDENCIES)].filter((name) => !others.has(name)).sort();
}

const config: Configuration = {
  appId: 'dev.memdir.app',
  productName: 'Memdir',
  // The Linux binary's name; packaging/bin/memdir runs it.
  executableName: 'memdir',
  directories: { output: 'dist', buildResources: 'assets' },
  // Source maps and the test files some packages ship are of no use at run time.
  files: [
    'out/**',
    'assets/**',
    'package.json',
    '!**/*.map',
    '!**/*.{test,spec}.{js,cjs,mjs}',
    ...serverOnlyPackages().map((name) => `!node_modules/${name}{,/**/*}`),
  ],
  // package.json too: the CLI reads its version from it.
  asarUnpack: ['out/main/**', 'out/cli/**', 'out/chunks/**', 'node_modules/**', 'package.json'],
  extraResources: [{ from: 'packaging/bin', to: 'bin' }],
  npmRebuild: false,
  nodeGypRebuild: false,
  // Deep links (memdir://project/<dir>): Info.plist on macOS, the .desktop file on Linux, the
  // registry on Windows.
  protocols: [{ name: 'Memdir', schemes: ['memdir'] }],
  mac: { category: 'public.app-category.developer-tools', icon: 'assets/icon.png', target: 'dmg' },
  linux: {
    target: ['AppImage', 'deb'],
    category: 'Development',
    icon: 'assets/icons',
    synopsis: "Long-term memory for AI coding agents, on Claude Code's own files",
  },
  win: { target: 'nsis', icon: 'assets/icon.png' },
};

export default config;
