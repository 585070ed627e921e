// What a newcomer following the README meets when something is refused or fails: a true sentence
// with what to do — never an error code (ENOENT, ECONNREFUSED), a library's text (fetch failed,
// unable to open database file) or a flag left unnamed. The CLI as a user runs it, on a real
// file system, real loopback ports and a real SQLite store.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from './command.js';
import { runCli } from './main.js';
import { sanitizeDirName } from '../shared/sanitize.js';
import { openStore } from '../server/open-store.js';

const TOKEN = `mdt_${'0'.repeat(16)}_${'A'.repeat(43)}`;
/** What must never reach a person: a system error code or a library's own words. */
const RAW = /\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+|SQLITE_[A-Z]+)\b|fetch failed|unable to open database file/;

let root: string;
let home: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'memdir-sentences-')));
  home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, 'projects', '-work-app', 'memory', 'team'), { recursive: true });
  fs.writeFileSync(path.join(home, 'projects', '-work-app', 'memory', 'MEMORY.md'), '- [API](project_api.md) — the v2 cutover\n');
  fs.writeFileSync(
    path.join(home, 'projects', '-work-app', 'memory', 'project_api.md'),
    '---\nname: API\ndescription: v2 cutover\ntype: project\n---\n\nv2.\n',
  );
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

async function memdir(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: path.join(root, 'data'), HOME: root, MEMDIR_PASSPHRASE: 'correct horse battery staple quietly' },
    cwd: root,
    ...(stdin ? { stdin: Readable.from([stdin]) } : {}),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a failure is worded, never a code or library text', () => {
  it('team and personal connect to a port nothing listens on', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const team = await memdir(['team', 'connect', '--project', '-work-app', '--home', home, '--server', url, '--team', 'platform', '--token-stdin'], TOKEN);
    expect(team).toMatchObject({
      code: 2,
      err: `memdir team connect: Cannot reach the sync server at ${url}: nothing is listening there (the connection was refused).\n`,
    });
    const personal = await memdir(['personal', 'connect', '--server', url, '--token-stdin'], TOKEN);
    expect(personal.code).toBe(2);
    expect(personal.err).toContain('nothing is listening there (the connection was refused)');
    expect(personal.err).not.toMatch(RAW);
  });

  it('import of a folder or a missing file, export into a folder that is a file', async () => {
    const folder = await memdir(['import', root, '-work-app', '--home', home]);
    expect(folder).toMatchObject({ code: 2, err: `memdir import: ${root} cannot be imported: it is a folder, not a file. Nothing was written.\n` });
    const missing = await memdir(['import', path.join(root, 'nope.tar'), '-work-app', '--home', home]);
    expect(missing.err).toBe(`memdir import: ${path.join(root, 'nope.tar')} cannot be imported: it does not exist. Nothing was written.\n`);
    const intoFolder = await memdir(['export', '-work-app', root, '--home', home]);
    expect(intoFolder).toMatchObject({
      code: 2,
      err: `memdir export: ${root} is a folder; give the export a file name in it, e.g. ${path.join(root, '-work-app.tar')} (nothing was written).\n`,
    });
    fs.writeFileSync(path.join(root, 'afile'), 'x');
    const underFile = await memdir(['export', '-work-app', path.join(root, 'afile', 'x.tar'), '--home', home]);
    expect(underFile).toMatchObject({
      code: 2,
      err: `memdir export: ${path.join(root, 'afile')} is a file, not a folder, so the export cannot be written in it (nothing was written).\n`,
    });
    // A file given as Claude Code's home is not an empty home.
    const scan = await memdir(['scan', '--home', path.join(root, 'afile')]);
    expect(scan).toMatchObject({
      code: 2,
      err: `memdir scan: ${path.join(root, 'afile')} is a file, not a folder: give Claude Code's home folder (--home, $CLAUDE_CONFIG_DIR, else ~/.claude).\n`,
    });
  });

  it('a --db that is a folder, for the server and its admin commands', async () => {
    const admin = await memdir(['server', 'admin', 'list', '--db', root]);
    expect(admin).toMatchObject({ code: 2 });
    expect(admin.err).toBe(`memdir server admin list: ${root} is a folder, not a team store: give the path of its SQLite file (--db), or a postgres:// URL.\n`);
    const server = await memdir(['server', '--db', root, '--port', '0']);
    expect(server.code).toBe(2);
    expect(server.err).toContain('is a folder, not a team store');
    expect(server.err).not.toMatch(RAW);
  });
});

describe("a file where Memdir's data folder should be", () => {
  it('is named as the lock folder that cannot be made, not as the memory', async () => {
    fs.writeFileSync(path.join(root, 'data'), 'a file');
    const r = await memdir(['history', '-work-app', '--home', home]);
    const memory = path.join(home, 'projects', '-work-app', 'memory');
    expect(r).toMatchObject({
      code: 2,
      err: `memdir history: Cannot lock ${memory}: Memdir's lock folder ${path.join(root, 'data', 'locks')} cannot be made, a file is in the way (check Memdir's data folder: --data-dir or $MEMDIR_DATA_DIR).\n`,
    });
  });
});

describe('server admin never creates a store', () => {
  it('refuses a mistyped --db and writes nothing; the server creates its store, then admin uses it', async () => {
    const typo = path.join(root, 'srv', 'team-synk.sqlite');
    for (const args of [['list'], ['create-team', 'platform'], ['issue-token', 'platform']]) {
      const r = await memdir(['server', 'admin', ...args, '--db', typo]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toContain(`There is no team store at ${typo}`);
      expect(r.err).toContain('`memdir server` creates one on its first start; admin commands never do.');
      expect(r.out).toBe('');
    }
    expect(fs.existsSync(path.join(root, 'srv'))).toBe(false);
    const db = path.join(root, 'srv', 'team-sync.sqlite');
    await (await openStore(db)).close(); // as `memdir server` opens it
    expect(await memdir(['server', 'admin', 'create-team', 'platform', '--db', db])).toMatchObject({ code: 0 });
    expect((await memdir(['server', 'admin', 'list', '--db', db])).out).toContain('platform:');
  });
});

describe('a project that is not there is said truly', () => {
  it('a name, a path, a path given where a name is needed, and where relink needs a place', async () => {
    const projects = path.join(home, 'projects');
    const named = await memdir(['show', '-nope', '--home', home]);
    expect(named.err).toBe(
      `memdir show: There is no project "-nope" under ${projects}, and no directory of that name: give a project directory, or one of the names \`memdir scan\` lists.\n`,
    );
    // --project -nope: the sentence names what was typed, not the path it was also looked for at.
    const option = await memdir(['agents', '--project', '-nope', '--home', home]);
    expect(option.err).toBe(
      `memdir agents: There is no project "-nope" under ${projects}, and no directory of that name: give a project directory, or one of the names \`memdir scan\` lists.\n`,
    );
    const gone = path.join(root, 'gone');
    const pathed = await memdir(['dream', 'status', '--project', gone, '--home', home]);
    expect(pathed.err).toBe(`memdir dream status: There is no directory "${gone}": give a project directory, or one of the names \`memdir scan\` lists.\n`);
    // relink's new path is where the project is now: a place, never a project's name.
    const relink = await memdir(['relink', '-work-app', gone, '--home', home]);
    expect(relink.err).toBe(`memdir relink: There is no directory "${gone}": give the directory where the project is now.\n`);
    // merge takes names: a path that is a directory is said to be one.
    const merge = await memdir(['merge', '-work-app', root, '--home', home]);
    expect(merge.err).toBe(`memdir merge: "${root}" is a path, not a project folder name under ${projects}; \`memdir scan\` lists the projects by name.\n`);
  });
});

describe('a refusal a flag overrules names the flag', () => {
  it('plain http to another host names --allow-http (team and personal)', async () => {
    const team = await memdir(
      ['team', 'connect', '--project', '-work-app', '--home', home, '--server', 'http://sync.example.com:8787', '--team', 'platform', '--token-stdin'],
      TOKEN,
    );
    expect(team.code).toBe(2);
    expect(team.err).toContain('--allow-http');
    const personal = await memdir(['personal', 'connect', '--server', 'http://sync.example.com:8787', '--token-stdin'], TOKEN);
    expect(personal.err).toContain('--allow-http');
  });

  it('a dream the gates hold names --force', async () => {
    const r = await memdir(['dream', '--project', '-work-app', '--home', home, '--offline']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^Not started: /);
    expect(r.out).toContain('Run it again with --force to dream now anyway.');
  });
});

describe('a settings file that is not JSON is named in text output, as Claude Code ignores it', () => {
  it('where, show and lint name each file and say Claude Code does not load it', async () => {
    const project = path.join(root, 'proj');
    fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
    const user = path.join(home, 'settings.json');
    const shared = path.join(project, '.claude', 'settings.json');
    fs.writeFileSync(user, '{"autoMemoryEnabled": false,}');
    fs.writeFileSync(shared, '{ bad');
    const memory = path.join(home, 'projects', sanitizeDirName(project), 'memory');
    fs.mkdirSync(memory, { recursive: true });
    fs.writeFileSync(path.join(memory, 'MEMORY.md'), '');
    const notLoaded = (file: string, where: string) =>
      `${file}: Claude Code 2.1.332 does not load this file at all: it is not valid JSON (${where}). It drops a settings file with any such error whole, so none of its settings applies (its env block neither).`;
    const where = await memdir(['where', project, '--home', home]);
    expect(where.out).toContain(`ignored      ${notLoaded(user, 'line 1, column 29')}`);
    expect(where.out).toContain(`ignored      ${notLoaded(shared, 'line 1, column 3')}`);
    expect(where.out).toContain('auto memory  on (default)');
    const json = JSON.parse((await memdir(['where', project, '--home', home, '--json'])).out) as { ignored: { file: string; key: string }[] };
    expect(json.ignored).toEqual(
      expect.arrayContaining([expect.objectContaining({ file: user, key: '' }), expect.objectContaining({ file: shared, key: '' })]),
    );
    const show = await memdir(['show', project, '--home', home]);
    expect(show.out).toContain(notLoaded(user, 'line 1, column 29'));
    expect(show.out).toContain(notLoaded(shared, 'line 1, column 3'));
    const lint = await memdir(['lint', '--project', project, '--home', home]);
    expect(lint.out).toContain(notLoaded(user, 'line 1, column 29'));
    expect(lint.out).toContain(notLoaded(shared, 'line 1, column 3'));
    expect((await memdir(['lint', '--home', home])).out).toContain(notLoaded(user, 'line 1, column 29'));
  });
});
