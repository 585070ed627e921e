/**
 * A throwaway PostgreSQL cluster for tests: initdb into a tmp dir, `postgres` on a Unix
 * socket in that dir (no TCP, so nothing to collide with), torn down after. As root it runs
 * as the `postgres` user, because PostgreSQL refuses to run as root.
 *
 * Binaries: $MEMDIR_PG_BINDIR, else the newest /usr/lib/postgresql/<major>/bin (Debian's
 * `postgresql` package), else `initdb` and `postgres` on PATH. Without them PostgreSQL tests
 * are skipped with a reason — except under CI=true, where they fail and say how to install.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface EphemeralPostgres {
  /** Directory holding the Unix socket. */
  socketDir: string;
  port: number;
  /** Create an empty database and return its connection string. */
  createDatabase: () => Promise<string>;
  stop: () => Promise<void>;
}

const INSTALL_HINT =
  'install the Debian package `postgresql` (apt-get install -y postgresql) or set MEMDIR_PG_BINDIR to a directory holding initdb and postgres';

function isExecutable(file: string): boolean {
  try {
    fsSync.accessSync(file, fsSync.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The directory with `initdb` and `postgres`, or null when PostgreSQL is not installed. */
export function findPostgresBinDir(env: NodeJS.ProcessEnv = process.env, debianRoot = '/usr/lib/postgresql'): string | null {
  const candidates: string[] = [];
  if (env.MEMDIR_PG_BINDIR) candidates.push(env.MEMDIR_PG_BINDIR);
  try {
    const majors = fsSync
      .readdirSync(debianRoot)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    candidates.push(...majors.map((v) => path.join(debianRoot, v, 'bin')));
  } catch {
    // Not Debian, or not installed there.
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const initdb = path.join(dir, 'initdb');
    // Resolve symlinks: initdb finds `postgres` next to its real location.
    if (isExecutable(initdb)) candidates.push(path.dirname(fsSync.realpathSync(initdb)));
  }
  return candidates.find((dir) => isExecutable(path.join(dir, 'initdb')) && isExecutable(path.join(dir, 'postgres'))) ?? null;
}

/** Whether PostgreSQL tests can run here; when not, why, and whether that is a failure (CI). */
export function postgresAvailability(
  env: NodeJS.ProcessEnv = process.env,
  debianRoot?: string,
): { available: true; binDir: string } | { available: false; reason: string; mustFail: boolean } {
  const binDir = findPostgresBinDir(env, debianRoot);
  if (binDir) return { available: true, binDir };
  const mustFail = env.CI === 'true';
  return {
    available: false,
    mustFail,
    reason: mustFail
      ? `PostgreSQL binaries not found, and CI=true requires the PostgreSQL store tests: ${INSTALL_HINT}.`
      : `PostgreSQL binaries not found, PostgreSQL store tests skipped (${INSTALL_HINT}).`,
  };
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error('Running as root, but there is no `postgres` user to run PostgreSQL as (the Debian package creates it).');
  }
}

function run(file: string, args: string[], options: { uid?: number; gid?: number; cwd: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} exited with ${code}: ${output.slice(-2000)}`))));
  });
}

async function waitReady(child: ChildProcess, config: pg.ClientConfig, logFile: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}: ${await fs.readFile(logFile, 'utf8').catch(() => '')}`);
    const client = new pg.Client(config);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`postgres did not become ready: ${String(error)}`, { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * Where the cluster lives: the tmp dir, unless the `postgres` user could not reach into it
 * (a private $TMPDIR when running as root) or its path would make the socket path too long
 * for a Unix socket (~107 bytes).
 */
function clusterBase(asOtherUser: boolean): string {
  const tmp = os.tmpdir();
  if (tmp.length > 60) return '/tmp';
  if (asOtherUser && (fsSync.statSync(tmp).mode & 0o001) === 0) return '/tmp';
  return tmp;
}

/** Start a fresh cluster; call `stop()` when done (it also removes every file). */
export async function startEphemeralPostgres(): Promise<EphemeralPostgres> {
  const binDir = findPostgresBinDir();
  if (!binDir) throw new Error(`PostgreSQL binaries not found: ${INSTALL_HINT}.`);
  const user = postgresUser();
  const dir = await fs.mkdtemp(path.join(clusterBase(user !== undefined), 'memdir-pg-'));
  if (user) await fs.chown(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  const port = 20_000 + Math.floor(Math.random() * 40_000);
  let child: ChildProcess | null = null;
  const kill = (): void => {
    child?.kill('SIGKILL');
  };
  try {
    await run(path.join(binDir, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'], { ...user, cwd: dir });
    const log = fsSync.openSync(logFile, 'a');
    if (user) fsSync.fchownSync(log, user.uid, user.gid);
    // Durability off: this cluster lives for one test file.
    child = spawn(
      path.join(binDir, 'postgres'),
      [
        '-D',
        data,
        '-k',
        dir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
      ],
      { ...user, cwd: dir, stdio: ['ignore', log, log] },
    );
    fsSync.closeSync(log);
    process.once('exit', kill);
    await waitReady(child, { host: dir, port, user: 'postgres', database: 'postgres' }, logFile);
  } catch (error) {
    kill();
    await fs.rm(dir, { recursive: true, force: true });
    throw error;
  }
  const postmaster = child;
  let counter = 0;
  return {
    socketDir: dir,
    port,
    async createDatabase() {
      const name = `memdir_test_${++counter}_${process.pid}`;
      const admin = new pg.Client({ host: dir, port, user: 'postgres', database: 'postgres' });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return `postgres://postgres@/${name}?host=${encodeURIComponent(dir)}&port=${port}`;
    },
    async stop() {
      process.off('exit', kill);
      if (postmaster.exitCode === null) {
        const exited = new Promise((r) => postmaster.once('exit', r));
        postmaster.kill('SIGINT'); // "fast" shutdown: disconnect clients, no waiting
        const timer = setTimeout(() => postmaster.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
