import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryWatcher } from './memory-watcher.js';

let root: string;
let watcher: MemoryWatcher | null = null;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-watch-')));
});
afterEach(async () => {
  await watcher?.close();
  watcher = null;
  // History snapshots of external changes are written in the background; let them land.
  await fs.rm(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** Resolves with the next batch of changed projects (or [] after `ms`). */
function nextChange(changes: string[][], ms = 5_000): Promise<string[]> {
  const start = changes.length;
  return new Promise((resolve) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (changes.length > start || Date.now() - started > ms) {
        clearInterval(poll);
        resolve(changes[start] ?? []);
      }
    }, 20);
  });
}

// No wait for the watcher to be ready: its directory watches are set when it is made (and by
// track), and a folder made later is watched by the time its change is reported.

describe('MemoryWatcher', () => {
  it('reports a memory written by another program, and one in a memory dir moved by settings once a scan said where', async () => {
    const home = path.join(root, 'home');
    const own = path.join(home, 'projects', '-work-app', 'memory');
    const moved = path.join(root, 'elsewhere', 'memory');
    await fs.mkdir(path.join(own, 'team'), { recursive: true });
    await fs.mkdir(path.join(home, 'projects', '-work-moved'), { recursive: true });
    await fs.mkdir(path.join(moved, 'team'), { recursive: true });
    const changes: string[][] = [];
    watcher = new MemoryWatcher(home, path.join(root, 'data'), (dirs) => changes.push(dirs));
    watcher.track([
      { dir: '-work-app', memoryDir: own },
      { dir: '-work-moved', memoryDir: moved },
    ]);

    let next = nextChange(changes);
    await fs.writeFile(path.join(own, 'user_role.md'), '---\nname: Role\ndescription: d\ntype: user\n---\n');
    expect(await next).toEqual(['-work-app']);

    next = nextChange(changes);
    await fs.writeFile(path.join(moved, 'team', 'project_api.md'), '---\nname: API\ndescription: d\ntype: project\n---\n');
    expect(await next).toEqual(['-work-moved']);

    // Not memories: a dotfile (the consolidation lock) and a non-Markdown file say nothing.
    next = nextChange(changes, 800);
    await fs.writeFile(path.join(moved, '.consolidate-lock'), '123');
    await fs.writeFile(path.join(moved, 'notes.txt'), 'x');
    expect(await next).toEqual([]);

    // Moved back (settings changed): the old place is no longer watched.
    watcher.track([{ dir: '-work-moved', memoryDir: path.join(home, 'projects', '-work-moved', 'memory') }]);
    next = nextChange(changes, 800);
    await fs.writeFile(path.join(moved, 'project_late.md'), '---\nname: Late\ndescription: d\ntype: project\n---\n');
    expect(await next).toEqual([]);
  });

  it('sees projects, memory folders and team folders created after it started, and a home that had no projects yet', async () => {
    const home = path.join(root, 'home');
    await fs.mkdir(path.join(home, 'projects', '-work-old'), { recursive: true });
    const changes: string[][] = [];
    watcher = new MemoryWatcher(home, path.join(root, 'data'), (dirs) => changes.push(dirs));

    // A project that had only transcripts gets its first memory.
    let next = nextChange(changes);
    await fs.mkdir(path.join(home, 'projects', '-work-old', 'memory'));
    await fs.writeFile(path.join(home, 'projects', '-work-old', 'memory', 'user_role.md'), 'x');
    expect(await next).toEqual(['-work-old']);
    next = nextChange(changes);
    await fs.writeFile(path.join(home, 'projects', '-work-old', 'memory', 'user_role.md'), 'changed in place');
    expect(await next).toEqual(['-work-old']);

    // Transcripts written beside the memory say nothing.
    next = nextChange(changes, 800);
    await fs.writeFile(path.join(home, 'projects', '-work-old', 'session.jsonl'), '{}\n');
    expect(await next).toEqual([]);

    // A new project, then its team folder.
    next = nextChange(changes);
    await fs.mkdir(path.join(home, 'projects', '-work-new', 'memory'), { recursive: true });
    expect(await next).toEqual(['-work-new']);
    next = nextChange(changes);
    await fs.mkdir(path.join(home, 'projects', '-work-new', 'memory', 'team'));
    expect(await next).toEqual(['-work-new']);
    next = nextChange(changes);
    await fs.writeFile(path.join(home, 'projects', '-work-new', 'memory', 'team', 'project_api.md'), 'x');
    expect(await next).toEqual(['-work-new']);
    await watcher.close();

    // A home with no projects folder yet.
    const empty = path.join(root, 'empty-home');
    await fs.mkdir(empty);
    const later: string[][] = [];
    watcher = new MemoryWatcher(empty, path.join(root, 'data'), (dirs) => later.push(dirs));
    // Reported whether the watcher has seen \`projects\` appear by then or finds the project in it when it does.
    await fs.mkdir(path.join(empty, 'projects'));
    next = nextChange(later);
    await fs.mkdir(path.join(empty, 'projects', '-work-first', 'memory'), { recursive: true });
    expect(await next).toEqual(['-work-first']);
  });

  it('sees a home that did not exist when it started, made later by Claude Code with its first memory (two folders down)', async () => {
    // A new user starts Memdir before Claude Code's first session: CLAUDE_CONFIG_DIR (here even its parent) is not there yet.
    const home = path.join(root, 'not-yet', 'claude');
    const changes: string[][] = [];
    watcher = new MemoryWatcher(home, path.join(root, 'data'), (dirs) => changes.push(dirs));
    let next = nextChange(changes);
    await fs.mkdir(path.join(home, 'projects', '-work-first', 'memory'), { recursive: true });
    await fs.writeFile(path.join(home, 'projects', '-work-first', 'memory', 'feedback_tabs.md'), 'x');
    expect(await next).toEqual(['-work-first']);
    // And from then on it is watched as any home.
    next = nextChange(changes);
    await fs.writeFile(path.join(home, 'projects', '-work-first', 'memory', 'MEMORY.md'), '- [Tabs](feedback_tabs.md)\n');
    expect(await next).toEqual(['-work-first']);
  });

  it('sees memories in subfolders (retros/x.md), in folders there at its start and in ones made since', async () => {
    const home = path.join(root, 'home');
    const memory = path.join(home, 'projects', '-work-app', 'memory');
    await fs.mkdir(path.join(memory, 'retros', '2026'), { recursive: true });
    await fs.mkdir(path.join(memory, 'team', 'runbooks'), { recursive: true });
    const changes: string[][] = [];
    watcher = new MemoryWatcher(home, path.join(root, 'data'), (dirs) => changes.push(dirs));

    let next = nextChange(changes);
    await fs.writeFile(path.join(memory, 'retros', '2026', 'q1.md'), '---\nname: Q1\ndescription: d\ntype: project\n---\n');
    expect(await next).toEqual(['-work-app']);

    next = nextChange(changes);
    await fs.writeFile(path.join(memory, 'team', 'runbooks', 'deploy.md'), 'x');
    expect(await next).toEqual(['-work-app']);

    // A folder made after the start, then a memory in it.
    next = nextChange(changes);
    await fs.mkdir(path.join(memory, 'people'));
    expect(await next).toEqual(['-work-app']);
    next = nextChange(changes);
    await fs.writeFile(path.join(memory, 'people', 'mei.md'), 'x');
    expect(await next).toEqual(['-work-app']);

    // Not memories, in a subfolder either.
    next = nextChange(changes, 800);
    await fs.writeFile(path.join(memory, 'retros', 'notes.txt'), 'x');
    expect(await next).toEqual([]);

    // A folder removed takes its memories with it.
    next = nextChange(changes);
    await fs.rm(path.join(memory, 'retros'), { recursive: true });
    expect(await next).toEqual(['-work-app']);
  });
});
