/**
 * Watches the home's memory directories for changes made by other programs (Claude Code
 * writing a memory, an editor, git) and reports which projects changed, debounced, within
 * well under a second. Changes found this way are recorded in history as `external`.
 * A memory dir moved elsewhere by `autoMemoryDirectory` (R-SETTINGS) is watched where it is,
 * once a scan has told where that is (`track`).
 */
import path from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { recordSnapshot } from '../history/history.js';

const DEBOUNCE_MS = 120;
/** Memdir's own writes are announced directly; the watcher ignores their echo for this long. */
const OWN_WRITE_MS = 1500;

export class MemoryWatcher {
  private readonly watcher: FSWatcher;
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private readonly ownWrites = new Map<string, number>();
  /** Memory dirs outside `projects/<dir>/memory` (moved by settings) → their project's dir name. */
  private readonly moved = new Map<string, string>();

  constructor(
    private readonly home: string,
    private readonly dataDir: string,
    private readonly onChange: (dirs: string[]) => void,
  ) {
    const projects = path.join(home, 'projects');
    this.watcher = watch(projects, {
      ignoreInitial: true,
      // projects/<dir>/memory/<file> and projects/<dir>/memory/team/<file>
      depth: 3,
      ignored: (file, stats) => {
        const movedTo = this.movedDirOf(file);
        if (movedTo) {
          // <memory dir>/<file> and <memory dir>/team/<file>
          const parts = path.relative(movedTo, file).split(path.sep).filter(Boolean);
          if (parts.some((p) => p.startsWith('.')) || parts.length > 2) return true;
          return stats?.isFile() === true && !file.endsWith('.md');
        }
        const rel = path.relative(projects, file);
        if (rel === '') return false;
        const parts = rel.split(path.sep);
        if (parts.some((p) => p.startsWith('.'))) return true;
        if (parts.length >= 2 && parts[1] !== 'memory') return true;
        if (stats?.isFile() && !file.endsWith('.md')) return true;
        return false;
      },
    });
    this.watcher.on('all', (_event, file) => this.note(file));
    // A watcher failing (too many watches, permissions) must not take the app down.
    this.watcher.on('error', () => undefined);
  }

  /**
   * Where each project's memory dir is now (from a scan): the ones moved out of
   * `projects/<dir>/memory` are watched there; ones no longer moved are let go.
   */
  track(projects: readonly { dir: string; memoryDir: string }[]): void {
    const now = new Map<string, string>();
    for (const p of projects) if (p.memoryDir !== this.defaultMemoryDir(p.dir)) now.set(p.memoryDir, p.dir);
    for (const memoryDir of this.moved.keys()) {
      if (!now.has(memoryDir)) {
        this.moved.delete(memoryDir);
        void this.watcher.unwatch(memoryDir);
      }
    }
    for (const [memoryDir, dir] of now) {
      if (this.moved.get(memoryDir) === dir) continue;
      this.moved.set(memoryDir, dir);
      this.watcher.add(memoryDir);
    }
  }

  private defaultMemoryDir(dir: string): string {
    return path.join(this.home, 'projects', dir, 'memory');
  }

  /** The moved memory dir holding `file` (or being it), if any. */
  private movedDirOf(file: string): string | null {
    for (const memoryDir of this.moved.keys()) {
      if (file === memoryDir || file.startsWith(memoryDir + path.sep)) return memoryDir;
    }
    return null;
  }

  private memoryDirOf(dir: string): string {
    for (const [memoryDir, owner] of this.moved) if (owner === dir) return memoryDir;
    return this.defaultMemoryDir(dir);
  }

  /** Remember that Memdir itself just wrote into this memory dir. */
  noteOwnWrite(memoryDir: string): void {
    this.ownWrites.set(memoryDir, Date.now());
  }

  private note(file: string): void {
    const movedTo = this.movedDirOf(file);
    const dir = movedTo ? this.moved.get(movedTo) : path.relative(path.join(this.home, 'projects'), file).split(path.sep)[0];
    if (!dir || dir.startsWith('..')) return;
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
      recordSnapshot(memoryDir, { source: 'external', summary: 'Changes made outside Memdir', dataDir: this.dataDir }).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.watcher.close();
  }
}
