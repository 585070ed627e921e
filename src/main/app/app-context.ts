/**
 * Everything the app's services share while it runs: which home it looks at, Memdir's data dir,
 * the scan cache, the event bus and the file watcher. Both shells (Electron and the headless
 * host) create one and hand it to the same API handlers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolveDataDir, workInDataDir } from '../core/data-dir.js';
import { type HomeScanCache, type OpenedScanCache, openScanCache, resolveHome, scanHome, scanProject, type Where } from '../memdir/index.js';
import type { Scope } from '../../shared/memory-types.js';
import type { HomeScan, ProjectScan } from '../../shared/scan-types.js';
import { RpcError } from '../../shared/contract/define.js';
import { EventBus } from '../core/event-bus.js';
import { JobRunner } from '../jobs/index.js';
import { DreamService } from '../dream/index.js';
import { finishUnfinishedTurn } from '../relink/index.js';
import type { AutoMemory } from '../hooks/index.js';
import type { RecallService } from '../recall/index.js';
import { type CredentialCipher, FileCredentialStore } from '../settings/index.js';
import { type HomeChoice, readHomeChoice, writeHomeChoice } from './home-choice.js';
import { MemoryWatcher } from './memory-watcher.js';
import type { PersonalService } from '../personal/index.js';
import type { TeamService, TeamServiceOptions } from '../team/index.js';
import type { DesktopShell } from '../desktop/index.js';

export interface AppContextOptions {
  /** Encrypts stored credentials (the Electron shell passes safeStorage); none = stored unencrypted, 0600. */
  cipher?: CredentialCipher;
  /** `--home` given on the command line: wins over everything else. */
  homeFlag?: string;
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** Watch the home for changes made by other programs (off in unit tests). */
  watch?: boolean;
  /** What only the desktop app can do (the Electron shell passes it; the headless host has none). */
  desktop?: DesktopShell;
  /**
   * Start the background services (with `watch: true`) only once the dashboard's first list has
   * been answered ({@link AppContext.firstListAnswered}), or {@link FIRST_LIST_WAIT_MS} after the
   * first scan when no window asks for one: the headless host, whose page loads while the app opens.
   */
  servicesAfterFirstList?: boolean;
  /** How team sync runs (tests: `{ onlyWhenTold: true }`, so no background sync races the sync they assert on). */
  team?: TeamServiceOptions;
}

/**
 * A project's memory as a scan reads it (its memory directory and team memory), without what the
 * watcher does not watch either: its sessions, settings and identity.
 */
function memoryOf(p: ProjectScan): string {
  const {
    dir: _dir,
    path: _path,
    transcripts: _transcripts,
    launchDirs: _launchDirs,
    readInstead: _readInstead,
    settings: _settings,
    identity: _identity,
    ...memory
  } = p;
  return JSON.stringify(memory);
}

/** The projects whose memory differs between two scans of a home (or that only one of them has). */
function changedProjects(before: HomeScan, after: HomeScan): string[] {
  const was = new Map(before.projects.map((p) => [p.dir, memoryOf(p)]));
  const dirs: string[] = [];
  for (const p of after.projects) {
    if (was.get(p.dir) !== memoryOf(p)) dirs.push(p.dir);
    was.delete(p.dir);
  }
  return [...dirs, ...was.keys()];
}

/** How long the background services wait for the dashboard's first list once the first scan is done. */
export const FIRST_LIST_WAIT_MS = 1_500;

/** The services whose code is loaded with the background services (`loadServices`), not before the first list. */
interface LoadedServices {
  autoMemory: AutoMemory;
  team: TeamService;
  personal: PersonalService;
  RecallService: typeof RecallService;
}

export class AppContext {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly events = new EventBus();
  readonly jobs = new JobRunner(this.events);
  /**
   * Dreams: status, Dream now, history, revert; the scheduler runs only with `watch: true`. Here
   * from the start: its crash sweep runs before anything is shown (the rest of dream loads when used).
   */
  readonly dreams: DreamService = new DreamService(this);
  readonly credentials: FileCredentialStore;
  /**
   * Sentences of merges a killed Memdir left between their folders, put back whole (at the start,
   * or by a merge call since), not shown yet: the dashboard takes them where merge results show
   * (`identity.recovered`).
   */
  readonly turnNotices: string[] = [];
  /** The desktop app's own abilities (reveal a file, login item, theme); null in the headless host. */
  readonly desktop: DesktopShell | null;
  /**
   * Auto memory, team and personal sync and recall, loaded with import() once the first scan is
   * done (with `servicesAfterFirstList`, once the dashboard's first list is answered), at once
   * without `watch`: the dashboard's first list needs none of their code (issue 16, bench start).
   */
  private loaded: LoadedServices | null = null;
  private loading: Promise<LoadedServices> | null = null;
  private recallService: RecallService | null = null;
  private scanCache!: OpenedScanCache;
  private cacheSave: NodeJS.Timeout | null = null;
  private choice: HomeChoice = { home: null, demoHome: null };
  private watcher: MemoryWatcher | null = null;
  private homeValue = '';
  private homeSourceValue: 'default' | 'env' | 'flag' | 'settings' | 'demo' = 'default';
  /** Bumped by every change Memdir makes or its watcher sees, and by a home switch. */
  private changes = 0;
  /** The home scan running now, and the changes count it started at. */
  private scanning: { changes: number; scan: Promise<HomeScan> } | null = null;
  /**
   * With `servicesAfterFirstList`: the start's own scan, kept done for the dashboard's first list
   * until the services start (at most FIRST_LIST_WAIT_MS after it), unless a change came since.
   */
  private startScan: { changes: number; scan: Promise<HomeScan> } | null = null;
  private servicesStarting: Promise<void> = Promise.resolve();
  /** Settles when the dashboard's first list has been answered, or when the app closes. */
  private firstList: Promise<void>;
  private releaseServices!: () => void;
  private closing = false;

  private constructor(private readonly options: AppContextOptions) {
    this.env = options.env ?? process.env;
    this.dataDir = options.dataDir ?? resolveDataDir(this.env);
    // The process works in this context's data dir (the key of secrets' fingerprints lives there).
    workInDataDir(this.dataDir);
    this.credentials = new FileCredentialStore(this.dataDir, options.cipher);
    this.desktop = options.desktop ?? null;
    this.firstList = new Promise<void>((resolve) => (this.releaseServices = resolve));
  }

  /** Extraction, Session Memory and Claude Code hooks (issue 5); started only with `watch: true`. */
  get autoMemory(): AutoMemory {
    return this.services().autoMemory;
  }
  /** Team sync and alerts (issue 7); the debounced and periodic syncs run only with `watch: true`. */
  get team(): TeamService {
    return this.services().team;
  }
  /** Personal sync between the user's machines (issue 18); its background syncs run only with `watch: true`. */
  get personal(): PersonalService {
    return this.services().personal;
  }

  private services(): LoadedServices {
    if (!this.loaded) throw new Error('Memdir’s services are still loading: wait for AppContext.servicesStarted before using them.');
    return this.loaded;
  }

  /** Loads the services' code (once) and creates them. */
  private loadServices(): Promise<LoadedServices> {
    this.loading ??= this.importServices();
    return this.loading;
  }

  private async importServices(): Promise<LoadedServices> {
    const [{ AutoMemory }, { TeamService }, { PersonalService }, { RecallService }] = await Promise.all([
      import('../hooks/index.js'),
      import('../team/index.js'),
      import('../personal/index.js'),
      import('../recall/index.js'),
    ]);
    // Runs once: loadServices keeps the one promise.
    const team = new TeamService(this, this.options.team);
    this.loaded = { autoMemory: new AutoMemory(this), team, personal: new PersonalService(this, team.alerts), RecallService };
    return this.loaded;
  }

  /** Recall over the current home (one ranker per memory dir, kept up to date incrementally). */
  get recall(): RecallService {
    if (!this.recallService || this.recallService.home !== this.homeValue) {
      this.recallService = new (this.services().RecallService)({ home: this.homeValue, env: this.env, dataDir: this.dataDir, credentials: this.credentials });
    }
    return this.recallService;
  }

  /** The app open and its background services started (see `open`). */
  static async create(options: AppContextOptions = {}): Promise<AppContext> {
    const ctx = await AppContext.open(options);
    await ctx.servicesStarted;
    return ctx;
  }

  /**
   * The app open far enough to say what the home holds: the home chosen, the scan cache read, a
   * killed dream undone and (with `watch: true`) the first scan running. The watcher and the
   * background services (dream scheduler, hooks and transcript watcher, team and personal sync)
   * start after that first scan, not beside it: on a start they took the CPU the dashboard's first
   * list waits for (issue 16, bench start) — and with `servicesAfterFirstList`, after that list
   * has been answered. `servicesStarted` settles when they have started. The code of auto memory,
   * team and personal sync and recall is loaded with import() then too (at once without `watch`),
   * so none of it is read before the first list.
   */
  static async open(options: AppContextOptions = {}): Promise<AppContext> {
    const ctx = new AppContext(options);
    ctx.choice = await readHomeChoice(ctx.dataDir);
    ctx.applyHome();
    ctx.openCache();
    // A dream killed while it applied (kill -9, power loss) is undone before anything is shown.
    await ctx.dreams.recover();
    // So is a merge, relink or import (or its undo) killed between its folders: put back whole, and told on the dashboard.
    const turn = await finishUnfinishedTurn(ctx.dataDir).catch(
      (error: unknown) => `Memdir could not finish a merge it was stopped in: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (turn) ctx.turnNotices.push(turn);
    if (options.watch) {
      // The start's own scan; the watcher starts once it is done (startServices).
      ctx.scanHome().catch(() => undefined);
      if (options.servicesAfterFirstList) ctx.startScan = ctx.scanning;
      ctx.servicesStarting = ctx.startServices();
      // Whoever awaits it hears a failure; a process that never does is not brought down by it.
      ctx.servicesStarting.catch(() => undefined);
    } else {
      // Nothing runs in the background: the services are there when open returns, as before.
      await ctx.loadServices();
    }
    return ctx;
  }

  private async startServices(): Promise<void> {
    const first = await this.scanning?.scan.catch(() => null);
    // Taken as the start's scan settles: a scan made before the watches (a second list) may read a change first.
    const revision = this.cache.revision;
    if (this.options.servicesAfterFirstList) {
      // Their code loads after the list too: read while the page loads, it held the host's one
      // thread (static files, the event stream, the list asked meanwhile) and took the CPU the
      // browser was loading the page with (issue 16, bench start).
      const timer = setTimeout(this.releaseServices, FIRST_LIST_WAIT_MS);
      await this.firstList;
      clearTimeout(timer);
      this.startScan = null;
      // The answer is sent before the services take the CPU: its sending runs in the task that settled it.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.watchFromNow(first ?? null, revision);
    // Loaded even when closed meanwhile: calls still answered after close find the services there.
    const services = await this.loadServices();
    // Closed before they started: nothing to start, nothing to stop.
    if (this.closing) return;
    this.dreams.startScheduler();
    await services.autoMemory.start();
    await services.team.start();
    await services.personal.start();
  }

  /**
   * The dashboard's first list has been answered (the api says so): background services waiting
   * for it (`servicesAfterFirstList`) start now.
   */
  firstListAnswered(): void {
    this.releaseServices();
  }

  /** Settles once the background services have started (at once without `watch`); rejects with why they could not. */
  get servicesStarted(): Promise<void> {
    return this.servicesStarting;
  }

  get home(): string {
    return this.homeValue;
  }
  get homeSource(): AppContext['homeSourceValue'] {
    return this.homeSourceValue;
  }
  get demoHome(): string | null {
    return this.choice.demoHome;
  }

  private applyHome(): void {
    if (this.options.homeFlag) {
      this.homeValue = path.resolve(this.options.homeFlag);
      this.homeSourceValue = 'flag';
    } else if (this.choice.home) {
      this.homeValue = this.choice.home;
      this.homeSourceValue = this.choice.home === this.choice.demoHome ? 'demo' : 'settings';
    } else {
      this.homeValue = resolveHome(this.env);
      this.homeSourceValue = this.env.CLAUDE_CONFIG_DIR ? 'env' : 'default';
    }
  }

  /** Switch homes (Settings, the demo workspace). A `--home` flag is dropped once the user chooses. */
  async setHome(home: string | null, demoHome?: string): Promise<void> {
    this.choice = { home, demoHome: demoHome ?? this.choice.demoHome };
    await writeHomeChoice(this.dataDir, this.choice);
    delete this.options.homeFlag;
    this.changes++;
    this.applyHome();
    await this.flushCache();
    this.openCache();
    if (this.watcher) {
      await this.watcher.close();
      this.startWatching();
      // Find memory dirs moved by settings now, not at the renderer's first list.
      this.scanHome().catch(() => undefined);
    }
    this.events.publish({ type: 'home-changed', home: this.homeValue });
  }

  homeExists(): boolean {
    return fs.existsSync(this.homeValue);
  }

  private get cache(): HomeScanCache {
    return this.scanCache.cache;
  }

  /** The scan cache of the current home, as the last process left it in the data dir. */
  private openCache(): void {
    this.scanCache = openScanCache(this.dataDir, this.homeValue);
  }

  /** Write the scan cache a moment after scans settle (and at close), not after every one. */
  private scheduleCacheSave(): void {
    if (this.cacheSave) return;
    this.cacheSave = setTimeout(() => {
      this.cacheSave = null;
      void this.scanCache.save();
    }, 2_000);
    this.cacheSave.unref();
  }

  private async flushCache(): Promise<void> {
    if (this.cacheSave) clearTimeout(this.cacheSave);
    this.cacheSave = null;
    await this.scanCache.save();
  }

  /**
   * The home as it is now. A scan already running since the last change answers a caller too:
   * the start's own scan (open) and the dashboard's first list are one scan, not two
   * back to back (issue 16, bench start) — also when the page loaded while the app opened and the
   * list is asked after that scan is done (`startScan`).
   */
  scanHome(): Promise<HomeScan> {
    const start = this.startScan;
    this.startScan = null;
    if (start && start.changes === this.changes) return start.scan;
    if (this.scanning && this.scanning.changes === this.changes) return this.scanning.scan;
    const scanning = { changes: this.changes, scan: this.runScan() };
    this.scanning = scanning;
    const done = () => {
      if (this.scanning === scanning) this.scanning = null;
    };
    scanning.scan.then(done, done);
    return scanning.scan;
  }

  private async runScan(): Promise<HomeScan> {
    const scan = await scanHome(this.homeValue, { cache: this.cache, env: this.env, dataDir: this.dataDir });
    if (scan.exists) this.scheduleCacheSave();
    // A memory dir moved by settings is watched where the scan found it.
    this.watcher?.track(scan.projects);
    return scan;
  }

  /** One project by its directory name; a clear not-found error for a name that is not there. */
  async project(dir: string): Promise<ProjectScan> {
    if (dir.includes('/') || dir.includes('\\') || dir === '.' || dir === '..' || dir.includes('\0')) {
      throw new RpcError({ code: 'invalid-input', message: `"${dir}" is not a project directory name.` });
    }
    const scan = await scanProject(this.homeValue, dir, { cache: this.cache, env: this.env, dataDir: this.dataDir });
    // A project is a folder under projects/, or a memory folder its sessions read but Claude Code has not created yet (R-LAYOUT).
    if (!scan.exists && scan.launchDirs.length === 0 && !fs.existsSync(path.join(this.homeValue, 'projects', dir))) {
      throw new RpcError({ code: 'not-found', message: `There is no project "${dir}" in ${this.homeValue}.` });
    }
    this.scheduleCacheSave();
    return scan;
  }

  /** Where a write in this project and scope goes. */
  async where(dir: string, scope: Scope): Promise<Where & { project: ProjectScan }> {
    const project = await this.project(dir);
    return { memoryDir: project.memoryDir, scope, dataDir: this.dataDir, project };
  }

  /** A Claude Code session of a project ended (SessionEnd hook): let the dream scheduler look. */
  sessionEnded(projectDir: string): void {
    this.dreams.noteSessionEnded(projectDir);
  }

  /** After Memdir itself changed files: forget cached facts and tell the renderer. */
  changed(dir: string, memoryDir: string): void {
    this.changes++;
    this.cache.forget(memoryDir);
    this.watcher?.noteOwnWrite(memoryDir);
    this.events.publish({ type: 'projects-changed', dirs: [dir], external: false });
  }

  private startWatching(): void {
    this.watcher = new MemoryWatcher(this.homeValue, this.dataDir, (dirs) => {
      this.changes++;
      this.events.publish({ type: 'projects-changed', dirs, external: true });
    });
  }

  /**
   * The watcher on after the start's scan (`first`), not before it: setting up its watches lists
   * every memory dir, and on a start that was CPU the dashboard's first list waited for (issue 16,
   * bench start). What changed before the watches were set is found by a scan made once they are
   * (an unchanged home: stats only) and told as the watcher tells a change: compared with `first`,
   * whichever scan read the change first, and every project of a home created meanwhile.
   * `revision`: the scan cache's as `first` settled.
   */
  private async watchFromNow(first: HomeScan | null, revision: number): Promise<void> {
    if (this.closing) return;
    this.startWatching();
    // A scan of its own, begun after the watches: not one already running.
    this.changes++;
    const now = await this.scanHome().catch(() => null);
    // The scan cache's revision moves only when a scan read something new (or Memdir wrote), since `first` too.
    if (!first || !now || now.home !== first.home || this.cache.revision === revision) return;
    const dirs = changedProjects(first, now);
    if (dirs.length > 0) this.watcher?.noteChanges(dirs);
  }

  async close(): Promise<void> {
    // Services still starting are let finish, so that closing stops every one of them; services
    // still waiting for the first list never start.
    this.closing = true;
    this.releaseServices();
    await this.servicesStarted.catch(() => undefined);
    await this.flushCache();
    await this.loaded?.team.close();
    await this.loaded?.personal.close();
    await this.loaded?.autoMemory.close();
    await this.dreams.close();
    await this.jobs.close();
    await this.watcher?.close();
    this.watcher = null;
  }
}
