/**
 * Where the shadow history of a memory dir lives, and creating it: a bare repository in Memdir's
 * data dir, `<dataDir>/history/<key>/repo.git`, with `meta.json` beside it naming the memory dir.
 * Never inside the user's memory dir or repository (issue 2, "history").
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { processDataDir } from '../core/data-dir.js';
import { memoryDirKey, realpathDeepestExisting } from '../core/memory-lock.js';
import { git, gitInitBare } from './git.js';
import type { ShadowRepo } from './git.js';

/**
 * Not memories: dotfiles (`.consolidate-lock`, `.memdir-tmp-*` temp files, `.DS_Store`) and
 * `*.tmp` leftovers of other tools.
 */
const EXCLUDE = '# Written by Memdir: dotfiles and temp files are not memories.\n.*\n*.tmp\n';

/** Contents of `meta.json`, so a person browsing the data dir knows which repo is whose. */
export interface ShadowRepoMeta {
  memoryDir: string;
  createdAt: string;
}

const ready = new Set<string>();

async function locate(memoryDir: string, dataDir: string | undefined): Promise<ShadowRepo & { dir: string }> {
  const dir = path.join(dataDir ?? processDataDir(), 'history', await memoryDirKey(memoryDir));
  return { dir, gitDir: path.join(dir, 'repo.git'), workTree: await realpathDeepestExisting(memoryDir) };
}

async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}

/** The shadow repo of `memoryDir`, or null when nothing has been recorded for it yet. */
export async function openShadowRepo(memoryDir: string, dataDir?: string): Promise<ShadowRepo | null> {
  const repo = await locate(memoryDir, dataDir);
  return ready.has(repo.gitDir) || (await exists(path.join(repo.gitDir, 'HEAD'))) ? repo : null;
}

/**
 * The shadow repo of `memoryDir`, created if missing. Call it holding the memory lock. Created in
 * a temp folder and renamed into place, so a process killed half-way never leaves a broken repo.
 */
export async function ensureShadowRepo(memoryDir: string, dataDir?: string): Promise<ShadowRepo> {
  const repo = await locate(memoryDir, dataDir);
  if (ready.has(repo.gitDir)) return repo;
  // One creation at a time in this process: a second one swept the first's temp folder as "half-made"
  // while git was still writing into it (ENOTEMPTY; the app's start catch-up beside a first change).
  let pending = creating.get(repo.gitDir);
  if (!pending) {
    pending = createShadowRepo(repo).finally(() => creating.delete(repo.gitDir));
    creating.set(repo.gitDir, pending);
  }
  return pending;
}

const creating = new Map<string, Promise<ShadowRepo>>();

async function createShadowRepo(repo: ShadowRepo & { dir: string }): Promise<ShadowRepo> {
  if (!(await exists(path.join(repo.gitDir, 'HEAD')))) {
    await fs.mkdir(repo.dir, { recursive: true });
    // Half-made repos of a process killed while creating one.
    for (const name of await fs.readdir(repo.dir)) {
      if (name.startsWith('repo.git.tmp-')) await fs.rm(path.join(repo.dir, name), { recursive: true, force: true });
    }
    const temp: ShadowRepo = { gitDir: `${repo.gitDir}.tmp-${randomBytes(6).toString('hex')}`, workTree: repo.workTree };
    // We write info/exclude ourselves.
    await gitInitBare(temp);
    await git(temp, ['config', 'core.logAllRefUpdates', 'true']);
    await fs.mkdir(path.join(temp.gitDir, 'info'), { recursive: true });
    await fs.writeFile(path.join(temp.gitDir, 'info', 'exclude'), EXCLUDE);
    await fs.rename(temp.gitDir, repo.gitDir);
  }
  const metaPath = path.join(repo.dir, 'meta.json');
  if (!(await exists(metaPath))) {
    const meta: ShadowRepoMeta = { memoryDir: repo.workTree, createdAt: new Date().toISOString() };
    await fs.writeFile(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  }
  ready.add(repo.gitDir);
  return repo;
}

/** Every memory dir Memdir keeps a history of (from the `meta.json` beside each shadow repo), existing or not. */
export async function recordedMemoryDirs(dataDir?: string): Promise<string[]> {
  const root = path.join(dataDir ?? processDataDir(), 'history');
  let names: string[];
  try {
    names = await fs.readdir(root);
  } catch {
    return [];
  }
  const dirs: string[] = [];
  for (const name of names) {
    try {
      const meta = JSON.parse(await fs.readFile(path.join(root, name, 'meta.json'), 'utf8')) as Partial<ShadowRepoMeta>;
      if (typeof meta.memoryDir === 'string') dirs.push(meta.memoryDir);
    } catch {
      // A repo being created, or not one of ours.
    }
  }
  return dirs.sort();
}
