import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOpens } from '../../main/memdir/test-support/open-counter.js';
import { runCli } from '../main.js';

// `memdir show <project> --loaded [--json]`: the index as Claude Code will load it, beside what
// the newest transcript recorded as injected. The attachment line is one Claude Code 2.1.332
// wrote (test/fixtures/claude-code-index/instructions-attachment.jsonl).
const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/claude-code-index');
let root: string;
let home: string;
let memory: string;
let extraEnv: Record<string, string> = {};
const env = () => ({ CLAUDE_CONFIG_DIR: home, MEMDIR_DATA_DIR: path.join(root, 'data'), ...extraEnv });

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: env(), cwd: root });
  return { code, out, err };
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-loaded-'));
  home = path.join(root, 'home');
  memory = path.join(home, 'projects', '-work-app', 'memory');
  await fs.mkdir(memory, { recursive: true });
  await fs.mkdir(path.join(home, 'projects', '-work-old', 'memory'), { recursive: true });
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('memdir show --loaded', () => {
  it('prints what the agent gets and what the newest transcript says it got', async () => {
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '---\nname: index\n---\n- [A](a.md) — first\n- [B](b.md) — second\n');
    const attachment = await fs.readFile(path.join(FIXTURES, 'instructions-attachment.jsonl'), 'utf8');
    await fs.writeFile(
      path.join(home, 'projects', '-work-app', '0b6f3f6e-1111-4222-8333-944455556666.jsonl'),
      `{"type":"user","version":"2.1.332","cwd":"/work/app","sessionId":"s","message":{"role":"user","content":"hi"}}\n${attachment}`,
    );
    const text = await run('show', '-work-app', '--loaded');
    expect(text.code).toBe(0);
    expect(text.out).toBe('- [A](a.md) — first\n- [B](b.md) — second\n');
    const json = JSON.parse((await run('show', '-work-app', '--loaded', '--json')).out);
    expect(json).toEqual({
      text: '- [A](a.md) — first\n- [B](b.md) — second',
      truncated: false,
      reason: null,
      claudeCodeVersion: '2.1.332',
      hasTranscript: true,
      lastInjected: '- [A](a.md) — first\n- [B](b.md) — second',
      autoMemoryOff: null,
      storesLoadNoIndex: null,
      builtByClaudeCode: null,
      builtFile: null,
    });
  });

  it("prints an index that reads like one of the app's own sentences as it is, word for word", async () => {
    // The CLI says a failure's way out the terminal's way (surface-words.ts); a memory that happens to
    // hold the app's words ("is chosen in Settings") is not a failure sentence and prints as written.
    const index = '- [Theme](theme.md) — dark mode is chosen in Settings\n- [Key](key.md) — add one in Settings or set ANTHROPIC_API_KEY\n';
    await fs.writeFile(path.join(memory, 'MEMORY.md'), index);
    const text = await run('show', '-work-app', '--loaded');
    expect(text.out).toBe(index);
    expect(JSON.parse((await run('show', '-work-app', '--loaded', '--json')).out).text).toBe(index.trimEnd());
  });

  it('words the warning for the version the user runs, and shows when the last injection differs', async () => {
    const index = await fs.readFile(path.join(FIXTURES, 'lines-201.md'), 'utf8');
    await fs.writeFile(path.join(memory, 'MEMORY.md'), index);
    const transcript = path.join(home, 'projects', '-work-app', '0b6f3f6e-1111-4222-8333-944455556666.jsonl');
    const old = (await fs.readFile(transcript, 'utf8')).replaceAll('2.1.332', '2.1.88');
    await fs.writeFile(transcript, old);
    const json = JSON.parse((await run('show', '-work-app', '--loaded', '--json')).out);
    expect(json).toMatchObject({
      truncated: true,
      reason: '201 lines (limit: 200)',
      claudeCodeVersion: '2.1.88',
      lastInjected: '- [A](a.md) — first\n- [B](b.md) — second',
    });
    expect(
      json.text.endsWith(
        '\n\n> WARNING: MEMORY.md is 201 lines (limit: 200). Only part of it was loaded. Keep index entries to one line under ~200 chars; move detail into topic files.',
      ),
    ).toBe(true);
    expect(json.text).not.toBe(json.lastInjected);
  });

  it('without transcripts: the newest known wording, nothing injected yet; no index: nothing printed', async () => {
    await fs.writeFile(path.join(home, 'projects', '-work-old', 'memory', 'MEMORY.md'), await fs.readFile(path.join(FIXTURES, 'lines-201.md'), 'utf8'));
    const json = JSON.parse((await run('show', '-work-old', '--loaded', '--json')).out);
    expect(json).toMatchObject({ claudeCodeVersion: null, hasTranscript: false, lastInjected: null, truncated: true });
    expect(json.text).toContain('Only part of it was loaded: 1 of 201 lines were cut off, starting at line 201 ("- [L201](l_201.md) — h")');
    await fs.rm(path.join(home, 'projects', '-work-old', 'memory', 'MEMORY.md'));
    expect(await run('show', '-work-old', '--loaded')).toMatchObject({ code: 0, out: '' });
  });

  it('reads the Claude Code version the way dream status does, however the transcript JSON is spaced; says when the transcripts name none', async () => {
    const folder = path.join(home, 'projects', '-work-spaced');
    await fs.mkdir(path.join(folder, 'memory'), { recursive: true });
    await fs.writeFile(path.join(folder, 'memory', 'MEMORY.md'), '- [A](a.md) — first\n');
    const transcript = path.join(folder, '0b6f3f6e-1111-4222-8333-944455556667.jsonl');
    // JSON written with spaces after colons and commas (as Python's json.dumps writes it): the same records.
    await fs.writeFile(
      transcript,
      '{"type": "user", "version": "2.1.88", "cwd": "/work/spaced", "sessionId": "s", "message": {"role": "user", "content": "hi"}}\n',
    );
    const loaded = JSON.parse((await run('show', '-work-spaced', '--loaded', '--json')).out);
    const dream = JSON.parse((await run('dream', 'status', '--project', '-work-spaced', '--json')).out);
    expect(dream.claudeCode.version).toBe('2.1.88');
    expect(loaded).toMatchObject({ claudeCodeVersion: '2.1.88', hasTranscript: true });
    await fs.writeFile(transcript, '{"type": "user", "cwd": "/work/spaced", "sessionId": "s"}\n');
    expect(JSON.parse((await run('show', '-work-spaced', '--loaded', '--json')).out)).toMatchObject({ claudeCodeVersion: null, hasTranscript: true });
    await fs.rm(transcript);
    expect(JSON.parse((await run('show', '-work-spaced', '--loaded', '--json')).out)).toMatchObject({ claudeCodeVersion: null, hasTranscript: false });
  });

  it('prints nothing with auto memory off, as Claude Code then loads no index, and says which setting from where', async () => {
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [A](a.md) — first\n');
    const userSettings = path.join(home, 'settings.json');
    await fs.writeFile(userSettings, JSON.stringify({ autoMemoryEnabled: false }));
    try {
      let r = await run('show', '-work-app', '--loaded');
      expect(r).toMatchObject({ code: 0, out: '' });
      expect(r.err).toBe(
        `Auto memory is off for this project ("autoMemoryEnabled": false in ${userSettings}), so Claude Code loads no MEMORY.md at session start: the agent sees none of this index.\n`,
      );
      expect(JSON.parse((await run('show', '-work-app', '--loaded', '--json')).out)).toMatchObject({
        text: '',
        truncated: false,
        reason: null,
        autoMemoryOff: expect.stringContaining(`"autoMemoryEnabled": false in ${userSettings}`),
      });
      expect((await run('show', '-work-app')).out).toContain(`Auto memory is off for this project ("autoMemoryEnabled": false in ${userSettings})`);
      await fs.writeFile(userSettings, JSON.stringify({ autoMemoryEnabled: true }));
      extraEnv = { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' };
      r = await run('show', '-work-app', '--loaded');
      expect(r).toMatchObject({ code: 0, out: '' });
      expect(r.err).toContain('(CLAUDE_CODE_DISABLE_AUTO_MEMORY, set in the environment)');
    } finally {
      extraEnv = {};
      await fs.rm(userSettings);
    }
    expect((await run('show', '-work-app', '--loaded')).out).toBe('- [A](a.md) — first\n');
  });

  it('loads the index when the file that turns memory off is one Claude Code drops whole, and says why (review x5 F1)', async () => {
    await fs.writeFile(path.join(memory, 'MEMORY.md'), '- [Deploy](deploy.md) — how we ship\n');
    const userSettings = path.join(home, 'settings.json');
    await fs.writeFile(userSettings, JSON.stringify({ autoMemoryEnabled: false, hooks: { PreToolUse: [{ matcher: 'Bash', command: 'echo hi' }] } }));
    const why = `${userSettings}: Claude Code 2.1.332 does not load this file at all: hooks.PreToolUse[0] is in the old hook format`;
    try {
      const r = await run('show', '-work-app', '--loaded');
      expect(r.out).toBe('- [Deploy](deploy.md) — how we ship\n');
      expect(r.err).toContain(why);
      expect(JSON.parse((await run('show', '-work-app', '--loaded', '--json')).out)).toMatchObject({
        text: '- [Deploy](deploy.md) — how we ship',
        autoMemoryOff: null,
      });
      const shown = (await run('show', '-work-app')).out;
      expect(shown).not.toContain('Auto memory is off');
      expect(shown).toContain(why);
      await fs.mkdir(path.join(root, 'elsewhere'), { recursive: true });
      const where = JSON.parse((await run('where', path.join(root, 'elsewhere'), '--json')).out);
      expect(where).toMatchObject({ autoMemoryEnabled: true, autoMemoryEnabledSource: 'default' });
      expect(where.ignored).toEqual([{ file: userSettings, key: 'hooks.PreToolUse.0', reason: expect.stringContaining('does not load this file at all') }]);
    } finally {
      await fs.rm(userSettings);
    }
  });

  it('refuses a file with --loaded', async () => {
    const r = await run('show', '-work-app', 'a.md', '--loaded');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/takes no \[file\]/);
  });
});

describe('a memory folder with memories but no MEMORY.md (Claude Code 2.1.332 writes one at session start)', () => {
  const dir = '-work-unindexed';
  const folder = () => path.join(home, 'projects', dir, 'memory');
  beforeAll(async () => {
    await fs.mkdir(folder(), { recursive: true });
    for (const [file, hook, at] of [
      ['feedback_sql.md', 'we write SQL, no ORM', 1_767_225_600],
      ['deploy.md', 'deploys go through the staging cluster first', 1_767_225_660],
    ] as const) {
      await fs.writeFile(path.join(folder(), file), `---\nname: ${file}\ndescription: ${hook}\ntype: project\n---\nBody.\n`);
      await fs.utimes(path.join(folder(), file), at, at);
    }
  });
  const built = '- [deploy](deploy.md) — deploys go through the staging cluster first\n- [feedback_sql](feedback_sql.md) — we write SQL, no ORM';
  const sentence = 'There is no MEMORY.md: Claude Code 2.1.332 writes one at its next session start, listing 2 memories newest first, and loads it.';

  it('show --loaded prints the index Claude Code will write and load, and --json says it builds it', async () => {
    expect((await run('show', dir, '--loaded')).out).toBe(`${built}\n`);
    const json = JSON.parse((await run('show', dir, '--loaded', '--json')).out);
    // The file itself, byte for byte (ends with its newline; `text` is it as loaded, trimmed).
    expect(json).toMatchObject({ text: built, builtByClaudeCode: sentence, builtFile: `${built}\n` });
  });

  it('show lists those memories as reaching the agent, and lint calls none of them unlisted', async () => {
    const show = await run('show', dir);
    expect(show.out).toContain(
      'No MEMORY.md yet: Claude Code writes one at its next session start; 2 pointers will reach the agent.\n  loaded  deploy.md\n  loaded  feedback_sql.md\n',
    );
    expect(show.out).not.toContain('the agent starts with no memory index');
    expect(show.out).not.toContain('not listed');
    const lint = await run('lint', '--project', dir);
    expect(lint.out).toContain(sentence);
    expect(lint.out).not.toContain('not listed');
    expect(lint.code).toBe(0);
    // Memdir wrote nothing: Claude Code does, once.
    await expect(fs.stat(path.join(folder(), 'MEMORY.md'))).rejects.toThrow();
  });

  it('with auto memory off nothing is built or loaded: show, the scan and lint give no index-built hint and call nothing loaded', async () => {
    const userSettings = path.join(home, 'settings.json');
    for (const off of ['settings', 'env'] as const) {
      if (off === 'settings') await fs.writeFile(userSettings, JSON.stringify({ autoMemoryEnabled: false }));
      else extraEnv = { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' };
      try {
        const show = await run('show', dir);
        expect(show.out).not.toContain('pointers will reach the agent');
        expect(show.out).not.toContain('loaded  deploy.md');
        const lint = await run('lint', '--project', dir, '--json');
        const problems = JSON.parse(lint.out).projects[0].problems as { code: string }[];
        expect(problems.map((p) => p.code)).not.toContain('index-built');
        const scan = JSON.parse((await run('scan', '--json')).out) as { projects: { dir: string; index: { loaded: string[] } }[] };
        expect(scan.projects.find((p) => p.dir === dir)!.index.loaded).toEqual([]);
      } finally {
        extraEnv = {};
        await fs.rm(userSettings, { force: true });
      }
    }
    // Memory on again: Claude Code builds it at its next session start.
    expect((await run('show', dir)).out).toContain('2 pointers will reach the agent');
  });

  it('with auto memory off, show --loaded --json has no builtFile (Claude Code writes none) and reads no memory to predict one', async () => {
    const userSettings = path.join(home, 'settings.json');
    const opens = await countOpens(folder());
    try {
      for (const off of ['settings', 'env'] as const) {
        if (off === 'settings') await fs.writeFile(userSettings, JSON.stringify({ autoMemoryEnabled: false }));
        else extraEnv = { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' };
        try {
          await opens.take();
          const json = JSON.parse((await run('show', dir, '--loaded', '--json')).out);
          expect([...(await opens.take()).keys()].filter((f) => f.endsWith('.md'))).toEqual([]);
          expect(json).toMatchObject({ text: '', autoMemoryOff: expect.stringContaining('Auto memory is off'), builtByClaudeCode: null, builtFile: null });
        } finally {
          extraEnv = {};
          await fs.rm(userSettings, { force: true });
        }
      }
    } finally {
      opens.close();
    }
    // Memory on again: the file Claude Code will write.
    expect(JSON.parse((await run('show', dir, '--loaded', '--json')).out)).toMatchObject({ builtFile: `${built}\n` });
  });

  it('lint --fix that adds a team pointer to MEMORY.md first writes the index Claude Code would have built: nothing becomes unlisted', async () => {
    await fs.mkdir(path.join(folder(), 'team'), { recursive: true });
    await fs.writeFile(path.join(folder(), 'team', 'oncall.md'), '---\nname: On call\ndescription: who is on call\ntype: project\n---\nBody.\n');
    const fixed = await run('lint', '--project', dir, '--fix');
    expect(fixed.code).toBe(0);
    expect(await fs.readFile(path.join(folder(), 'MEMORY.md'), 'utf8')).toBe(`${built}\n- [On call](team/oncall.md) — who is on call\n`);
    const after = await run('lint', '--project', dir);
    expect(after.out).not.toContain('not listed');
    const history = await run('history', dir);
    expect(history.out).toContain('MEMORY.md written with the 2 pointers Claude Code would have built');
    await fs.rm(path.join(folder(), 'team'), { recursive: true });
    await fs.rm(path.join(folder(), 'MEMORY.md'));
  });
});

describe('memdir show: a pointer above the cut to a file that does not exist', () => {
  const dir = '-work-dangling';
  const folder = () => path.join(home, 'projects', dir, 'memory');
  beforeAll(async () => {
    await fs.mkdir(folder(), { recursive: true });
    await fs.writeFile(path.join(folder(), 'kept.md'), '---\nname: kept\ndescription: still here\ntype: project\n---\nBody.\n');
    await fs.writeFile(path.join(folder(), 'MEMORY.md'), '- [Kept](kept.md) — still here\n- [Gone](gone.md) — deleted since\n');
  });

  it('is marked missing, as Health calls it, never "loaded"', async () => {
    const show = await run('show', dir);
    expect(show.out).toContain('  loaded  kept.md\n');
    expect(show.out).toContain('  missing gone.md  (no such file: the agent is given a pointer to nothing)\n');
    expect(show.out).not.toMatch(/loaded\s+gone\.md/);
    expect(show.out).toContain('2 pointers reach the agent (1 names a missing file), 0 are cut.');
    // Health says the same of the same pointer (one rule: its dangling-link problem).
    expect(show.out).toContain('points at gone.md, which does not exist');
  });

  it('is listed in JSON as loadedMissing, beside loaded (kept as it was), in show --json and scan --json, fresh and from the scan cache', async () => {
    const fromShow = JSON.parse((await run('show', dir, '--json')).out) as { index: Record<string, unknown> };
    expect(fromShow.index).toMatchObject({ loaded: ['kept.md', 'gone.md'], loadedMissing: ['gone.md'], cut: [], cutMissing: [] });
    // Twice: the second scan reads the folder from the scan cache, which works the missing pointers out again.
    for (let i = 0; i < 2; i++) {
      const scan = JSON.parse((await run('scan', '--json')).out) as { projects: { dir: string; index: Record<string, unknown> }[] };
      expect(scan.projects.find((p) => p.dir === dir)!.index).toMatchObject({ loaded: ['kept.md', 'gone.md'], loadedMissing: ['gone.md'] });
    }
    // The file comes back: no longer missing.
    await fs.writeFile(path.join(folder(), 'gone.md'), '---\nname: gone\ndescription: back\ntype: project\n---\nBody.\n');
    try {
      const scan = JSON.parse((await run('scan', '--json')).out) as { projects: { dir: string; index: Record<string, unknown> }[] };
      expect(scan.projects.find((p) => p.dir === dir)!.index).toMatchObject({ loaded: ['kept.md', 'gone.md'], loadedMissing: [] });
    } finally {
      await fs.rm(path.join(folder(), 'gone.md'));
    }
  });
});
