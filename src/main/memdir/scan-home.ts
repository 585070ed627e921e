/**
 * Scan the agent home (R-HOME, R-LAYOUT): every project under `projects/` — a memory folder
 * with the transcript folders of the sessions that read it (project-groups.ts) —, its memory dir
 * (moved where the settings say so), its team dir, its key and launch directories, and the
 * settings in force. A missing home scans as empty; nothing here throws on a bad file.
 */
import fs from 'node:fs';
import type { HomeScan, LaunchDirScan, ProjectScan } from '../../shared/scan-types.js';
import { type GroupCache, type ProjectGroup, groupOfFolder, groupProjects, primaryLaunchFolder } from './project-groups.js';
import { type LocateOptions, launchContextOf, locateGroup } from './projects.js';
import { readOnlyStoreFolders, storeModeFolders } from './claude-code-stores.js';
import { withAutoMemory, withClaudeCodeStores } from './health.js';
import { ScanCache, scanMemoryDir, teamDirOf, teamFilesLinkedFrom } from './scan-dir.js';
import { type EffectiveSettings, type SettingsCache, type SharedSettings, readEffectiveSettings, readSharedSettings } from './settings.js';
import { type IdentityCache, type IdentityMemos, RememberedIdentities, identifyProject } from './project-identity.js';

export interface ScanHomeOptions {
  cache?: HomeScanCache;
  env?: NodeJS.ProcessEnv;
  /** Where managed settings are (tests); default the platform's. */
  managedDir?: string;
  /** Memdir's data dir: identities read there before are used for projects whose repository is gone, and new ones are remembered. */
  dataDir?: string;
  /** An already open store of remembered identities (the caller saves it). */
  remembered?: RememberedIdentities;
}

/** A map that counts every change in the cache's revision, so a saver knows there is something new. */
class RevisedMap<K, V> extends Map<K, V> {
  constructor(private readonly changed: () => void) {
    super();
  }
  override set(key: K, value: V): this {
    this.changed();
    return super.set(key, value);
  }
  override delete(key: K): boolean {
    const deleted = super.delete(key);
    if (deleted) this.changed();
    return deleted;
  }
}

/**
 * Per-home memo: file facts, transcript folders (their launch directory and count) and settings
 * files. The first two are kept on disk between processes (scan-cache-file.ts).
 */
export class HomeScanCache extends ScanCache {
  readonly groups: GroupCache = new RevisedMap(() => this.revision++);
  readonly settings: SettingsCache = new Map();
  readonly identities: IdentityCache = new Map();
  /** Each project's identity with the repository files it was read from: an unchanged rescan stats them, no more. */
  readonly identityMemos: IdentityMemos = new Map();
  /** Taken right before the project folders were last looked at ({@link ScanCache.settledBefore}): folders changed after it are not written down. */
  groupsSettledBefore = 0;
}

/** The home's projects, grouped (project-groups.ts), noting for the cache file when their folders were looked at. */
function groupsOf(home: string, cache: HomeScanCache | undefined): Promise<ProjectGroup[]> {
  if (cache) cache.groupsSettledBefore = cache.settledBefore();
  return groupProjects(home, cache?.groups);
}

/** What one scan reads once for all its projects. */
interface ScanPass extends ScanHomeOptions {
  remembered: RememberedIdentities;
  shared: SharedSettings;
}

async function launchDirsOf(home: string, group: ProjectGroup, primary: EffectiveSettings, options: ScanPass): Promise<LaunchDirScan[]> {
  const out: LaunchDirScan[] = [];
  const main = primaryLaunchFolder(group);
  for (const l of group.launchFolders) {
    // The project's own settings were read for its main launch directory: not read twice.
    const s =
      l === main
        ? primary
        : await readEffectiveSettings(home, launchContextOf(l).launch, options.env, {
            ...(options.cache ? { cache: options.cache.settings } : {}),
            ...(options.managedDir ? { managedDir: options.managedDir } : {}),
            shared: options.shared,
          });
    out.push({
      cwd: l.cwd,
      folder: l.folder,
      transcripts: l.transcripts,
      autoMemoryEnabled: s.autoMemoryEnabled,
      autoMemoryEnabledSource: s.autoMemoryEnabledSource,
      autoMemoryEnabledFrom: s.autoMemoryEnabledFrom,
    });
  }
  return out;
}

async function scanGroup(home: string, group: ProjectGroup, options: ScanPass): Promise<ProjectScan> {
  const locateOptions: LocateOptions = {
    ...(options.cache ? { settingsCache: options.cache.settings } : {}),
    ...(options.managedDir ? { managedDir: options.managedDir } : {}),
    sharedSettings: options.shared,
  };
  const loc = await locateGroup(home, group, options.env, locateOptions);
  const cache = options.cache;
  const ownScan = scanMemoryDir(loc.memoryDir, { scope: 'private', ...(cache ? { cache } : {}) });
  const teamScan = scanMemoryDir(teamDirOf(loc.memoryDir), {
    scope: 'team',
    linkedFromParent: () => teamFilesLinkedFrom(loc.memoryDir, cache),
    ...(cache ? { cache } : {}),
  });
  const setting = loc.settings.memoryStores;
  const folders = storeModeFolders(loc.memoryDir, setting, { teamExists: teamScan.exists });
  const { own, team } = withClaudeCodeStores(withAutoMemory(ownScan, loc.settings.autoMemoryEnabled), teamScan, {
    memoryDir: loc.memoryDir,
    setting,
    folders,
    readOnly: readOnlyStoreFolders(loc.memoryDir, loc.settings.memoryStores, folders),
  });
  return {
    ...own,
    dir: group.dir,
    path: group.key,
    team: team.exists ? team : null,
    transcripts: group.launchFolders.reduce((n, l) => n + l.transcripts, 0),
    launchDirs: await launchDirsOf(home, group, loc.settings, options),
    readInstead: group.readInstead,
    settings: loc.settings,
    identity: await identifyProject(home, group, { remembered: options.remembered, ...(cache ? { cache: cache.identities, memos: cache.identityMemos } : {}) }),
  };
}

/**
 * Run one scan: with the store of remembered identities (opened and saved here unless the caller
 * holds one) and the managed and user settings, read once for every project of the scan.
 */
async function inPass<T>(home: string, options: ScanHomeOptions, fn: (pass: ScanPass) => Promise<T>): Promise<T> {
  const shared = readSharedSettings(home, {
    ...(options.cache ? { cache: options.cache.settings } : {}),
    ...(options.managedDir ? { managedDir: options.managedDir } : {}),
  });
  if (options.remembered) return fn({ ...options, remembered: options.remembered, shared });
  const remembered = await RememberedIdentities.open(options.dataDir);
  const result = await fn({ ...options, remembered, shared });
  await remembered.save();
  return result;
}

/**
 * Scan one project by a folder name under `projects/`: its memory folder's, or a transcript
 * folder's (then the project whose memory its sessions read). A name that is neither scans as
 * an empty project of that name.
 */
export async function scanProject(home: string, dir: string, options: ScanHomeOptions = {}): Promise<ProjectScan> {
  const groups = await groupsOf(home, options.cache);
  const group = groupOfFolder(groups, dir) ?? { dir, key: null, explanation: null, launchFolders: [], folderExists: false, readInstead: null };
  return inPass(home, options, (pass) => scanGroup(home, group, pass));
}

/** How long a scan runs before it lets other work in (between two projects). */
const YIELD_AFTER_MS = 4;

/** Scan every project in the home. */
export async function scanHome(home: string, options: ScanHomeOptions = {}): Promise<HomeScan> {
  if (!fs.existsSync(home)) return { home, exists: false, projects: [] };
  const groups = await groupsOf(home, options.cache);
  const projects = await inPass(home, options, async (pass) => {
    const out: ProjectScan[] = [];
    let ranSince = performance.now();
    for (const group of groups) {
      out.push(await scanGroup(home, group, pass));
      // Reads inside a project are synchronous (see read-file.ts); let other work run between
      // projects once they have held the thread a while (an unchanged project takes a fraction of
      // a millisecond: a turn of the event loop after each would cost a scan of hundreds more).
      if (performance.now() - ranSince >= YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        ranSince = performance.now();
      }
    }
    return out;
  });
  return { home, exists: true, projects };
}
