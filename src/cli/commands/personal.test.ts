/**
 * `memdir personal` end to end on loopback (issue 18, item 5): two machines (own home, own data
 * dir, the project at its own path) connect to one personal space through the command, in-process.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonal, createTeam, issuePersonalToken, issueToken, revokeToken } from '../../server/admin.js';
import { type RunningServer, startServer } from '../../server/server.js';
import { openSqliteStore } from '../../server/sqlite-store.js';
import type { TeamStore } from '../../server/store.js';
import type { CliIo } from '../command.js';
import { runCli } from '../main.js';

const PASSPHRASE = 'four words are plenty here';

let root: string;
let store: TeamStore;
let server: RunningServer;
const tokens: Record<string, string> = {};
let teamToken = '';

interface Machine {
  home: string;
  dataDir: string;
  repo: string;
  memoryDir: string;
}
const machines: Record<string, Machine> = {};

async function machine(name: string, checkout: string, remote: string): Promise<Machine> {
  const base = path.join(root, name);
  const repo = path.join(base, checkout);
  await fs.mkdir(path.join(repo, '.git'), { recursive: true });
  await fs.writeFile(path.join(repo, '.git', 'config'), `[remote "origin"]\n\turl = ${remote}\n`);
  const home = path.join(base, 'claude');
  const memoryDir = path.join(home, 'projects', repo.replace(/[^A-Za-z0-9]/g, '-'), 'memory');
  await fs.mkdir(memoryDir, { recursive: true });
  return { home, dataDir: path.join(base, 'data'), repo, memoryDir };
}

async function memdir(m: Machine, args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: m.dataDir, HOME: root, ...opts.env },
    cwd: root,
    ...(opts.stdin !== undefined ? { stdin: Readable.from([opts.stdin]) } : {}),
  };
  // Every subcommand takes --home (the family command alone takes no option).
  const code = await runCli(args.length > 1 ? [...args, '--home', m.home] : args, io);
  return { code, out, err };
}

beforeAll(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cli-personal-')));
  store = await openSqliteStore(path.join(root, 'server.sqlite'));
  await createPersonal(store, 'ann');
  for (const m of ['laptop', 'desktop']) tokens[m] = (await issuePersonalToken(store, 'ann', m)).token;
  await createTeam(store, 'platform');
  teamToken = (await issueToken(store, 'platform', 'ann')).token;
  server = await startServer({ store, port: 0, closeStore: false });
  machines.laptop = await machine('laptop', 'src/app', 'git@github.com:ann/app.git');
  machines.desktop = await machine('desktop', 'code/work/app-clone', 'https://github.com/ann/app');
}, 60_000);

afterAll(async () => {
  await server.close();
  await store.close();
  await fs.rm(root, { recursive: true, force: true });
});

describe('memdir personal', () => {
  it('explains the passphrase before it is set, and sets it only with --yes', async () => {
    const { laptop } = machines;
    expect(await memdir(laptop!, ['personal'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('name a subcommand (connect, status, sync, conflicts, resolve, disconnect)'),
    });
    const help = await memdir(laptop!, ['personal', 'connect', '--help']);
    expect(help.out).toContain('If you lose it, nobody can decrypt the synced copy');
    const team = await memdir(laptop!, ['personal', 'connect', '--server', server.url, '--token-stdin', '--passphrase-stdin'], {
      stdin: `${teamToken}\n${PASSPHRASE}\n`,
    });
    expect(team).toMatchObject({
      code: 2,
      err: expect.stringMatching(/This is a token of team "platform"; personal sync needs a token of your personal space/),
    });
    const first = await memdir(laptop!, ['personal', 'connect', '--server', server.url, '--token-stdin', '--passphrase-stdin'], {
      stdin: `${tokens.laptop}\n${PASSPHRASE}\n`,
    });
    expect(first.code).toBe(2);
    expect(first.err).toMatch(/has no passphrase yet.*If you lose it, nobody can decrypt the synced copy.*Run again with --yes/s);
    expect(await store.personalKey('ann')).toBeNull();
    const set = await memdir(laptop!, ['personal', 'connect', '--server', server.url, '--token-stdin', '--passphrase-stdin', '--yes', '--json'], {
      stdin: `${tokens.laptop}\n${PASSPHRASE}\n`,
    });
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out).account).toMatchObject({
      user: 'ann',
      member: 'laptop',
      created: true,
      keyId: expect.stringMatching(/^[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}$/),
    });
    expect(set.out).not.toContain(PASSPHRASE);
  });

  it('syncs a project under its remote on both machines, whatever its path; a wrong passphrase writes nothing', async () => {
    const { laptop, desktop } = machines;
    await fs.writeFile(path.join(laptop!.memoryDir, 'MEMORY.md'), '- [Style](feedback_style.md) — how I like code\n');
    await fs.writeFile(
      path.join(laptop!.memoryDir, 'feedback_style.md'),
      '---\nname: Style\ndescription: Small functions\ntype: feedback\n---\nKeep functions short.\n',
    );
    const up = await memdir(laptop!, ['personal', 'connect', '--project', laptop!.repo, '--json']);
    expect(up.err).toBe('');
    expect(up.code).toBe(0);
    const upJson = JSON.parse(up.out);
    expect(upJson.project.identity).toEqual({ id: 'git-remote:github.com/ann/app', source: 'repository', detail: 'remote github.com/ann/app' });
    expect(upJson.sync.push.uploaded.sort()).toEqual(['MEMORY.md', 'feedback_style.md']);

    const wrong = await memdir(desktop!, ['personal', 'connect', '--server', server.url, '--token-stdin', '--passphrase-stdin'], {
      stdin: `${tokens.desktop}\nfour words are plenty there\n`,
    });
    expect(wrong).toMatchObject({ code: 2, err: expect.stringContaining('That passphrase does not open this personal space') });
    expect(await fs.readdir(desktop!.dataDir).catch(() => [])).toEqual([]);
    const noAccount = await memdir(desktop!, ['personal', 'connect', '--project', desktop!.repo]);
    expect(noAccount).toMatchObject({ code: 2, err: expect.stringContaining('Personal sync is not set up on this machine') });

    const down = await memdir(desktop!, ['personal', 'connect', '--server', server.url, '--project', desktop!.repo, '--json'], {
      env: { MEMDIR_PERSONAL_TOKEN: tokens.desktop!, MEMDIR_PASSPHRASE: PASSPHRASE },
    });
    expect(down.code).toBe(0);
    const downJson = JSON.parse(down.out);
    expect(downJson.account.created).toBe(false);
    expect(downJson.project.projectId).toBe(upJson.project.projectId);
    expect(downJson.sync.pull.written.sort()).toEqual(['MEMORY.md', 'feedback_style.md']);
    expect(await fs.readFile(path.join(desktop!.memoryDir, 'feedback_style.md'), 'utf8')).toContain('Keep functions short.');

    // Status and sync of every synced project.
    await fs.writeFile(path.join(desktop!.memoryDir, 'user_me.md'), '---\nname: Me\ndescription: d\ntype: user\n---\nI use Vim.\n');
    const status = await memdir(desktop!, ['personal', 'status', '--json']);
    const statusJson = JSON.parse(status.out);
    expect(statusJson).toMatchObject({ connected: true, account: { member: 'desktop' } });
    expect(statusJson.projects[0].waiting).toEqual([{ key: 'user_me.md', reason: 'pending', detail: 'user_me.md changed here and waits to be pushed.' }]);
    const synced = await memdir(desktop!, ['personal', 'sync']);
    expect(synced.code).toBe(0);
    expect(synced.out).toContain('Push: 1 file(s): user_me.md.');
    const back = await memdir(laptop!, ['personal', 'sync', '--project', laptop!.repo, '--json']);
    expect(JSON.parse(back.out).projects[0].pull.written).toEqual(['user_me.md']);

    // A project with no remote needs a name.
    const plain = path.join(root, 'laptop', 'notes');
    await fs.mkdir(plain, { recursive: true });
    const unnamed = await memdir(laptop!, ['personal', 'connect', '--project', plain]);
    expect(unnamed).toMatchObject({
      code: 2,
      err: expect.stringContaining(
        'has no git repository with a commit or a remote to recognise it by on your other machines: give it a name with --identity NAME',
      ),
    });

    const off = await memdir(desktop!, ['personal', 'disconnect', '--json']);
    expect(JSON.parse(off.out)).toEqual({ disconnected: true, projects: 1 });
    expect(await fs.readFile(path.join(desktop!.memoryDir, 'user_me.md'), 'utf8')).toContain('I use Vim.');
    expect((await memdir(desktop!, ['personal', 'status', '--json'])).out).toContain('"connected": false');
  });

  it('`memdir undo` of a resolution opens the conflict again (a note says so), the next sync pushes nothing back, and undoing the undo resolves it again', async () => {
    const { laptop } = machines;
    // A third machine whose checkout is a real git repository with its remote (no commit): recognised by it.
    const tablet = await machine('tablet', 'dev/app', 'unused');
    await fs.rm(path.join(tablet.repo, '.git'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: tablet.repo, stdio: 'pipe' });
    git('init', '-q');
    git('remote', 'add', 'origin', 'git@github.com:ann/app.git');
    const token = (await issuePersonalToken(store, 'ann', 'tablet')).token;
    const down = await memdir(tablet, ['personal', 'connect', '--server', server.url, '--project', tablet.repo, '--json'], {
      env: { MEMDIR_PERSONAL_TOKEN: token, MEMDIR_PASSPHRASE: PASSPHRASE },
    });
    expect(down.code).toBe(0);
    expect(JSON.parse(down.out).sync.pull.written).toContain('feedback_style.md');
    const file = path.join(tablet.memoryDir, 'feedback_style.md');
    const head = '---\nname: Style\ndescription: Small functions\ntype: feedback\n---\nKeep functions short.\n';
    const theirs = `${head}Name things for what they do.\n`;
    const mine = `${head}Tests first.\n`;
    await fs.writeFile(path.join(laptop!.memoryDir, 'feedback_style.md'), theirs);
    expect((await memdir(laptop!, ['personal', 'sync', '--project', laptop!.repo])).code).toBe(0);
    await fs.writeFile(file, mine);
    expect((await memdir(tablet, ['personal', 'sync', '--project', tablet.repo])).code).toBe(1);
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    const [conflict] = (
      JSON.parse((await memdir(tablet, ['personal', 'conflicts', '--project', tablet.repo, '--json'])).out) as { conflicts: { id: string }[] }
    ).conflicts;
    const resolved = JSON.parse((await memdir(tablet, ['personal', 'resolve', conflict!.id, '--project', tablet.repo, '--keep', 'mine', '--json'])).out) as {
      undo: string;
    };
    expect(await fs.readFile(file, 'utf8')).toBe(mine);

    // The command it prints, as History's Undo: the other machine's version back, the conflict open again, said in a note.
    expect(resolved.undo).toMatch(/^memdir undo \S+ [0-9a-f]{10}$/);
    const undone = await memdir(tablet, [...resolved.undo.split(' ').slice(1), '--json']);
    expect(undone.code).toBe(0);
    const undoneJson = JSON.parse(undone.out) as { undone: { rev: string }; notes: string[] };
    expect(undoneJson.notes).toEqual(['The personal sync conflict on feedback_style.md is open again: your version is still kept, to choose again.']);
    expect(await fs.readFile(file, 'utf8')).toBe(theirs);
    const open = await memdir(tablet, ['personal', 'conflicts', '--project', tablet.repo, '--json']);
    expect(open.code).toBe(1);
    expect((JSON.parse(open.out) as { conflicts: { id: string; mine: string; reopened: { take: string } }[] }).conflicts).toEqual([
      expect.objectContaining({ id: conflict!.id, mine, reopened: expect.objectContaining({ take: 'mine' }) }),
    ]);
    // The other machine's bytes on disk are no edit here: nothing goes back up over the resolution.
    const quiet = JSON.parse((await memdir(tablet, ['personal', 'sync', '--project', tablet.repo, '--json'])).out) as {
      projects: { push: { uploaded: string[] } }[];
    };
    expect(quiet.projects[0]!.push.uploaded).toEqual([]);

    // Undoing the undo resolves it again, as it was.
    const redone = await memdir(tablet, ['undo', path.basename(path.dirname(tablet.memoryDir)), undoneJson.undone.rev.slice(0, 10)]);
    expect(redone).toMatchObject({
      code: 0,
      out: expect.stringContaining('The personal sync conflict on feedback_style.md is resolved again, as you had (took your version).'),
    });
    expect(await fs.readFile(file, 'utf8')).toBe(mine);
    expect((await memdir(tablet, ['personal', 'conflicts', '--project', tablet.repo])).code).toBe(0);
  });

  it('status says the last sync failed, and why, as `memdir team status` does: in its text too, exit 1', async () => {
    const { laptop } = machines;
    await revokeToken(store, tokens.laptop!);
    const failed = await memdir(laptop!, ['personal', 'sync', '--project', laptop!.repo, '--json']);
    expect(failed.code).toBe(2);
    const json = JSON.parse((await memdir(laptop!, ['personal', 'status', '--json'])).out) as {
      projects: { lastError: { message: string; at: string } | null }[];
    };
    const lastError = json.projects[0]!.lastError!;
    expect(lastError.message).toEqual(expect.any(String));
    // Before: the JSON had it, the text said nothing of it and exited 0.
    const text = await memdir(laptop!, ['personal', 'status']);
    expect(text.out).toContain(`Last sync failed (${lastError.at}): ${lastError.message}`);
    expect(text.code).toBe(1);
  });
});
