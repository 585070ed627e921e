// Session 40 review of `memdir` as a scriptable product: the real `memdir` process, as a script or a
// person at a terminal meets it — a misspelt command or option, `memdir help <command>`, Ctrl-C.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MEMDIR = path.join(import.meta.dirname, 'memdir.ts');
let root: string;
let env: NodeJS.ProcessEnv;

const topic = (i: number) => `---\nname: Note ${i}\ndescription: note number ${i} about the payments service\ntype: project\n---\n\nbody ${i}\n`;

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-scripting-')));
  env = { ...process.env, CLAUDE_CONFIG_DIR: path.join(root, 'home'), MEMDIR_DATA_DIR: path.join(root, 'data'), NO_COLOR: '1' };
  delete env.MEMDIR_DEBUG;
});
afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** Run the real memdir; `whenStarted` (given the child) may signal it. */
function memdir(args: string[], whenStarted?: (child: ReturnType<typeof spawn>) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MEMDIR, ...args], {
      env,
      cwd: path.resolve(import.meta.dirname, '../..'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', reject);
    child.once('exit', (code, signal) => setImmediate(() => resolve({ code, signal, out, err })));
    whenStarted?.(child);
  });
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

describe('a misspelt command, subcommand or option gets a suggestion, not a dump', () => {
  it.each([
    [['scna'], 'memdir: unknown command "scna": did you mean `memdir scan`? Run `memdir --help` for the list.\n'],
    [['hisotry', 'x'], 'memdir: unknown command "hisotry": did you mean `memdir history`? Run `memdir --help` for the list.\n'],
    [['team', 'sycn'], 'memdir team: unknown subcommand "sycn": did you mean `memdir team sync`? Run `memdir team --help`.\n'],
    [['dream', 'stauts', '--project', 'x'], 'memdir dream: unknown subcommand "stauts": did you mean `memdir dream status`? Run `memdir dream --help`.\n'],
    [['scan', '--jsno'], 'memdir scan: unknown option --jsno: did you mean --json? Run `memdir scan --help`.\n'],
    [['scan', '-j'], 'memdir scan: unknown option -j: did you mean --json? Run `memdir scan --help`.\n'],
    [['lint', '--hoem', 'H'], 'memdir lint: unknown option --hoem: did you mean --home? Run `memdir lint --help`.\n'],
  ])('memdir %j', async (args, err) => {
    const run = await memdir(args);
    expect(run).toMatchObject({ code: 2, out: '', err });
  });

  it('a word near nothing is named with the list to choose from', async () => {
    const run = await memdir(['team', 'frobnicate']);
    expect(run.code).toBe(2);
    expect(run.err).toBe(
      'memdir team: unknown subcommand "frobnicate" (connect, status, sync, conflicts, resolve, retire, disconnect). Run `memdir team --help`.\n',
    );
  });

  it('memdir help <command> prints that command’s help, as <command> --help does', async () => {
    const [help, flag] = await Promise.all([memdir(['help', 'team', 'sync']), memdir(['team', 'sync', '--help'])]);
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toContain('Usage: memdir team sync');
    expect(help.out).toBe(flag.out);
  });
});

describe('Ctrl-C (a real SIGINT)', () => {
  it('during a merge: the write under way is finished, not left half-made, and the command says so (exit 130)', async () => {
    const from = path.join(root, 'home', 'projects', '-work-big', 'memory');
    const into = path.join(root, 'home', 'projects', '-work-app', 'memory');
    await fs.mkdir(from, { recursive: true });
    await fs.mkdir(into, { recursive: true });
    const lines: string[] = [];
    for (let i = 0; i < 800; i++) {
      await fs.writeFile(path.join(from, `project_n${i}.md`), topic(i));
      if (i < 150) lines.push(`- [Note ${i}](project_n${i}.md) — note ${i}`);
    }
    await fs.writeFile(path.join(from, 'MEMORY.md'), `${lines.join('\n')}\n`);
    await fs.writeFile(path.join(into, 'MEMORY.md'), '- [App](project_app.md) — the app\n');
    await fs.writeFile(path.join(into, 'project_app.md'), topic(-1));
    const journal = path.join(root, 'data', 'merges', 'turning.json');

    const run = await memdir(['merge', '-work-big', '-work-app', '--force', '--yes', '--json'], (child) => {
      // Ctrl-C once the merge is writing the folders (its intent is on disk).
      // Once: a check still under way when the first saw it would press Ctrl-C a second time.
      let sent = false;
      const poll = setInterval(() => {
        void exists(journal).then((writing) => {
          if (!writing || sent) return;
          sent = true;
          clearInterval(poll);
          child.kill('SIGINT');
        });
      }, 5);
      child.once('exit', () => clearInterval(poll));
    });

    expect(run.signal).toBeNull();
    expect(run.code).toBe(130);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^memdir merge: Ctrl-C: finishing the write under way first, so nothing is left half-written/);
    expect(run.err).toMatch(/memdir merge: stopped after finishing the write under way: nothing is half-written/);
    // Whole: no half-made turn left for the next run to put back, every memory in one folder.
    expect(await exists(journal)).toBe(false);
    const moved = (await fs.readdir(into)).filter((f) => f.startsWith('project_n'));
    const left = (await fs.readdir(from).catch(() => [])).filter((f) => f.startsWith('project_n'));
    expect(moved.length + left.length).toBe(800);
    expect(moved.length === 800 || left.length === 800).toBe(true);
  });

  it('while nothing is being written (waiting for a server): stops at once and says nothing is half-written (exit 130)', async () => {
    await fs.mkdir(path.join(root, 'home', 'projects', '-work-quiet', 'memory'), { recursive: true });
    // A sync server that takes the request and never answers: Ctrl-C while memdir waits for it.
    const asked = new Set<() => void>();
    const server = http.createServer(() => {
      for (const tell of asked) tell();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const run = await memdir(['team', 'connect', '--project', '-work-quiet', '--server', url, '--team', 't', '--token-stdin'], (child) => {
        asked.add(() => child.kill('SIGINT'));
        child.stdin!.end(`mdt_0123456789abcdef_${'A'.repeat(43)}\n`);
      });
      expect(run.err).toBe('memdir team connect: stopped (Ctrl-C). No write was under way: nothing is half-written.\n');
      expect(run.signal).toBeNull();
      expect(run.code).toBe(130);
      expect(run.out).toBe('');
      expect(run.err).toBe('memdir team connect: stopped (Ctrl-C). No write was under way: nothing is half-written.\n');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('--help says which options a command cannot do without', () => {
  it('a required option is unbracketed in the usage line and marked (required); an optional one is neither', async () => {
    const [team, personal] = await Promise.all([memdir(['team', 'status', '--help']), memdir(['personal', 'status', '--help'])]);
    expect(team.out).toContain('Usage: memdir team status --project PATH|DIR [--home H] [--json]\n');
    expect(team.out).toMatch(/ {2}--project PATH\|DIR +project directory, or its directory name under projects\/ \(required\)\n/);
    // personal status without --project is the machine's state: the option is optional.
    expect(personal.out).toContain('Usage: memdir personal status [--project PATH|DIR] [--home H] [--json]\n');
    expect(personal.out).not.toContain('(required)');
  });

  it('a required option left out is refused by name before the command runs (exit 2)', async () => {
    const run = await memdir(['team', 'connect', '--project', '.', '--team', 't']);
    expect(run).toMatchObject({
      code: 2,
      out: '',
      err: 'memdir team connect: --server URL is required: the sync server, e.g. https://memdir.example.com. Run `memdir team connect --help`.\n',
    });
  });
});

describe('a Claude Code home that does not exist (a mistyped --home)', () => {
  it('lint and orphans say there is no home there, as scan does — not "No problems in 0 projects"; JSON keeps its shape', async () => {
    const typo = path.join(root, 'no such home');
    const [lint, lintJson, orphans] = await Promise.all([
      memdir(['lint', '--home', typo]),
      memdir(['lint', '--home', typo, '--json']),
      memdir(['orphans', '--home', typo]),
    ]);
    expect(lint).toMatchObject({ code: 0, out: `No Claude Code home at ${typo} yet: nothing to lint.\n` });
    expect(JSON.parse(lintJson.out)).toEqual({ projects: [] });
    expect(orphans).toMatchObject({ code: 0, out: `No Claude Code home at ${typo} yet: no memory can be orphaned.\n` });
  });
});

describe("a newcomer's first `memdir show`, beside Claude Code's first session", () => {
  it('says the home is not there yet (show read it as empty in silence), and says "No memories yet" where it printed "0 memories:" and nothing under it', async () => {
    const project = path.join(root, 'first-day-project');
    await fs.mkdir(project, { recursive: true });
    const missing = path.join(root, 'home not made yet');
    const before = await memdir(['show', project, '--home', missing]);
    expect(before.code).toBe(0);
    expect(before.out.split('\n')[0]).toBe(`No Claude Code home at ${missing} yet: Claude Code makes it at its first session.`);
    expect(before.out).not.toContain('0 memories');
    // Claude Code 2.1.332's first session makes projects/<key>/ with its transcript and an empty memory/ (seen in a first-day run).
    const home = path.join(root, 'first-day-home');
    await fs.mkdir(path.join(home, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'), 'memory'), { recursive: true });
    const after = await memdir(['show', project, '--home', home]);
    expect(after.out).not.toContain('No Claude Code home');
    expect(after.out).toContain('\nNo memories yet: Claude Code saves them in the memory dir above when a session has something worth remembering.\n');
  });

  it('scan of a home not made yet, or made with no project yet, says what makes them', async () => {
    const missing = path.join(root, 'scan home not made yet');
    expect((await memdir(['scan', '--home', missing])).out).toBe(
      `No Claude Code home at ${missing} yet: nothing to scan. Claude Code makes it at its first session (--home or $CLAUDE_CONFIG_DIR names another).\n`,
    );
    const empty = path.join(root, 'scan empty home');
    await fs.mkdir(empty, { recursive: true });
    expect((await memdir(['scan', '--home', empty])).out).toBe(
      `No projects in ${empty} yet: Claude Code adds one under projects/ at its first session in a folder.\n`,
    );
  });

  it('show of the first memory Claude Code wrote counts in the singular: "1 line", "1 pointer reaches the agent" (was "1 lines", "1 pointers")', async () => {
    const project = path.join(root, 'one-memory-project');
    await fs.mkdir(project, { recursive: true });
    const home = path.join(root, 'one-memory-home');
    const memory = path.join(home, 'projects', project.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(
      path.join(memory, 'feedback_tabs.md'),
      '---\nname: tabs-not-spaces\ndescription: Tabs in Go files\nmetadata:\n  node_type: memory\n  type: feedback\n---\n\nTabs.\n',
    );
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Tabs not spaces](feedback_tabs.md) — tabs in Go files\n');
    const show = await memdir(['show', project, '--home', home]);
    expect(show.out).toContain('MEMORY.md: 1 line, 56 characters; 1 pointer reaches the agent, 0 are cut.\n');
  });
});
