import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionRule } from '../../memdir/index.js';
import { claudeCodeDreamStatus, globalConfigFiles } from './claude-code-dream.js';

let tmp: string;
let home: string;
let folder: string;
const unset = { autoMemoryEnabled: true, autoDreamEnabled: false, autoDreamEnabledSource: 'default' as const, autoDreamEnabledFrom: null };
const set = (on: boolean) => ({
  autoMemoryEnabled: true,
  autoDreamEnabled: on,
  autoDreamEnabledSource: 'user' as const,
  autoDreamEnabledFrom: path.join(home, 'settings.json'),
});

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-cc-dream-')));
  home = path.join(tmp, 'config');
  folder = path.join(home, 'projects', '-work-app');
  await fs.mkdir(folder, { recursive: true });
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function transcriptOf(version: string): Promise<void> {
  await fs.writeFile(path.join(folder, '0b6f1c1e-8a0e-4d2b-9b7e-2f4a5c6d7e80.jsonl'), `${JSON.stringify({ type: 'user', cwd: '/work/app', version })}\n`);
}
async function flags(value: Record<string, unknown>): Promise<void> {
  await fs.writeFile(path.join(home, '.claude.json'), JSON.stringify(value));
}
const status = (settings: Parameters<typeof claudeCodeDreamStatus>[0]['settings'] = unset) =>
  claudeCodeDreamStatus({ home, settings, transcriptDirs: [folder] });

describe("Claude Code's own dream (R-DREAM-GATE)", () => {
  it('2.1.332: off without the server flag, whatever the setting says', async () => {
    await transcriptOf('2.1.332');
    expect(await status(set(true))).toMatchObject({ wouldDream: false, rule: '2.1.332', version: '2.1.332', flag: null, setting: true });
    await flags({ cachedFeatureFlags: { tengu_onyx_plover: { enabled: false, available: false } } });
    expect((await status(set(true))).wouldDream).toBe(false);
  });

  it("2.1.332: with the flag available the setting decides, else the flag's enabled; its thresholds are shown", async () => {
    await transcriptOf('2.1.332');
    await flags({ cachedFeatureFlags: { tengu_onyx_plover: { enabled: false, available: true, minHours: 12, minSessions: -1 } } });
    expect(await status(set(true))).toMatchObject({
      wouldDream: true,
      flag: { enabled: false, available: true, minHours: 12, minSessions: null },
      flagFile: path.join(home, '.claude.json'),
    });
    expect((await status(unset)).wouldDream).toBe(false);
    await flags({ cachedFeatureFlags: { tengu_onyx_plover: { enabled: true } } });
    expect((await status(unset)).wouldDream).toBe(true);
    expect((await status(set(false))).wouldDream).toBe(false);
    // Where it would, the status says where it still never does (observed: claude -p, telemetry off).
    expect((await status(unset)).reason).toContain('only in interactive sessions: never in claude -p');
    expect((await status(set(false))).reason).not.toContain('interactive');
  });

  it('2.1.88: the setting when present, else the flag cached under cachedGrowthBookFeatures', async () => {
    await transcriptOf('2.1.88');
    expect(await status(set(true))).toMatchObject({ wouldDream: true, rule: '2.1.88' });
    // Without the setting or a cached flag it does not dream, and says so in that order.
    expect(await status(unset)).toMatchObject({
      wouldDream: false,
      reason: `Claude Code 2.1.88: Auto-dream (autoDreamEnabled in ${path.join(home, 'settings.json')}) is not set and no switch cached from Anthropic's servers turns it on, so it does not dream.`,
    });
    await flags({ cachedGrowthBookFeatures: { tengu_onyx_plover: { enabled: true } }, cachedFeatureFlags: { tengu_onyx_plover: { enabled: false } } });
    expect((await status(unset)).wouldDream).toBe(true);
  });

  it('never with auto memory off; the newest rule without a transcript version', async () => {
    await flags({ cachedFeatureFlags: { tengu_onyx_plover: { enabled: true } } });
    expect(await status({ ...set(true), autoMemoryEnabled: false })).toMatchObject({
      wouldDream: false,
      reason: expect.stringContaining('Auto memory is off'),
    });
    expect(await status(unset)).toMatchObject({ wouldDream: true, rule: '2.1.332', version: null });
  });

  it('2.1.332 skips where a permission rule would refuse its memory writes: the reason names the rule and its file', async () => {
    await transcriptOf('2.1.332');
    await flags({ cachedFeatureFlags: { tengu_onyx_plover: { enabled: true } } });
    const memoryDir = path.join(folder, 'memory');
    const userFile = path.join(home, 'settings.json');
    const localFile = '/work/app/.claude/settings.local.json';
    const withRules = (...permissionRules: PermissionRule[]) =>
      claudeCodeDreamStatus({ home, settings: { ...unset, permissionRules }, transcriptDirs: [folder], memoryDir });
    const deniedEdit = { behavior: 'deny' as const, rule: `Edit(/${memoryDir}/**)`, file: localFile };
    const refused = await withRules({ behavior: 'ask', rule: 'Read', file: userFile }, { behavior: 'deny', rule: 'Bash', file: userFile }, deniedEdit);
    expect(refused).toMatchObject({ wouldDream: false, refusedBy: deniedEdit });
    expect(refused.reason).toContain(`the deny rule "Edit(/${memoryDir}/**)" in ${localFile} would refuse its memory writes`);
    // A rule alone on the tool comes first, Write before Edit, deny before ask.
    const askWrite = { behavior: 'ask' as const, rule: 'Write', file: userFile };
    expect((await withRules(deniedEdit, { behavior: 'ask', rule: 'Edit', file: userFile }, askWrite)).refusedBy).toEqual(askWrite);
    // The folder itself (gitignore style: what is under it), MEMORY.md, or through the home.
    const homeDir = os.homedir();
    for (const rule of [`Edit(/${memoryDir})`, `Edit(/${memoryDir}/MEMORY.md)`, `Edit(/${path.dirname(memoryDir)}/*/MEMORY.md)`])
      expect((await withRules({ behavior: 'deny', rule, file: userFile })).wouldDream, rule).toBe(false);
    if (memoryDir.startsWith(`${homeDir}/`))
      expect((await withRules({ behavior: 'deny', rule: `Edit(~/${path.relative(homeDir, memoryDir)}/**)`, file: userFile })).wouldDream).toBe(false);
    // Not a Write path rule, another file, another folder, nor a path relative to a settings file.
    for (const rule of [`Write(/${memoryDir}/**)`, `Edit(/${memoryDir}/build.md)`, `Edit(/${memoryDir}-other/**)`, 'Edit(memory/**)'])
      expect((await withRules({ behavior: 'deny', rule, file: userFile })).wouldDream, rule).toBe(true);
    // Where the flag already says no, the flag is the reason.
    await flags({ cachedFeatureFlags: { tengu_onyx_plover: { enabled: false } } });
    expect(await withRules(deniedEdit)).toMatchObject({ wouldDream: false, refusedBy: null });
  });

  it("2.1.332 skips in a launch folder whose transcripts ran under an organization's own sign-in, sub-agents' included", async () => {
    await transcriptOf('2.1.332');
    await flags({ cachedFeatureFlags: { tengu_onyx_plover: { enabled: true } } });
    const mark = (organizationUuid: string) => `${JSON.stringify({ type: 'hybrid-organization', organizationUuid })}\n`;
    const org = '5E0C1A2B-3C4D-4E5F-8A6B-7C8D9E0F1A2B';
    await fs.appendFile(path.join(folder, 'notes.jsonl.bak'), mark('not-a-uuid'));
    expect(await status()).toMatchObject({ wouldDream: true, organizationMarks: [] });
    const subagents = path.join(folder, '0b6f1c1e-8a0e-4d2b-9b7e-2f4a5c6d7e80', 'subagents');
    await fs.mkdir(subagents, { recursive: true });
    await fs.writeFile(path.join(subagents, 'agent-a1.jsonl'), `{"type":"user"}\n${mark(org)}`);
    const one = await status();
    expect(one.organizationMarks).toEqual([{ folder, organization: org.toLowerCase() }]);
    expect(one.reason).toContain(`Sessions whose transcripts go to ${folder} skip it unless signed in through organization ${org.toLowerCase()}'s own sign-in`);
    await fs.appendFile(path.join(folder, 'notes.jsonl.bak'), mark('0b6f1c1e-8a0e-4d2b-9b7e-2f4a5c6d7e81'));
    expect((await status()).organizationMarks).toEqual([{ folder, organization: null }]);
  });

  it('reads ~/.claude.json beside the default ~/.claude home', () => {
    expect(globalConfigFiles('/home/me/.claude')).toEqual(['/home/me/.claude/.claude.json', '/home/me/.claude.json']);
    expect(globalConfigFiles('/tmp/config')).toEqual(['/tmp/config/.claude.json']);
  });
});
