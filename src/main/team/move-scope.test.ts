/**
 * Moving a memory between private and team writes its name into the other MEMORY.md: MEMORY.md,
 * which Claude Code sends to the model in every session, or team/MEMORY.md, shared with the team.
 * A name holding a secret neither had seen is refused by the save guard (masked, with its
 * fingerprint) until the person moves it anyway on purpose.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bulkChange } from '../curation/bulk-change.js';
import { undoHistoryEntry } from '../relink/index.js';
import { maskedName } from '../secrets/index.js';
import { AlertCenter } from './alert-center.js';
import { moveMemoryScope } from './move-scope.js';

const TOKEN = ['ghp_', 'Zq8Rv2Tx', '6Wb4Ny1L', 'm3Pk5Hj7', 'Qs9Df0Ga', '2Xc4'].join('');
const NAMED = `reference_${TOKEN}.md`;
const TOPIC = '---\nname: CI bot\ndescription: the CI bot\ntype: reference\n---\n\nThe CI bot is named after its token.\n';

let root: string;
let memoryDir: string;
let dataDir: string;
const read = (rel: string) => fs.readFile(path.join(memoryDir, rel), 'utf8');

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-move-scope-')));
  memoryDir = path.join(root, 'memory');
  dataDir = path.join(root, 'data');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function refusal(move: Promise<unknown>): Promise<Error & { code?: string; secrets?: { fingerprint: string }[] }> {
  const error = await move.then(
    () => null,
    (e: unknown) => e as Error & { code?: string; secrets?: { fingerprint: string }[] },
  );
  expect(error, 'the move went through').not.toBeNull();
  return error!;
}

it.each([['team', '']] as const)('refuses to move a memory whose name holds a token to %s, masked, until moved anyway on purpose', async (to, from) => {
  await fs.writeFile(path.join(memoryDir, `${from}${NAMED}`), TOPIC);
  await fs.writeFile(path.join(memoryDir, `${from}MEMORY.md`), `- [CI bot](${NAMED}) — the CI bot\n`);
  const error = await refusal(moveMemoryScope({ memoryDir, dataDir, file: NAMED, to }));
  expect(error.code).toBe('secret-found');
  const label = to === 'team' ? 'team\\/reference_ghp_\\*+\\.md' : 'reference_ghp_\\*+\\.md';
  expect(error.message).toMatch(new RegExp(`^Nothing was saved: ${label} would hold a GitHub token \\(ghp_\\*+\\) in its name \\[fingerprint [0-9a-f]{16}\\]`));
  expect(error.message).not.toContain(TOKEN.slice(6));
  // Nothing moved: the file and its pointer are where they were.
  expect(await read(`${from}${NAMED}`)).toBe(TOPIC);
  expect(await read(`${from}MEMORY.md`)).toContain(NAMED);
  const toIndex = to === 'team' ? 'team/MEMORY.md' : 'MEMORY.md';
  expect(await read(toIndex).catch(() => '')).not.toContain(TOKEN);

  await moveMemoryScope({ memoryDir, dataDir, file: NAMED, to, allowSecrets: error.secrets!.map((s) => s.fingerprint) });
  expect(await read(`${to === 'team' ? 'team/' : ''}${NAMED}`)).toBe(TOPIC);
  expect(await read(toIndex)).toContain(NAMED);
});

it.each([
  ['', 'team/MEMORY.md alone named it, and Claude Code 2.1.332 does not load that file: asked'],
  [`- [CI bot](team/${NAMED}) — the CI bot\n`, 'MEMORY.md named it already (a team/ link): not asked'],
])('moves a team memory whose name holds a token to private only when the model was sent the name (MEMORY.md %j): %s', async (privateIndex) => {
  await fs.writeFile(path.join(memoryDir, 'team', NAMED), TOPIC);
  await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), `- [CI bot](${NAMED}) — the CI bot\n`);
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), privateIndex);
  if (privateIndex === '') {
    const error = await refusal(moveMemoryScope({ memoryDir, dataDir, file: NAMED, to: 'private' }));
    expect(error.code).toBe('secret-found');
    expect(error.message).toMatch(/^Nothing was saved: reference_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name/);
    expect(error.message).not.toContain(TOKEN.slice(6));
    // Nothing moved, and what Claude Code loads still does not hold the token.
    expect(await read('MEMORY.md')).toBe('');
    expect(await read(`team/${NAMED}`)).toBe(TOPIC);
    await moveMemoryScope({ memoryDir, dataDir, file: NAMED, to: 'private', allowSecrets: error.secrets!.map((s) => s.fingerprint) });
  } else await moveMemoryScope({ memoryDir, dataDir, file: NAMED, to: 'private' });
  expect(await read(NAMED)).toBe(TOPIC);
  expect(await read('MEMORY.md')).toContain(NAMED);
  // Back to the team, the name is new to the server and to teammates: asked again.
  const error = await refusal(moveMemoryScope({ memoryDir, dataDir, file: NAMED, to: 'team' }));
  expect(error.code).toBe('secret-found');
  expect(error.message).not.toContain(TOKEN.slice(6));
});

it('a bulk move leaves a memory whose name holds a token where it is, its reason and secret masked, moves the rest; moved again anyway, it goes', async () => {
  await fs.writeFile(path.join(memoryDir, NAMED), TOPIC);
  await fs.writeFile(path.join(memoryDir, 'reference_docs.md'), TOPIC.replace('CI bot', 'Docs'));
  const result = await bulkChange(
    { memoryDir, dataDir },
    [
      { scope: 'private', file: NAMED },
      { scope: 'private', file: 'reference_docs.md' },
    ],
    { kind: 'move', to: 'team' },
  );
  expect(result.done).toEqual([{ scope: 'private', file: 'reference_docs.md' }]);
  expect(result.refused).toEqual([
    {
      scope: 'private',
      file: NAMED,
      reason: expect.stringMatching(/^Nothing was saved: team\/reference_ghp_\*+\.md would hold/),
      secrets: [{ title: 'GitHub token', match: expect.stringMatching(/^ghp_\*+$/), line: 0, fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/) }],
    },
  ]);
  // Said masked (`file` is the item as asked, to move it again).
  expect(JSON.stringify(result.refused.map(({ reason, secrets }) => ({ reason, secrets })))).not.toContain(TOKEN.slice(6));
  expect(await read(NAMED)).toBe(TOPIC);
  const again = await bulkChange({ memoryDir, dataDir }, [{ scope: 'private', file: NAMED }], { kind: 'move', to: 'team' }, [
    result.refused[0]!.secrets![0]!.fingerprint,
  ]);
  expect(again).toMatchObject({ done: [{ scope: 'private', file: NAMED }], refused: [] });
  expect(await read(`team/${NAMED}`)).toBe(TOPIC);
  expect(await read('team/MEMORY.md')).toContain(NAMED);
});

it('refuses to move a team memory to private beside a private one of the same name in another Unicode form, and moves nothing', async () => {
  const nfd = 'cafe\u0301.md';
  const nfc = 'caf\u00e9.md';
  const topic = (name: string) => `---\nname: ${name}\ndescription: ${name}\ntype: project\n---\n\n${name}\n`;
  await fs.writeFile(path.join(memoryDir, nfd), topic('private'));
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), `- [private](${nfd}) — private\n`);
  await fs.writeFile(path.join(memoryDir, 'team', nfc), topic('team'));
  await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), `- [team](${nfc}) — team\n`);

  const error = await refusal(moveMemoryScope({ memoryDir, dataDir, file: nfc, to: 'private' }));
  expect(error.code).toBe('exists');
  expect(error.message).toContain('is the same name, written in another Unicode form; rename one of them first.');
  // One café.md in each folder, each index with its own pointer, as before.
  expect((await fs.readdir(memoryDir)).filter((n) => n.endsWith('.md')).sort()).toEqual(['MEMORY.md', nfd]);
  expect(await read(`team/${nfc}`)).toBe(topic('team'));
  expect(await read('MEMORY.md')).toBe(`- [private](${nfd}) — private\n`);
});

it('moved anyway to a name the team already has, the refusal names it masked', async () => {
  await fs.writeFile(path.join(memoryDir, NAMED), TOPIC);
  await fs.writeFile(path.join(memoryDir, 'team', NAMED), TOPIC.replace('CI bot', 'Team bot'));
  const asked = await refusal(moveMemoryScope({ memoryDir, dataDir, file: NAMED, to: 'team' }));
  const error = await refusal(moveMemoryScope({ memoryDir, dataDir, file: NAMED, to: 'team', allowSecrets: asked.secrets!.map((s) => s.fingerprint) }));
  expect(error.code).toBe('exists');
  expect(error.message).toMatch(/^team\/reference_ghp_\*+\.md already exists; rename one of them first\.$/);
  expect(error.message).not.toContain(TOKEN.slice(6));
  expect(await read(NAMED)).toBe(TOPIC);
});

it('moves a private memory to the team with its MEMORY.md pointer retargeted in place to team/x.md (still loaded), listed in team/MEMORY.md too; and back', async () => {
  const topic = '---\nname: Deploys\ndescription: how we ship\ntype: project\n---\nbody\n';
  await fs.writeFile(path.join(memoryDir, 'deploys.md'), topic);
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Deploys](deploys.md) — my hook\n- [Other](other.md) — o\n');
  await fs.writeFile(path.join(memoryDir, 'other.md'), topic.replace('Deploys', 'Other'));
  await moveMemoryScope({ memoryDir, dataDir, file: 'deploys.md', to: 'team' });
  expect(await read('MEMORY.md')).toBe('- [Deploys](team/deploys.md) — my hook\n- [Other](other.md) — o\n');
  expect(await read('team/MEMORY.md')).toBe('- [Deploys](deploys.md) — my hook\n');
  // Back to private (never pushed): the pointer is retargeted in place again, the team's line goes.
  await moveMemoryScope({ memoryDir, dataDir, file: 'deploys.md', to: 'private' });
  expect(await read('MEMORY.md')).toBe('- [Deploys](deploys.md) — my hook\n- [Other](other.md) — o\n');
  expect(await read('team/MEMORY.md')).toBe('');
});

it("undoing a move anyway withdraws that move's allow and no other: not another move's of the same token, not an alert's Allow; a bulk move's undo withdraws its own", async () => {
  const other = `project_${TOKEN}.md`;
  const third = `feedback_${TOKEN}.md`;
  for (const name of [NAMED, other, third]) await fs.writeFile(path.join(memoryDir, name), TOPIC);
  const [finding] = (await maskedName(`team/${NAMED}`)).inName;
  const allow = [finding!.fingerprint];
  const first = await moveMemoryScope({ memoryDir, dataDir, file: NAMED, to: 'team', allowSecrets: allow });
  await moveMemoryScope({ memoryDir, dataDir, file: other, to: 'team', allowSecrets: allow });
  const bulk = await bulkChange({ memoryDir, dataDir }, [{ scope: 'private', file: third }], { kind: 'move', to: 'team' }, allow);
  // A person's Allow on an alert about the same token, everywhere in the folder.
  const center = new AlertCenter(dataDir);
  const key = await fs.realpath(memoryDir);
  const alert = await center.raise({
    topic: 'secret:x',
    kind: 'secret',
    title: 't',
    message: 'm',
    memoryDir: key,
    findings: [{ ...finding!, file: 'team/notes.md' }],
  });
  await center.allow(alert.id, finding!.fingerprint, 'me', 'a test token, safe to share');
  const files = async () => (await center.list()).allowed.map((a) => `${a.file} ${a.only ?? 'everywhere'}`).sort();
  const masked = async (name: string) => (await maskedName(`team/${name}`)).masked;
  expect(await files()).toHaveLength(4);

  const undone = await undoHistoryEntry({ memoryDir, dataDir, rev: first.rev! });
  expect(await read(NAMED)).toBe(TOPIC);
  expect(undone.notes).toEqual([expect.stringMatching(/^Team sync asks again before sharing team\/reference_ghp_\*+\.md: /)]);
  expect(await files()).toEqual([`${await masked(third)} name`, `${await masked(other)} name`, 'team/notes.md everywhere'].sort());
  // Undone again, it is not allowed again (asked once more, by team sync).
  await undoHistoryEntry({ memoryDir, dataDir, rev: undone.entry!.rev });
  expect(await read(`team/${NAMED}`)).toBe(TOPIC);
  expect(await files()).toHaveLength(3);
  await undoHistoryEntry({ memoryDir, dataDir, rev: bulk.entry!.rev });
  expect(await files()).toEqual([`${await masked(other)} name`, 'team/notes.md everywhere'].sort());
});
