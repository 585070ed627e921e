/**
 * Watches the home's memory directories for changes made by other programs (Claude Code
 * writing a memory, an editor, git) and reports which projects changed, debounced, within
 * well under a second. Changes found this way are recorded in history as `external`.
 * A memory dir moved elsewhere by `autoMemoryDirectory` (R-SETTINGS) is watched where it is,
 * once a scan has told where that is (`track`).
 *
 * Directories are watched, never files: `projects/`, each `projects/<dir>/` (for its `memory`
 * folder to appear), each memory dir, its `team/` and their subfolders (memories such as
 * `retros/x.md`, as deep as a scan looks). A directory watch reports every entry
 * created, removed, renamed or written inside it, so a home of 10,000 memories costs a few
 * hundred watches set up in milliseconds — a watch per file took seconds at start and runs into
 * the system's limit on watches.
 */
import fs from 'node:fs';
import path from 'node:path';
import { recordSnapshot } from '../history/index.js';
import { MAX_MEMORY_DEPTH } from '../memdir/index.js';
import { TEAM_DIR } from '../../shared/limits.js';

const DEBOUNCE_MS = 120;
/** Memdir's own writes are announced directly; the watcher ignores their echo for this long. */
const OWN_WRITE_MS = 1500;

/** Whether `p` is a directory (not a link to one); false when it cannot be looked at. */
function isPlainDirectory(p: string): boolean {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Whether `p` is a directory, a link to one included (a home may be a link). */
function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** What a watched directory is, and for which project. */
type Role =
  /** The home or the nearest folder above it that exists, while there is no `projects/` yet: `next` is the name on the way to it. */
  | { kind: 'waiting'; next: string }
  | { kind: 'projects' }
  | { kind: 'project'; dir: string }
  | { kind: 'memory'; dir: string; moved: boolean }
  | { kind: 'team'; dir: string }
  /** A subfolder of a memory dir or its team dir, `depth` folders below it. */
  | { kind: 'folder'; dir: string; depth: number };

export class MemoryWatcher {
  private readonly watches = new Map<string, { watcher: fs.FSWatcher; role: Role }>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private readonly ownWrites = new Map<string, number>();
  /** Memory dirs outside `projects/<dir>/memory` (moved by settings) → their project's dir name. */
  private readonly moved = new Map<string, string>();
  private readonly projects: string;
  private closed = false;
  /** History entries being recorded for changes made outside Memdir: close waits for them. */
  private readonly recording = new Set<Promise<unknown>>();

  constructor(
    private readonly home: string,
    private readonly dataDir: string,
    private readonly onChange: (dirs: string[]) => void,
  ) {
    this.projects = path.join(home, 'projects');
    // A home without projects yet, or no home at all (Memdir started before Claude Code's first
    // session): wait for Claude Code to create them.
    if (!this.watchProjects()) this.waitForProjects();
  }

  /**
   * Watch the nearest folder on the way to `projects/` that exists (the home, else the folder
   * above it…) until `projects/` is there; then watch it and report every project it already
   * holds (Claude Code makes the home, `projects/<dir>/` and `memory/` in one go).
   */
  private waitForProjects(): void {
    // Each turn goes one folder deeper at least, or stops.
    for (let turn = 0; turn < 256; turn++) {
      let folder = this.projects;
      while (!isDirectory(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
      if (folder === this.projects) {
        if (!this.watchProjects()) return;
        this.stopWaiting();
        for (const dir of this.subdirs(this.projects)) this.note(dir);
        return;
      }
      const next = path.relative(folder, this.projects).split(path.sep)[0]!;
      this.stopWaiting(folder);
      if (!this.watchDir(folder, { kind: 'waiting', next })) return;
      // Made between the look and the watch: look again.
      if (!fs.existsSync(path.join(folder, next))) return;
    }
  }

  /** Drop the watches that wait for `projects/` (but the one on `keep`). */
  private stopWaiting(keep?: string): void {
    for (const [dir, { role }] of [...this.watches]) if (role.kind === 'waiting' && dir !== keep) this.unwatch(dir);
  }

  private watchProjects(): boolean {
    if (!this.watchDir(this.projects, { kind: 'projects' })) return false;
    for (const dir of this.subdirs(this.projects)) this.watchProject(dir);
    return true;
  }

  /** Names of the subdirectories of `dir` (none when it cannot be listed). */
  private subdirs(dir: string): string[] {
    try {
      return fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
        .map((e) => e.name);
    } catch {
      return [];
    }
  }

  /** Start watching a directory; false when it cannot be watched (missing, no permission, out of watches). */
  private watchDir(dir: string, role: Role): boolean {
    if (this.closed) return false;
    if (this.watches.has(dir)) return true;
    try {
      const watcher = fs.watch(dir, { persistent: false }, (_event, name) => this.event(dir, role, name === null ? null : String(name)));
      // A watch failing later (its directory removed, say) must not take the app down.
      watcher.on('error', () => this.unwatch(dir));
      this.watches.set(dir, { watcher, role });
      return true;
    } catch {
      return false;
    }
  }

  private unwatch(dir: string): void {
    const entry = this.watches.get(dir);
    if (!entry) return;
    entry.watcher.close();
    this.watches.delete(dir);
  }

  /** Drop the watches of a directory and everything below it. */
  private unwatchTree(dir: string): void {
    for (const watched of [...this.watches.keys()]) if (watched === dir || watched.startsWith(dir + path.sep)) this.unwatch(watched);
  }

  private watchProject(dir: string): void {
    const projectDir = path.join(this.projects, dir);
    if (!this.watchDir(projectDir, { kind: 'project', dir })) return;
    if (!this.isMovedProject(dir)) this.watchMemory(path.join(projectDir, 'memory'), dir, false);
  }

  private watchMemory(memoryDir: string, dir: string, moved: boolean): void {
    if (!this.watchDir(memoryDir, { kind: 'memory', dir, moved })) return;
    for (const name of this.subdirs(memoryDir)) {
      if (name === TEAM_DIR) this.watchTeam(path.join(memoryDir, TEAM_DIR), dir);
      else this.watchFolder(path.join(memoryDir, name), dir, 1);
    }
  }

  private watchTeam(teamDir: string, dir: string): void {
    if (!this.watchDir(teamDir, { kind: 'team', dir })) return;
    for (const name of this.subdirs(teamDir)) this.watchFolder(path.join(teamDir, name), dir, 1);
  }

  /** A subfolder and the ones below it, as deep as a scan lists memories (list-memory-files.ts). */
  private watchFolder(folder: string, dir: string, depth: number): void {
    if (depth > MAX_MEMORY_DEPTH || !this.watchDir(folder, { kind: 'folder', dir, depth })) return;
    for (const name of this.subdirs(folder)) this.watchFolder(path.join(folder, name), dir, depth + 1);
  }

  /**
   * An entry of a memory dir, team dir or subfolder that is not a Markdown file: a subfolder made
   * (watched from now on) or removed (its memories went with it). Anything else says nothing.
   */
  private folderEvent(where: string, name: string, dir: string, depth: number): void {
    const folder = path.join(where, name);
    if (this.watches.has(folder)) {
      if (!fs.existsSync(folder)) {
        this.unwatchTree(folder);
        this.note(dir);
      }
      return;
    }
    // A link to a folder is not entered, as a scan does not enter it.
    if (!isPlainDirectory(folder)) return;
    this.watchFolder(folder, dir, depth);
    this.note(dir);
  }

  private isMovedProject(dir: string): boolean {
    for (const owner of this.moved.values()) if (owner === dir) return true;
    return false;
  }

  /** Something happened to `name` inside the watched directory `where`. */
  private event(where: string, role: Role, name: string | null): void {
    if (this.closed) return;
    switch (role.kind) {
      case 'waiting': {
        if (name === null || name === role.next) this.waitForProjects();
        return;
      }
      case 'projects': {
        if (!name || name.startsWith('.')) return;
        const projectDir = path.join(where, name);
        if (fs.existsSync(projectDir)) {
          this.watchProject(name);
          // Its memory may have been written before the watch was set.
          if (fs.existsSync(path.join(projectDir, 'memory'))) this.note(name);
        } else {
          this.unwatchTree(projectDir);
          this.note(name);
        }
        return;
      }
      case 'project': {
        // Transcripts and session folders change here all the time; only `memory` matters.
        if (name !== 'memory' || this.isMovedProject(role.dir)) return;
        const memoryDir = path.join(where, 'memory');
        if (fs.existsSync(memoryDir)) this.watchMemory(memoryDir, role.dir, false);
        else this.unwatchTree(memoryDir);
        this.note(role.dir);
        return;
      }
      case 'memory': {
        if (name === TEAM_DIR) {
          const teamDir = path.join(where, TEAM_DIR);
          if (fs.existsSync(teamDir)) this.watchTeam(teamDir, role.dir);
          else this.unwatchTree(teamDir);
          this.note(role.dir);
          return;
        }
        this.entryEvent(where, name, role.dir, 1);
        return;
      }
      case 'team':
        this.entryEvent(where, name, role.dir, 1);
        return;
      case 'folder':
        this.entryEvent(where, name, role.dir, role.depth + 1);
        return;
    }
  }

  /** `name` changed inside a memory dir, team dir or subfolder (`depth`: a subfolder's depth there). */
  private entryEvent(where: string, name: string | null, dir: string, depth: number): void {
    if (name !== null && name.startsWith('.')) return;
    if (name !== null && !name.endsWith('.md')) {
      this.folderEvent(where, name, dir, depth);
      return;
    }
    this.note(dir);
  }

  /**
   * Where each project's memory dir is now (from a scan): the ones moved out of
   * `projects/<dir>/memory` are watched there; ones no longer moved are let go.
   */
  track(projects: readonly { dir: string; memoryDir: string }[]): void {
    const now = new Map<string, string>();
    for (const p of projects) if (p.memoryDir !== this.defaultMemoryDir(p.dir)) now.set(p.memoryDir, p.dir);
    for (const [memoryDir, dir] of [...this.moved]) {
      if (now.get(memoryDir) === dir) continue;
      this.moved.delete(memoryDir);
      this.unwatchTree(memoryDir);
      if (!this.isMovedProject(dir) && this.watches.has(path.join(this.projects, dir))) this.watchMemory(this.defaultMemoryDir(dir), dir, false);
    }
    for (const [memoryDir, dir] of now) {
      if (this.moved.get(memoryDir) === dir) continue;
      this.moved.set(memoryDir, dir);
      this.unwatchTree(this.defaultMemoryDir(dir));
      this.watchMemory(memoryDir, dir, true);
    }
  }

  private defaultMemoryDir(dir: string): string {
    return path.join(this.projects, dir, 'memory');
  }

  private memoryDirOf(dir: string): string {
    for (const [memoryDir, owner] of this.moved) if (owner === dir) return memoryDir;
    return this.defaultMemoryDir(dir);
  }

  /** Changes found otherwise (a scan made once the watches were set): told as the watcher's own are. */
  noteChanges(dirs: readonly string[]): void {
    if (this.closed) return;
    for (const dir of dirs) this.note(dir);
  }

  /** Remember that Memdir itself just wrote into this memory dir. */
  noteOwnWrite(memoryDir: string): void {
    this.ownWrites.set(memoryDir, Date.now());
  }

  private note(dir: string): void {
    this.pending.add(dir);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
  }

  private flush(): void {
    this.timer = null;
    const dirs = [...this.pending];
    this.pending.clear();
    const now = Date.now();
    const external = dirs.filter((dir) => {
      const memoryDir = this.memoryDirOf(dir);
      const own = this.ownWrites.get(memoryDir);
      return own === undefined || now - own > OWN_WRITE_MS;
    });
    if (dirs.length > 0) this.onChange(dirs);
    for (const dir of external) {
      const memoryDir = this.memoryDirOf(dir);
      // Best effort: history catches up again at the next write or history view.
      const recorded = recordSnapshot(memoryDir, { source: 'external', summary: 'Changes made outside Memdir', dataDir: this.dataDir })
        .catch(() => undefined)
        .finally(() => this.recording.delete(recorded));
      this.recording.add(recorded);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const dir of [...this.watches.keys()]) this.unwatch(dir);
    // Closed means done writing: a recording already begun lands before close returns, never in a data dir being removed.
    await Promise.all([...this.recording]);
  }
}
