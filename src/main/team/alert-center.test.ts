/** The alert center on a real data dir, written by two processes (the app and the CLI) at once. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertCenter, secretAlertMessage, secretAlertTitle } from './alert-center.js';
import { TEAM_SPACE } from './sync-space.js';
import { type Finding, maskedName, scanText } from '../secrets/index.js';
import { runWorkersTogether } from '../memdir/test-support/spawn-worker.js';

const dataFileWorker = fileURLToPath(new URL('./test-support/data-file-worker.ts', import.meta.url));

let tmp: string;
let dataDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-alerts-')));
  dataDir = path.join(tmp, 'data');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('AlertCenter', () => {
  it('loses no alert when two processes raise theirs at the same time', async () => {
    const codes = await runWorkersTogether(dataFileWorker, [
      ['alerts', dataDir, 'app', '15'],
      ['alerts', dataDir, 'cli', '15'],
    ]);
    expect(codes).toEqual([0, 0]);
    const { alerts, open } = await new AlertCenter(dataDir).list();
    expect(open).toBe(30);
    expect(alerts.map((a) => a.title).sort()).toEqual(
      [...Array.from({ length: 15 }, (_, i) => `Alert app-${i}`), ...Array.from({ length: 15 }, (_, i) => `Alert cli-${i}`)].sort(),
    );
  }, 60_000);

  it("a secret allowed in a moved file's name is allowed there and in the link to it only: not in its text, its pointer's hook, another file or another name", async () => {
    const token = ['ghp_', 'Wd4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs', 'Fj1Ga6Ne', 'u3Tb'].join('');
    const named = `reference_${token}.md`;
    const memoryDir = path.join(tmp, 'memory');
    const { masked, inName } = await maskedName(`team/${named}`);
    const center = new AlertCenter(dataDir);
    await center.allowOnPurpose(
      memoryDir,
      inName.map((f) => ({ ...f, file: masked })),
      'me',
      null,
    );
    const allowedIn = async (rel: string, content: string, name?: string) => {
      const found = await scanText(content, { file: rel, ...(name ? { name } : {}) });
      expect(found.length, `${rel} holds the token`).toBeGreaterThan(0);
      return Promise.all(found.map((f) => center.isAllowed(memoryDir, 'team', f, { rel, content })));
    };
    expect(await allowedIn(`team/${named}`, 'No secret here.\n', named)).toEqual([true]);
    expect(await allowedIn(`team/${named}`, `The token is ${token}.\n`, named)).toEqual([false, true]);
    expect(await allowedIn('team/MEMORY.md', `- [Other](other.md) — x\n- [CI bot](${named}) — the bot, ${token}\n`)).toEqual([true, false]);
    expect(await allowedIn('team/ops_notes.md', `Use ${token}.\n`)).toEqual([false]);
    expect(await allowedIn(`team/copy_${token}.md`, 'No secret here.\n', `copy_${token}.md`)).toEqual([false]);
    // Recorded once, as the name's only (the Alerts page says so).
    expect((await center.list()).allowed).toEqual([expect.objectContaining({ file: masked, only: 'name' })]);
  });
  it("an allow an earlier Memdir's Move anyway recorded for the whole folder is read as that name's only; a person's Allow on an alert stays the folder's", async () => {
    const token = ['ghp_', 'Od4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs', 'Fj1Ga6Ne', 'u3Tc'].join('');
    const alerted = ['ghp_', 'Al4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs', 'Fj1Ga6Ne', 'u3Td'].join('');
    const named = `reference_${token}.md`;
    const memoryDir = path.join(tmp, 'memory');
    const { masked, inName } = await maskedName(`team/${named}`);
    const [inText] = await scanText(`Use ${alerted}.\n`, { file: 'team/ops.md' });
    // allowed.json as Memdir wrote it between f140a1e and cb355c9: no `only`, that why.
    const record = (f: { fingerprint: string; rule: string; match: string }, file: string, why: string) => ({
      memoryDir,
      fingerprint: f.fingerprint,
      rule: f.rule,
      file,
      match: f.match,
      who: 'me',
      why,
      at: '2026-12-05T23:00:00.000Z',
    });
    await fs.mkdir(path.join(dataDir, 'alerts'), { recursive: true });
    await fs.writeFile(
      path.join(dataDir, 'alerts', 'allowed.json'),
      JSON.stringify({
        version: 1,
        allowed: [record(inName[0]!, masked, 'moved to the team anyway, on purpose'), record(inText!, 'team/ops.md', 'a test token, safe to share')],
      }),
    );
    const center = new AlertCenter(dataDir);
    const allowedIn = async (rel: string, content: string, name?: string) => {
      const found = await scanText(content, { file: rel, ...(name ? { name } : {}) });
      return Promise.all(found.map((f) => center.isAllowed(memoryDir, 'team', f, { rel, content })));
    };
    expect(await allowedIn(`team/${named}`, 'No secret here.\n', named)).toEqual([true]);
    expect(await allowedIn('team/ops_notes.md', `Use ${token}.\n`)).toEqual([false]);
    expect(await allowedIn(`team/${named}`, `The token is ${token}.\n`, named)).toEqual([false, true]);
    // The person's own Allow still covers the team folder.
    expect(await allowedIn('team/other.md', `Use ${alerted}.\n`)).toEqual([true]);
    expect((await center.list()).allowed.map((a) => [a.only ?? 'everywhere', a.space])).toEqual([
      ['everywhere', 'team'],
      ['name', 'team'],
    ]);
  });

  // Review s45-1 #3: masks before session 45 showed a secret's first 2 to 4 characters and up to 12 stars.
  it('a name allowed by Move anyway under the old mask stays allowed, and no old record shows a character of a password', async () => {
    const key = ['sk_live_', 'Wd4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs'].join('');
    const named = `reference_${key}.md`;
    const memoryDir = path.join(tmp, 'memory');
    const { inName } = await maskedName(`team/${named}`);
    const password = 'Tr0ub4dor&3x';
    const [inText] = await scanText(`password: ${password}\n`, { file: 'team/ops.md' });
    // allowed.json as Memdir wrote it before session 45: the name masked as `sk_l************`, a password as `Tr**********`.
    const oldName = `team/reference_sk_l${'*'.repeat(12)}.md`;
    const record = (f: { fingerprint: string; rule: string }, file: string, match: string, only?: 'name') => ({
      memoryDir,
      space: 'team',
      fingerprint: f.fingerprint,
      rule: f.rule,
      file,
      match,
      who: 'me',
      why: 'on purpose',
      at: '2026-12-05T23:00:00.000Z',
      ...(only ? { only } : {}),
    });
    await fs.mkdir(path.join(dataDir, 'alerts'), { recursive: true });
    await fs.writeFile(
      path.join(dataDir, 'alerts', 'allowed.json'),
      JSON.stringify({
        version: 1,
        allowed: [record(inName[0]!, oldName, `sk_l${'*'.repeat(12)}`, 'name'), record(inText!, 'team/ops.md', `Tr${'*'.repeat(10)}`)],
      }),
    );
    const center = new AlertCenter(dataDir);
    await center.raise({ topic: 'secret:old', kind: 'secret', title: 't', message: `Password on line 1 (${inText!.match})`, memoryDir, findings: [inText!] });
    const alertsFile = path.join(dataDir, 'alerts', 'alerts.json');
    await fs.writeFile(alertsFile, (await fs.readFile(alertsFile, 'utf8')).replaceAll(inText!.match, `Tr${'*'.repeat(10)}`));
    const fresh = new AlertCenter(dataDir);
    const [found] = await scanText('No secret here.\n', { file: `team/${named}`, name: named });
    expect(await fresh.isAllowed(memoryDir, 'team', found!, { rel: `team/${named}`, content: 'No secret here.\n' })).toBe(true);
    const { alerts, allowed } = await fresh.list();
    const shown = [...allowed.map((a) => a.match), ...alerts.flatMap((a) => a.findings.map((f) => f.match))];
    expect(shown).toHaveLength(3);
    for (const match of shown) expect(match, match).toMatch(/^\*+$/);
    expect(alerts[0]!.message).not.toContain('Tr*');
    // Review s45-4 #5: the name's file (not on disk here) is shown by stars only, and the allow holds after allowed.json is written again.
    expect(allowed.map((a) => a.file).sort()).toEqual(['team/ops.md', `team/reference_${'*'.repeat(16)}.md`]);
    expect(await fresh.withdraw((a) => a.file === 'team/ops.md')).toHaveLength(1);
    const again = new AlertCenter(dataDir);
    expect(await again.isAllowed(memoryDir, 'team', found!, { rel: `team/${named}`, content: 'No secret here.\n' })).toBe(true);
  });

  // Review s45-4 #5: an old record names the file by the old mask too — an alert's title, message and
  // findings' file, an allowed record's file — each showing the secret's first characters.
  it("an old record's title, message and file names are masked as today, and its allowed name still holds", async () => {
    const key = ['sk_live_', 'Wd4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs'].join('');
    const named = `reference_${key}.md`;
    const memoryDir = path.join(tmp, 'memory');
    await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
    await fs.writeFile(path.join(memoryDir, 'team', named), 'No secret here.\n');
    const { masked } = await maskedName(`team/${named}`);
    const [found] = await scanText('No secret here.\n', { file: masked, name: `team/${named}` });
    const oldMatch = `sk_l${'*'.repeat(12)}`;
    const oldName = `team/reference_${oldMatch}.md`;
    const center = new AlertCenter(dataDir);
    await center.raise({
      topic: 'secret:team:team/x',
      kind: 'secret',
      title: secretAlertTitle(masked, TEAM_SPACE),
      message: secretAlertMessage(masked, [found!], TEAM_SPACE),
      memoryDir,
      file: `team/${named}`,
      findings: [found!],
    });
    const alertsFile = path.join(dataDir, 'alerts', 'alerts.json');
    // As Memdir wrote it before session 45: the name and the match under the old mask.
    await fs.writeFile(alertsFile, (await fs.readFile(alertsFile, 'utf8')).replaceAll(masked, oldName).replaceAll(found!.match, oldMatch));
    const allowedRecord = { memoryDir, space: 'team', fingerprint: found!.fingerprint, rule: found!.rule, file: oldName, match: oldMatch };
    await fs.writeFile(
      path.join(dataDir, 'alerts', 'allowed.json'),
      JSON.stringify({ version: 1, allowed: [{ ...allowedRecord, who: 'me', why: 'on purpose', at: '2026-12-05T23:00:00.000Z', only: 'name' }] }),
    );
    expect(await fs.readFile(alertsFile, 'utf8')).toContain('sk_l*');
    const fresh = new AlertCenter(dataDir);
    const { alerts, allowed } = await fresh.list();
    // An alert's `file` keeps the real path, only to open the file; everything shown in words is masked.
    const shown = { alerts: alerts.map(({ file: _real, ...a }) => a), allowed };
    expect(JSON.stringify(shown).match(/.{40}(?:sk_l\*|Wd4R).{20}/g)).toBeNull();
    expect(alerts[0]).toMatchObject({ title: secretAlertTitle(masked, TEAM_SPACE), message: secretAlertMessage(masked, [found!], TEAM_SPACE) });
    expect(alerts[0]!.findings.map((f) => f.file)).toEqual([masked]);
    expect(allowed.map((a) => a.file)).toEqual([masked]);
    // The allow still holds, and holds after the upgraded record is written back.
    expect(await fresh.isAllowed(memoryDir, 'team', found!, { rel: `team/${named}`, content: 'No secret here.\n' })).toBe(true);
    expect(await new AlertCenter(dataDir).isAllowed(memoryDir, 'team', found!, { rel: `team/${named}`, content: 'No secret here.\n' })).toBe(true);
  });

  // Review s45-6 #4: an old record whose name today's scanner no longer flags (a rule since narrowed) shows it by stars, not whole.
  it("an old record of a secret in a name today's scanner no longer finds keeps the name masked", async () => {
    const real = 'team/reference_Hunter2Grafana.md';
    const oldMatch = `Hu${'*'.repeat(10)}`;
    const oldName = `team/reference_${oldMatch}.md`;
    expect(await scanText('x', { name: real })).toEqual([]);
    const finding = {
      rule: 'memdir/login-pair',
      title: 'A password',
      severity: 'error',
      match: oldMatch,
      where: 'name',
      line: 0,
      column: 16,
      range: [15, 29],
      file: oldName,
      fingerprint: 'abc123',
      priority: 1,
    } as Finding;
    const center = new AlertCenter(dataDir);
    await center.raise({
      topic: 'secret:team:team/x',
      kind: 'secret',
      title: secretAlertTitle(oldName, TEAM_SPACE),
      message: secretAlertMessage(oldName, [finding], TEAM_SPACE),
      memoryDir: path.join(tmp, 'memory'),
      file: real,
      findings: [finding],
    });
    const { alerts } = await new AlertCenter(dataDir).list();
    const { file: _real, ...shown } = alerts[0]!;
    expect(JSON.stringify(shown)).not.toContain('Hunter2Grafana');
    expect(JSON.stringify(shown)).not.toContain('Hu*');
    expect(shown.title).toContain('team/reference_');
    expect(shown.findings.map((f) => f.file)).toEqual([expect.stringMatching(/^team\/reference_\*+\.md$/)]);
  });

  // Review 4, S2: the finding that stands for more secrets than are listed has no fingerprint.
  it('refuses to allow the finding for more secrets than are listed, in words, and keeps it in the alert', async () => {
    // More than the scanner lists of one kind (200).
    const many = Array.from({ length: 205 }, (_, i) => `pwd=Xk9mQ${i}zPq`).join('\n');
    const findings = (await scanText(many, { file: 'team/notes.md' })).filter((f) => f.fingerprint === '');
    expect(findings.map((f) => f.rule)).toEqual(['memdir/too-many-secrets']);
    const center = new AlertCenter(dataDir);
    const alert = await center.raise({ topic: 'secret:x', kind: 'secret', title: 't', message: 'm', memoryDir: path.join(tmp, 'memory'), findings });
    await expect(center.allow(alert.id, '', 'me', 'why not')).rejects.toThrow(/^This finding cannot be allowed: it stands for more secrets/);
    const { alerts, allowed } = await center.list();
    expect(allowed).toEqual([]);
    expect(alerts[0]!.findings.map((f) => f.rule)).toEqual(['memdir/too-many-secrets']);
  });

  it('an allow recorded before its space was kept counts only in the space its alert came from, as its file says', async () => {
    const tokenOf = (tail: string) => ['ghp_', 'Sp4Rt8Yq', 'Nz2Kx7Lp', 'Dm4Hc9Vs', 'Fj1Ga6Ne', tail].join('');
    const [personal, team] = [tokenOf('u3Te'), tokenOf('u3Tf')];
    const memoryDir = path.join(tmp, 'memory');
    const [p] = await scanText(`Use ${personal}.\n`, { file: 'reference_ci.md' });
    const [t] = await scanText(`Use ${team}.\n`, { file: 'team/ops.md' });
    // allowed.json as Memdir wrote it before s35: no `space`.
    const record = (f: { fingerprint: string; rule: string; match: string }, file: string) => ({
      memoryDir,
      fingerprint: f.fingerprint,
      rule: f.rule,
      file,
      match: f.match,
      who: 'me',
      why: 'a test token',
      at: '2026-12-05T23:00:00.000Z',
    });
    await fs.mkdir(path.join(dataDir, 'alerts'), { recursive: true });
    await fs.writeFile(
      path.join(dataDir, 'alerts', 'allowed.json'),
      JSON.stringify({ version: 1, allowed: [record(p!, 'reference_ci.md'), record(t!, 'team/ops.md')] }),
    );
    const center = new AlertCenter(dataDir);
    const allowed = async (space: 'team' | 'personal', rel: string, token: string) => {
      const content = `Use ${token}.\n`;
      const [f] = await scanText(content, { file: rel });
      return center.isAllowed(memoryDir, space, f!, { rel, content });
    };
    expect(await allowed('personal', 'notes.md', personal)).toBe(true);
    expect(await allowed('team', 'team/notes.md', personal)).toBe(false);
    expect(await allowed('team', 'team/notes.md', team)).toBe(true);
    expect(await allowed('personal', 'notes.md', team)).toBe(false);
  });
});
