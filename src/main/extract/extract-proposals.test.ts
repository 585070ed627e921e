// What the model proposes: validated before anything is written, or queued for review (accept, edit, reject), and the
// offline suggestions made without a model.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptProposal, rejectProposal } from './review-queue.js';
import { testingMemory, useExtractHarness } from './test-support/extract-harness.js';
import { offlineProvider, operationsReply } from './test-support/extract-fixture.js';

const h = useExtractHarness();
const { run, memory, exists, indexFiles, store, writeTurns } = h;

describe('what the model proposes is validated before anything is written', () => {
  it('refuses new file names with %xx, #, ?, control or bidi characters, or a Windows device name, with a sentence (issue 15)', async () => {
    const names = [
      'feedback_a%2Fb.md',
      'feedback_a#b.md',
      'feedback_why?.md',
      'feedback_\u001b[31mred.md',
      'feedback_\u202Egnp.md',
      'CON.md',
      'aux.md',
      'feedback_x.md.',
    ];
    h.fake.enqueue(operationsReply(...names.map((file) => ({ ...testingMemory, file }))));
    await writeTurns('a turn with odd names');
    const ops = (await run()).outcomes[0]!.operations;
    expect(ops.map((o) => o.disposition)).toEqual(names.map(() => 'refused'));
    for (const op of ops) expect(op.reason).toMatch(/cannot be a memory file name: /);
    expect((await fs.readdir(h.fx.memoryDir)).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md' && !f.startsWith('feedback_sql'))).toEqual([]);
  });

  it('refuses paths outside the memory dir, a user memory for the team, secrets and bad types, and applies the rest', async () => {
    await fs.mkdir(path.join(h.fx.memoryDir, 'team'));
    await fs.writeFile(path.join(h.fx.memoryDir, 'team', 'MEMORY.md'), '');
    h.fake.enqueue(
      operationsReply(
        { ...testingMemory, file: '../../../escape.md' },
        { ...testingMemory, file: '/etc/evil.md' },
        { ...testingMemory, file: 'team/sneaky.md' },
        { ...testingMemory, file: 'user_me.md', type: 'user', scope: 'team', name: 'Me', description: 'I am the lead' },
        { ...testingMemory, file: 'reference_key.md', type: 'reference', body: 'Use key sk-ant-api03-' + 'A'.repeat(93) + 'AA for the API' },
        { ...testingMemory, file: 'opinion.md', type: 'opinion' },
        { ...testingMemory, action: 'update', file: 'not_there.md' },
        { ...testingMemory, file: 'feedback_sql.md' },
        'garbage',
        {
          ...testingMemory,
          file: 'project_ci.md',
          type: 'project',
          scope: undefined,
          name: 'CI has no Python 3.8',
          description: 'CI images dropped Python 3.8 in 2026-02',
        },
      ),
    );
    await writeTurns('a turn with lots said');
    const result = await run();
    const ops = result.outcomes[0]!.operations;
    expect(ops.map((o) => o.disposition)).toEqual([
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'applied',
    ]);
    expect(ops[0]!.reason).toMatch(/outside the memory directory/);
    expect(ops[1]!.reason).toMatch(/outside the memory directory/);
    expect(ops[2]!.reason).toMatch(/without folders/);
    expect(ops[3]!.reason).toMatch(/user.*team/i);
    expect(ops[4]!.reason).toMatch(/secret/);
    expect(ops[4]!.reason).not.toContain('A'.repeat(20));
    expect(ops[5]!.reason).toMatch(/not a memory type/);
    expect(ops[6]!.reason).toMatch(/does not exist/);
    expect(ops[7]!.reason).toMatch(/already exists/);
    expect(ops[8]!.reason).toMatch(/not an object/);
    // `project` defaults to the team scope (R-TYPES) when the project has team memory.
    expect(ops[9]!.operation.scope).toBe('team');
    expect(await indexFiles('team/MEMORY.md')).toEqual(['project_ci.md']);
    await expect(fs.stat(path.join(h.fx.root, 'escape.md'))).rejects.toThrow();
    expect(await exists('team/user_me.md')).toBe(false);
    expect(await exists('reference_key.md')).toBe(false);
    expect(await memory('feedback_sql.md')).toContain('The ORM hid N+1 queries.');
  });

  it("refuses a new file name holding a token (it would be MEMORY.md's pointer), said masked, and writes the rest", async () => {
    const token = ['ghp_', 'Hq4Zt8Wm', 'Ls2Xv6Rn', 'Pc9Kd3Yb', 'Fg7Ju1Ea', 'w5Oi'].join('');
    h.fake.enqueue(operationsReply({ ...testingMemory, file: `reference_${token}.md`, type: 'reference' }, { ...testingMemory, file: 'feedback_ci.md' }));
    await writeTurns('a turn naming a token');
    const ops = (await run()).outcomes[0]!.operations;
    expect(ops.map((o) => o.disposition)).toEqual(['refused', 'applied']);
    expect(ops[0]!.reason).toMatch(/reference_ghp_\*+\.md would hold a GitHub token \(ghp_\*+\) in its name/);
    expect(ops[0]!.reason).not.toContain(token.slice(6));
    expect(await exists(`reference_${token}.md`)).toBe(false);
    expect(await indexFiles()).not.toContain(`reference_${token}.md`);
    // The history entry names what was written, not the refused name: no entry (History page, `memdir history`, export's scan) holds the token.
    const history = await h.historyOf();
    expect(history.find((e) => e.source === 'extract')?.summary).toMatch(/^Extract from session \S+: create feedback_ci\.md$/);
    expect(history.filter((e) => e.summary.includes(token.slice(6)))).toEqual([]);
  });

  it('keeps a team-leaning memory private when the project has no team memory', async () => {
    h.fake.enqueue(operationsReply({ ...testingMemory, file: 'project_freeze.md', type: 'project', scope: undefined }));
    await writeTurns('the freeze starts Friday');
    const result = await run();
    expect(result.outcomes[0]!.operations[0]).toMatchObject({ disposition: 'applied', operation: { scope: 'private' } });
    expect(await exists('team')).toBe(false);
  });

  it('falls back to offline suggestions when the answer is not JSON, and says why', async () => {
    h.fake.enqueue({ kind: 'message', text: 'I think you should remember the database thing.' });
    await writeTurns('Remember that staging resets every Monday.');
    const result = await run();
    expect(result.outcomes[0]).toMatchObject({
      method: 'offline',
      message: expect.stringContaining('prose instead of JSON'),
      model: expect.objectContaining({ provider: 'anthropic' }),
    });
    expect(result.outcomes[0]!.operations).toEqual([
      expect.objectContaining({ disposition: 'queued', operation: expect.objectContaining({ description: 'Remember that staging resets every Monday.' }) }),
    ]);
  });
});

describe('review mode and offline suggestions', () => {
  it('queues proposals; accept writes them, edited accept and reject are logged', async () => {
    h.fake.enqueue(
      operationsReply(
        testingMemory,
        { ...testingMemory, file: 'feedback_tabs.md', name: 'Tabs', description: 'Use tabs' },
        { ...testingMemory, file: 'feedback_lint.md', name: 'Lint', description: 'Run lint' },
      ),
    );
    await writeTurns('three things');
    const result = await run({ mode: 'review' });
    expect(result.queued).toBe(3);
    expect(await exists('feedback_real_db.md')).toBe(false);
    const [lint, db, tabs] = (await store().listProposals()).sort((a, b) => a.operation.file.localeCompare(b.operation.file));
    expect(db).toMatchObject({ kind: 'proposal', status: 'pending', project: h.fx.dir, evidence: 'three things' });

    const accepted = await acceptProposal(h.fx.dataDir, db!.id);
    expect(accepted).toMatchObject({ status: 'accepted', edited: false, result: { file: 'feedback_real_db.md' } });
    expect(await indexFiles()).toContain('feedback_real_db.md');
    await acceptProposal(h.fx.dataDir, tabs!.id, { ...tabs!.operation, name: 'Tabs, not spaces', file: 'feedback_tabs_not_spaces.md' });
    expect(await memory('feedback_tabs_not_spaces.md')).toContain('name: Tabs, not spaces');
    await rejectProposal(h.fx.dataDir, lint!.id, 'derivable from the CI config');
    await expect(acceptProposal(h.fx.dataDir, lint!.id)).rejects.toMatchObject({ code: 'conflict' });
    await expect(acceptProposal(h.fx.dataDir, db!.id, { ...db!.operation, scope: 'team', type: 'user' })).rejects.toMatchObject({ code: 'conflict' });

    const decisions = (await store().readLog()).filter((e) => e.kind === 'decision').map((e) => (e.kind === 'decision' ? e.decision : null));
    expect(decisions.sort()).toEqual(['accepted', 'edited', 'rejected']);
    expect(await store().listProposals()).toEqual([]);
    expect(await store().listProposals({ status: 'all' })).toHaveLength(3);
  });

  it('refuses an edit that would send a user memory to the team, or leave the directory', async () => {
    await fs.mkdir(path.join(h.fx.memoryDir, 'team'));
    h.fake.enqueue(operationsReply(testingMemory));
    await writeTurns('x');
    await run({ mode: 'review' });
    const [p] = await store().listProposals();
    await expect(acceptProposal(h.fx.dataDir, p!.id, { ...p!.operation, type: 'user', scope: 'team' })).rejects.toMatchObject({ code: 'scope-refused' });
    await expect(acceptProposal(h.fx.dataDir, p!.id, { ...p!.operation, file: '../x.md' })).rejects.toMatchObject({ code: 'invalid-input' });
    expect((await store().getProposal(p!.id))!.status).toBe('pending');
  });

  it('offline: writes nothing and lists "remember this" statements as suggestions, once', async () => {
    await writeTurns('Remember that the staging DB resets every Monday. Also fix the bug.', '以后提交前先跑 lint。', "I don't know why this fails?");
    const result = await run({ provider: offlineProvider() });
    expect(result.wrote).toBe(false);
    const suggestions = await store().listProposals();
    expect(suggestions.map((s) => s.evidence).sort()).toEqual(['Remember that the staging DB resets every Monday.', '以后提交前先跑 lint。']);
    expect(suggestions.every((s) => s.kind === 'suggestion' && s.operation.scope === 'private')).toBe(true);
    expect(h.fake.messageRequests()).toHaveLength(0);
    // One click makes it a memory.
    const accepted = await acceptProposal(h.fx.dataDir, suggestions.find((s) => s.evidence.startsWith('Remember'))!.id);
    expect(await memory(accepted.result!.file)).toContain('staging DB resets every Monday');
    // The same statement said again is not suggested twice while one is pending.
    await writeTurns('以后提交前先跑 lint。');
    await run({ provider: offlineProvider() });
    expect((await store().listProposals()).filter((s) => s.evidence === '以后提交前先跑 lint。')).toHaveLength(1);
  });
});

describe('a new name that is an existing one in another Unicode form', () => {
  const nfd = 'feedback_cafe\u0301.md';
  const nfc = 'feedback_caf\u00e9.md';

  it('is refused with its reason, and the memory under the other form is left as it was', async () => {
    const before = `---\nname: Café\ndescription: the café memory\ntype: feedback\n---\n\nKept.\n`;
    await fs.writeFile(path.join(h.fx.memoryDir, nfd), before);
    h.fake.enqueue(operationsReply({ ...testingMemory, file: nfc }, { ...testingMemory, file: 'feedback_ci.md' }));
    await writeTurns('a turn about the café');
    const ops = (await run()).outcomes[0]!.operations;
    expect(ops.map((o) => o.disposition)).toEqual(['refused', 'applied']);
    expect(ops[0]!.reason).toContain('is the same name, written in another Unicode form');
    expect((await fs.readdir(h.fx.memoryDir)).filter((n) => n.normalize('NFC') === nfc)).toEqual([nfd]);
    expect(await memory(nfd)).toBe(before);
  });

  it('in review mode is refused when proposed, not queued to fail when accepted, and an update of the other form is refused too', async () => {
    await fs.writeFile(path.join(h.fx.memoryDir, nfd), `---\nname: Café\ndescription: the café memory\ntype: feedback\n---\n\nKept.\n`);
    h.fake.enqueue(operationsReply({ ...testingMemory, file: nfc }, { ...testingMemory, action: 'update', file: nfc }));
    await writeTurns('a turn about the café');
    const ops = (await run({ mode: 'review' })).outcomes[0]!.operations;
    expect(ops.map((o) => o.disposition)).toEqual(['refused', 'refused']);
    expect(ops[0]!.reason).toBe(
      `${nfc} already exists in the memory: "${nfd}" is the same name, written in another Unicode form; an update of it was expected.`,
    );
    expect(ops[1]!.reason).toBe(
      `${nfc} does not exist in the memory: "${nfd}" is the same name, written in another Unicode form; update it by that exact name.`,
    );
    expect(await store().listProposals()).toEqual([]);
  });
});

describe('accepting a queued update onto a memory that changed since it was queued (review x1 F5)', () => {
  const topic = (body: string) => `---\nname: CI\ndescription: how CI runs\ntype: project\n---\n\n${body}\n`;
  const proposeUpdate = async (body: string) => {
    await fs.writeFile(path.join(h.fx.memoryDir, 'project_ci.md'), topic('CI runs on GitHub Actions.'));
    await fs.appendFile(path.join(h.fx.memoryDir, 'MEMORY.md'), '- [CI](project_ci.md) — how CI runs\n');
    h.fake.enqueue(
      operationsReply({ ...testingMemory, action: 'update', file: 'project_ci.md', type: 'project', name: 'CI', description: 'how CI runs', body }),
    );
    await writeTurns('CI caches node_modules now');
    await run({ mode: 'review' });
    const [p] = await store().listProposals();
    return p!;
  };

  it('keeps the text the update was proposed from, and merges the proposal onto a line added since', async () => {
    const p = await proposeUpdate('CI runs on GitHub Actions.\nCI caches node_modules.\n');
    expect(p.baseText).toBe(topic('CI runs on GitHub Actions.'));
    await fs.writeFile(path.join(h.fx.memoryDir, 'project_ci.md'), topic('CI runs on GitHub Actions.\n\nNEVER re-run flaky jobs more than twice.'));
    const accepted = await acceptProposal(h.fx.dataDir, p.id);
    expect(accepted.status).toBe('accepted');
    const text = await memory('project_ci.md');
    expect(text).toContain('CI caches node_modules.');
    expect(text).toContain('NEVER re-run flaky jobs more than twice.');
  });

  it('refuses to overwrite when the change since overlaps the proposal, giving the file as it is now; accepted from that text it is written whole', async () => {
    const p = await proposeUpdate('CI runs on GitHub Actions, on Linux runners only.\n');
    const now = topic('CI runs on Buildkite since May.');
    await fs.writeFile(path.join(h.fx.memoryDir, 'project_ci.md'), now);
    const refused = await acceptProposal(h.fx.dataDir, p.id).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'conflict', current: now });
    expect((refused as Error).message).toBe(
      'project_ci.md was changed since this update was proposed, and the change overlaps it: compare both and choose which to keep.',
    );
    expect(await memory('project_ci.md')).toBe(now);
    expect((await store().getProposal(p.id))!.status).toBe('pending');
    // The user saw both and chose the proposal: written, the file as it was kept in history.
    const accepted = await acceptProposal(h.fx.dataDir, p.id, undefined, { baseText: now });
    expect(await memory('project_ci.md')).toContain('on Linux runners only.');
    expect(await memory('project_ci.md')).not.toContain('Buildkite');
    const log = await h.historyOf();
    expect(log[0]!.rev).toBe(accepted.result!.rev);
    expect(log[1]!.summary).toMatch(/outside Memdir/);
  });

  it('a queued update written by the older Memdir (no base text) is never written blindly over a file: both are shown', async () => {
    const p = await proposeUpdate('CI runs on GitHub Actions.\nCI caches node_modules.\n');
    const { baseText: _dropped, ...old } = p;
    await store().saveProposal(old as typeof p);
    expect((await store().getProposal(p.id))!.baseText).toBeUndefined();
    await expect(acceptProposal(h.fx.dataDir, p.id)).rejects.toMatchObject({ code: 'conflict', current: topic('CI runs on GitHub Actions.') });
    expect(await memory('project_ci.md')).toBe(topic('CI runs on GitHub Actions.'));
  });
});

describe('an update applied at once (apply mode) onto a memory the person edited while the model was answering', () => {
  const topic = (body: string) => `---\nname: CI\ndescription: how CI runs\ntype: project\n---\n\n${body}\n`;
  /** The model reads project_ci.md; while it answers, the person edits the file to `edited`; then it answers with `body`. */
  const applyWhileEdited = async (edited: string, body: string) => {
    await fs.writeFile(path.join(h.fx.memoryDir, 'project_ci.md'), topic('CI runs on GitHub Actions.'));
    await fs.appendFile(path.join(h.fx.memoryDir, 'MEMORY.md'), '- [CI](project_ci.md) — how CI runs\n');
    h.fake.setHandler(async () => {
      await fs.writeFile(path.join(h.fx.memoryDir, 'project_ci.md'), edited);
      return operationsReply({ ...testingMemory, action: 'update', file: 'project_ci.md', type: 'project', name: 'CI', description: 'how CI runs', body });
    });
    await writeTurns('CI caches node_modules now');
    return run({ mode: 'apply' });
  };

  it("merges the update onto the person's edit: the line added meanwhile stays", async () => {
    await applyWhileEdited(
      topic('CI runs on GitHub Actions.\n\nNEVER re-run flaky jobs more than twice.'),
      'CI runs on GitHub Actions.\nCI caches node_modules.\n',
    );
    const text = await memory('project_ci.md');
    expect(text).toContain('CI caches node_modules.');
    expect(text).toContain('NEVER re-run flaky jobs more than twice.');
  });

  it('writes nothing over an edit that overlaps it, says so, and keeps the update in the review queue: accepted there, both are shown', async () => {
    const now = topic('CI runs on Buildkite since May.');
    const result = await applyWhileEdited(now, 'CI runs on GitHub Actions, on Linux runners only.\n');
    expect(await memory('project_ci.md')).toBe(now);
    const ops = result.outcomes.flatMap((o) => o.operations);
    expect(ops).toEqual([
      expect.objectContaining({
        disposition: 'queued',
        reason:
          'Not written: project_ci.md was changed since the model read it, and the change overlaps its update. It waits in the review queue: compare both and choose which to keep.',
        proposalId: expect.any(String),
      }),
    ]);
    expect(result.queued).toBe(1);
    // Not lost: a pending proposal, from the text the model read.
    const proposal = (await store().getProposal(ops[0]!.proposalId!))!;
    expect(proposal).toMatchObject({ status: 'pending', kind: 'proposal', baseText: topic('CI runs on GitHub Actions.') });
    expect(proposal.operation.body).toBe('CI runs on GitHub Actions, on Linux runners only.\n');
    expect(proposal.warnings).toEqual([ops[0]!.reason]);
    // Accepted as it is, it still overlaps: the file as it is now is handed back to compare, nothing written.
    await expect(acceptProposal(h.fx.dataDir, proposal.id)).rejects.toMatchObject({ code: 'conflict', current: now });
    // Accepted from the file as the person sees it now (the app's "Take the proposal"), it is written.
    const taken = await acceptProposal(h.fx.dataDir, proposal.id, undefined, { baseText: now });
    expect(taken.result?.rev).toBeTruthy();
    expect(await memory('project_ci.md')).toContain('on Linux runners only.');
  });
});
