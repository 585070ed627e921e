/**
 * The desktop app as `npm run dist` packages it, looked at from the inside: a real
 * `electron-builder --dir --linux` build of this checkout's `out/` with electron-builder.config.ts.
 * Electron cannot be downloaded here, so `electronDist` is a folder holding a copy of this Node
 * named `electron` — electron-builder takes it as the unpacked Electron, and the packaged binary is
 * then a Node, which is enough to run the app's CLI and hooks the way Electron-as-Node would.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { builtinModules, createRequire } from 'node:module';
import fs from 'node:fs/promises';
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import asar from '@electron/asar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ONLY_DEPENDENCIES } from '../../../electron-builder.config.js';
import { SERVER_NOT_INSTALLED } from '../../cli/commands/server.js';
import { VERSION } from '../core/version.js';

const REPO = path.resolve(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);
const BUILT = existsSync(path.join(REPO, 'out', 'main', 'shell', 'electron', 'main.js')) && existsSync(path.join(REPO, 'out', 'renderer', 'index.html'));
const SQLITE_BINARY = path.join(path.dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');

let root: string;
let unpacked: string;
let resources: string;
let archive: string;
let files: string[];
let sqliteBefore: { hash: string; mtimeMs: number };

const fingerprint = async (file: string) => ({
  hash: createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex'),
  mtimeMs: statSync(file).mtimeMs,
});

function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

describe.runIf(process.platform === 'linux')('the desktop package (electron-builder --dir --linux)', () => {
  beforeAll(async () => {
    if (!BUILT) throw new Error('out/ is not built: run npm run build first (npm test does).');
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-package-'));
    sqliteBefore = await fingerprint(SQLITE_BINARY);
    const electronDist = path.join(root, 'electron-dist');
    await fs.mkdir(electronDist);
    await fs.copyFile(process.execPath, path.join(electronDist, 'electron'));
    await fs.chmod(path.join(electronDist, 'electron'), 0o755);
    const builder = require.resolve('electron-builder/cli.js');
    const build = await run(
      process.execPath,
      [
        builder,
        '--config',
        'electron-builder.config.ts',
        '--dir',
        '--linux',
        '--publish',
        'never',
        `-c.electronDist=${electronDist}`,
        `-c.directories.output=${path.join(root, 'dist')}`,
      ],
      { cwd: REPO },
    );
    if (build.code !== 0) throw new Error(`electron-builder failed (${build.code}):\n${build.stdout}\n${build.stderr}`);
    unpacked = path.join(root, 'dist', 'linux-unpacked');
    resources = path.join(unpacked, 'resources');
    archive = path.join(resources, 'app.asar');
    files = asar.listPackage(archive, { isPack: false }).map((f) => f.split(path.sep).join('/').replace(/^\//, ''));
  });
  afterAll(async () => {
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('holds the built app, its assets and runtime dependencies — no sources, tests, benches or source maps', () => {
    for (const part of [
      'out/main/shell/electron/main.js',
      'out/preload/preload.cjs',
      'out/renderer/index.html',
      'out/cli/memdir.js',
      'assets/tray.png',
      'package.json',
      'node_modules/zod/package.json',
      'node_modules/simple-git/package.json',
    ]) {
      expect(files, part).toContain(part);
    }
    const strays = files.filter(
      (f) =>
        /^(src|test|bench|e2e|packaging|docs)\//.test(f) ||
        /\.map$/.test(f) ||
        /\.test\.js$/.test(f) ||
        f.includes('/test-support/') ||
        f === 'out/.tsbuildinfo',
    );
    expect(strays).toEqual([]);
  });

  it('carries no development package (electron, the test runner, the bundled renderer’s React): only what package-lock.json marks for run time', () => {
    const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const packed = new Set(
      files
        .map((f) => /^((?:node_modules\/(?:@[^/]+\/)?[^/]+\/?)+)/.exec(f)?.[1]?.replace(/\/$/, ''))
        .filter((p): p is string => p !== undefined && !/\/@[^/]+$/.test(p)),
    );
    const dev = [...packed].filter((p) => lock.packages[p]?.dev === true || lock.packages[p] === undefined);
    expect(dev).toEqual([]);
    expect(packed.size).toBeGreaterThan(0);
  });

  it('leaves out the team serverʼs own dependencies', () => {
    const packed = files.filter((f) => SERVER_ONLY_DEPENDENCIES.some((name) => f === `node_modules/${name}` || f.startsWith(`node_modules/${name}/`)));
    expect(packed).toEqual([]);
    expect(files.filter((f) => f.endsWith('.node'))).toEqual([]);
  });

  it('resolves every bare import of the main process and the CLI inside the package (the serverʼs only behind its lazy load)', () => {
    const read = (file: string) => asar.extractFile(archive, file).toString('utf8');
    const has = new Set(files);
    const builtins = new Set([...builtinModules, 'electron']);
    const missing: string[] = [];
    const lazyMissing = new Set<string>();
    const seen = new Map<string, boolean>();
    const queue: [string, boolean][] = [
      ['out/main/shell/electron/main.js', false],
      ['out/cli/memdir.js', false],
    ];
    const packages = new Set<string>();
    while (queue.length > 0) {
      const [file, lazy] = queue.shift()!;
      if (seen.has(file) && (seen.get(file) === false || lazy)) continue;
      seen.set(file, lazy);
      // Comment lines dropped: the bundle keeps packages' doc comments, whose examples hold import lines.
      const text = read(file)
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
        .join('\n');
      // A specifier holds no white space: prose in a help text ("the import's merge record … ') is not an import.
      const specifiers = [
        ...[...text.matchAll(/(?:^|[\s;}])(?:import|export)\s[^'"`]*?\bfrom\s*['"]([^'"\s]+)['"]/g)].map((m) => [m[1]!, lazy] as const),
        ...[...text.matchAll(/(?:^|[\s;}])import\s*['"]([^'"\s]+)['"]/g)].map((m) => [m[1]!, lazy] as const),
        ...[...text.matchAll(/\bimport\(\s*['"]([^'"\s]+)['"]\s*\)/g)].map((m) => [m[1]!, true] as const),
      ];
      for (const [spec, isLazy] of specifiers) {
        if (spec.startsWith('.')) {
          const target = path.posix.join(path.posix.dirname(file), spec);
          if (has.has(target)) queue.push([target, isLazy]);
          else missing.push(`${file} → ${spec}`);
          continue;
        }
        const bare = spec.replace(/^node:/, '');
        if (builtins.has(bare) || builtins.has(bare.split('/')[0]!)) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (has.has(`node_modules/${name}/package.json`)) packages.add(name);
        else if (isLazy) lazyMissing.add(name);
        else missing.push(`${file} → ${spec}`);
      }
    }
    expect(missing).toEqual([]);
    expect([...lazyMissing].filter((name) => !SERVER_ONLY_DEPENDENCIES.includes(name))).toEqual([]);
    // Each package found, and what it depends on, is there too.
    const unresolved: string[] = [];
    const visit = (name: string, from: string) => {
      const base = [`${from}/node_modules/${name}`, `node_modules/${name}`].find((dir) => has.has(`${dir}/package.json`));
      if (!base) return unresolved.push(`${name} (needed by ${from || 'the app'})`);
      if (packages.has(`visited:${base}`)) return;
      packages.add(`visited:${base}`);
      const manifest = JSON.parse(read(`${base}/package.json`)) as {
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        peerDependenciesMeta?: Record<string, { optional?: boolean }>;
      };
      for (const dep of Object.keys(manifest.dependencies ?? {})) visit(dep, base);
    };
    for (const name of [...packages].filter((p) => !p.startsWith('visited:'))) visit(name, '');
    expect(unresolved).toEqual([]);
  });

  it('does not rebuild the developerʼs native modules: better-sqlite3 is untouched and still loads under Node', async () => {
    expect(await fingerprint(SQLITE_BINARY)).toEqual(sqliteBefore);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-e', "const D = require('better-sqlite3'); console.log(new D(':memory:').prepare('select 41 + 1 as n').get().n)"],
      { cwd: REPO },
    );
    expect(stdout.trim()).toBe('42');
  });

  it('writes hook commands that run from the install, and they hand the event on', async () => {
    const home = path.join(root, 'claude-home');
    const dataDir = path.join(root, 'memdir-data');
    await fs.mkdir(home, { recursive: true });
    const env = { PATH: process.env.PATH ?? '', HOME: root, MEMDIR_DATA_DIR: dataDir };
    // The packaged CLI connects the hooks, as the installed app's "Connect to Claude Code" does.
    const script = path.join(resources, 'bin', 'memdir');
    const connect = await run(script, ['hooks', 'connect', '--home', home, '--data-dir', dataDir, '--yes', '--json'], { env });
    expect(connect.stderr).toBe('');
    expect(JSON.parse(connect.stdout)).toMatchObject({ applied: true });
    const settings = JSON.parse(await fs.readFile(path.join(home, 'settings.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    // SessionStart runs the app's own memdir script (Claude Code reads its answer); Stop is the
    // shell first stage that spools the event (Windows, and older installs, run the script).
    const sessionStart = settings.hooks.SessionStart![0]!.hooks[0]!.command;
    expect(sessionStart).toBe(`${script} hook SessionStart --data-dir ${dataDir}`);
    const stop = settings.hooks.Stop![0]!.hooks[0]!.command;

    // Claude Code runs them through a shell, with the event on stdin; the app is closed: spooled.
    const payload = (event: string) =>
      JSON.stringify({
        session_id: 'a1b2c3d4-0000-4000-8000-000000000001',
        transcript_path: path.join(home, 'projects', 'p', 's.jsonl'),
        cwd: root,
        hook_event_name: event,
        stop_hook_active: false,
        source: 'resume',
      });
    const shellEnv = { PATH: '/usr/bin:/bin', HOME: root };
    expect(await run('/bin/sh', ['-c', stop], { env: shellEnv, input: payload('Stop') })).toMatchObject({ code: 0, stderr: '' });
    expect(await run('/bin/sh', ['-c', `${script} hook Stop --data-dir ${dataDir}`], { env: shellEnv, input: payload('Stop') })).toMatchObject({
      code: 0,
      stderr: '',
    });
    expect(await run('/bin/sh', ['-c', sessionStart], { env: shellEnv, input: payload('SessionStart') })).toMatchObject({ code: 0, stderr: '' });
    const spooled = await fs.readdir(path.join(dataDir, 'hook-spool'));
    expect(spooled.filter((n) => !n.startsWith('.'))).toHaveLength(2);
    expect(existsSync(path.join(dataDir, 'hook-errors.log'))).toBe(false);

    // Installed as a command elsewhere on PATH (a link to the script), it still finds the app.
    const bin = path.join(root, 'user-bin');
    await fs.mkdir(bin);
    await fs.symlink(script, path.join(bin, 'memdir'));
    const version = await run('memdir', ['--version'], { env: { ...env, PATH: `${bin}:${env.PATH}` } });
    expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('says in one line that the team server is not part of the app', async () => {
    const server = await run(path.join(resources, 'bin', 'memdir'), ['server', '--port', '0', '--db', path.join(root, 'team.sqlite')], {
      env: { PATH: process.env.PATH ?? '', HOME: root },
    });
    expect(server).toMatchObject({ code: 2, stderr: `memdir server: ${SERVER_NOT_INSTALLED}\n` });
  });

  it('carries icons at the sizes each installer needs', () => {
    const size = (file: string) => {
      const png = readFileSync(path.join(REPO, file));
      return [png.readUInt32BE(16), png.readUInt32BE(20)];
    };
    // macOS builds its .icns (512 px @2x) and Windows its .ico (256 px) from this one.
    expect(size('assets/icon.png')).toEqual([1024, 1024]);
    for (const n of [16, 24, 32, 48, 64, 128, 256, 512]) expect(size(`assets/icons/${n}x${n}.png`)).toEqual([n, n]);
    expect(existsSync(path.join(unpacked, 'memdir'))).toBe(true);
  });
});
