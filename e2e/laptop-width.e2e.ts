/**
 * The main views at a laptop's 1024×700 (session 39, GUI review), in real Chromium against the
 * real headless host and a real sync server: nothing a user reads or presses is past the right
 * edge, cut, or behind a scroll they cannot see. The dashboard's Team and Dream columns sat past
 * the right edge: a long project path, one unbreakable word, made the table wider than the page.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractionStore } from '../src/main/extract/index.js';
import { scanText } from '../src/main/secrets/index.js';
import { SessionMemory } from '../src/main/session/index.js';
import { AlertCenter } from '../src/main/team/index.js';
import { sanitizeDirName } from '../src/shared/sanitize.js';
import { TranscriptBuilder } from '../src/main/transcripts/test-support/transcript-builder.js';
import { type ServerProcess, startServerProcess } from '../src/server/test-support/server-process.js';
import { axeFindings } from './support/axe.js';
import { HAS_BROWSER, MISSING_BROWSER, launchBrowser, requireBrowser } from './support/browser.js';
import { type Host, artifact, startHost } from './support/host.js';

requireBrowser();

const MEMDIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../out/cli/memdir.js');
const run = promisify(execFile);
const topic = (name: string, type: string, body = 'Body.') =>
  `---\nname: ${name}\ndescription: ${name}, in a few more words than the name\ntype: ${type}\n---\n\n${body}\n`;
// Project folders as Claude Code names them from real checkouts (the GUI review's home): long
// words that do not break at a hyphen ("owner__repo").
const LONG = '-work-benzabonanza__QuantumFurnace.jl';
const LONGER = '-work-PinKushin__Tf2DemoSalvage';
const SHORT = '-work-albert821107__life_manage';
// Words as users write them (s43, the views checked at 320 px): a long Chinese name and description, URLs.
const CJK_FILE = 'project_结账服务部署到共享预发布集群及其回滚计划.md';
const CJK_NAME = '结账服务部署到共享预发布集群的完整流程与回滚计划说明文档';
const URL = 'https://wiki.example.com/engineering/platform/payments/checkout-service/deploys/staging-cluster-rollback-plan-2026';
const GONE_FILE = 'reference_the_old_staging_cluster_dashboard_which_no_longer_exists_anywhere.md';
const TEAM_FILE = 'project_deploys_to_the_shared_staging_cluster_of_the_checkout_service_and_its_rollback_plan.md';
// s44: the rows of Live sessions, the extraction log, Review and a dream's files changed, in the same words.
const CJK_CWD = '/work/结账服务部署到共享预发布集群/checkout-service-deploys-to-the-shared-staging-cluster-and-its-rollback-plan';
const SESSION = '7f3c9a2e-5b1d-4e8f-9a6c-2d4b8e1f0a37';
const SESSION_TWO = 'c41d07b9-2e6a-4f3b-8d15-9b0e7a6c3f28';
const TWIN = (n: number) => `project_staging_cluster_rollback_plan_for_the_checkout_service_copy_${n}.md`;

/** Each element of `selector` that ends past the visible edge of the page's scroll box, or is cut, and whether the page scrolls sideways. */
async function outside(page: Page, selector: string): Promise<string[]> {
  return page.locator('.content').evaluate((content, sel) => {
    const out: string[] = [];
    const edge = content.getBoundingClientRect().left + content.clientWidth;
    for (const el of content.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const what = `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
      if (r.right > edge + 0.5) out.push(`${what} ends at ${Math.round(r.right)} px, past the visible edge at ${Math.round(edge)} px`);
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${what} is cut: ${el.scrollWidth} px of text in ${el.clientWidth} px`);
    }
    if (content.scrollWidth > content.clientWidth + 1) out.push(`the page scrolls sideways: ${content.scrollWidth} px in ${content.clientWidth} px`);
    return out;
  }, selector);
}

/** Each element drawn past the window's right edge (not inside a box that scrolls sideways on purpose), and whether the page scrolls sideways. */
async function sideways(page: Page): Promise<string[]> {
  return page.locator('body').evaluate((body) => {
    const doc = body.ownerDocument;
    const out: string[] = [];
    const edge = doc.documentElement.clientWidth;
    for (const el of body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.right <= edge + 0.5) continue;
      let box = el.parentElement;
      // The view's own scroll box (main) is the page: what it scrolls to is past the edge.
      const page = (b: typeof box) => !b || b === body || b.matches('main.content');
      while (!page(box) && !['auto', 'scroll', 'hidden', 'clip'].includes(doc.defaultView!.getComputedStyle(box!).overflowX)) box = box!.parentElement;
      if (!page(box) && box!.getBoundingClientRect().right <= edge + 0.5) continue;
      out.push(
        `${el.tagName.toLowerCase()}.${el.getAttribute('class')} "${(el.textContent ?? '').trim().slice(0, 40)}" ends at ${Math.round(r.right)} px, past the window's ${edge} px`,
      );
    }
    for (const box of [doc.scrollingElement!, doc.querySelector('.content')!]) {
      if (box.scrollWidth > box.clientWidth + 1) out.push(`${box.tagName.toLowerCase()} scrolls sideways: ${box.scrollWidth} px in ${box.clientWidth} px`);
    }
    return out;
  });
}

/** Review with its pending proposal shown and its extraction log opened. */
async function openLog(p: Page): Promise<void> {
  await p.getByRole('heading', { name: /Review/, level: 1 }).waitFor({ timeout: 20_000 });
  await p.getByText(CJK_NAME).first().waitFor({ timeout: 20_000 });
  await p.getByRole('button', { name: /Extraction log/ }).click();
  await p.getByRole('table', { name: 'Extraction log' }).getByRole('row').nth(2).waitFor();
}

/** The Team tab with its movable memories opened. */
async function openMovable(p: Page): Promise<void> {
  await p.getByRole('button', { name: /Move memories between private and team/ }).click({ timeout: 20_000 });
  await p.getByRole('table', { name: 'Movable memories' }).getByRole('row').nth(1).waitFor();
}

/** The Dream tab with its dream's files changed. */
async function openDream(p: Page): Promise<void> {
  await p.getByRole('list', { name: 'Dreams' }).getByRole('button').first().click({ timeout: 20_000 });
  await p.getByRole('table', { name: 'Files changed' }).getByRole('row').nth(1).waitFor({ timeout: 20_000 });
}

describe.skipIf(!HAS_BROWSER)(`the main views at a laptop's 1024 px${HAS_BROWSER ? '' : ` (skipped: ${MISSING_BROWSER})`}`, () => {
  let root: string;
  let home: string;
  let data: string;
  let server: ServerProcess;
  let host: Host;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const memoryOf = (dir: string) => path.join(home, 'projects', dir, 'memory');

  beforeAll(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-e2e-laptop-')));
    home = path.join(root, 'home');
    data = path.join(root, 'data');
    for (const dir of [LONG, LONGER, SHORT]) {
      const memory = memoryOf(dir);
      await fs.mkdir(path.join(memory, 'team'), { recursive: true });
      const files = ['user', 'feedback', 'project', 'reference'].map((t) => [`${t}_one.md`, topic(`A ${t} memory of ${dir.slice(-12)}`, t)] as const);
      for (const [f, text] of files) await fs.writeFile(path.join(memory, f), text);
      // The first one's index is past the cut (the Index column's widest state: meter, lines, "N cut").
      const extra = dir === LONG ? Array.from({ length: 230 }, (_, i) => `- [Note ${i}](note_${i}.md) — note ${i}\n`).join('') : '';
      await fs.writeFile(path.join(memory, 'MEMORY.md'), files.map(([f]) => `- [${f}](${f}) — ${f}\n`).join('') + extra);
      if (dir === LONG) for (let i = 0; i < 230; i++) await fs.writeFile(path.join(memory, `note_${i}.md`), topic(`Note ${i}`, 'project'));
      // The same long-named team file in each, different in each: the second to connect keeps a conflict.
      await fs.writeFile(path.join(memory, 'team', TEAM_FILE), topic(`Deploys of ${dir.slice(-12)}`, 'project', 'No deploys on Fridays.'));
      await fs.writeFile(path.join(memory, 'team', 'MEMORY.md'), `- [Deploys](${TEAM_FILE}) — when we ship\n`);
    }
    // The second one's index: a long Chinese memory with URLs, and a line to a file that is gone (Health's widest row).
    await fs.writeFile(
      path.join(memoryOf(LONGER), CJK_FILE),
      `---\nname: ${CJK_NAME}\ndescription: ${'每次部署前先在预发布集群验证，再按回滚计划逐步发布；'.repeat(4)}详见 ${URL}\ntype: project\n---\n\n参见 ${URL}/${'a'.repeat(60)}\n`,
    );
    await fs.appendFile(
      path.join(memoryOf(LONGER), 'MEMORY.md'),
      `- [${CJK_NAME}](${CJK_FILE}) — 每次部署前先在预发布集群验证 ${URL}\n- [旧的预发布集群仪表板](${GONE_FILE}) — ${URL}\n`,
    );
    // An agent with a memory (the Agents view), its name and memory in long words too.
    await fs.mkdir(path.join(home, 'agents'), { recursive: true });
    await fs.writeFile(
      path.join(home, 'agents', 'checkout-service-deploy-reviewer.md'),
      `---\nname: checkout-service-deploy-reviewer\nmemory: user\ndescription: 审查结账服务的每一次部署与回滚计划 ${URL}\n---\nYou review deploys.\n`,
    );
    const agentMemory = path.join(home, 'agent-memory', 'checkout-service-deploy-reviewer');
    await fs.mkdir(agentMemory, { recursive: true });
    await fs.writeFile(path.join(agentMemory, CJK_FILE), topic(CJK_NAME, 'feedback', `参见 ${URL}`));
    await fs.writeFile(path.join(agentMemory, 'MEMORY.md'), `- [${CJK_NAME}](${CJK_FILE}) — ${URL}\n`);
    // Two of the three share their team memory through a real sync server (the Team column's states).
    const db = path.join(root, 'server', 'team-sync.sqlite');
    server = await startServerProcess([MEMDIR], db, { rate: 1000, timeoutMs: 20_000 });
    await run(process.execPath, [MEMDIR, 'server', 'admin', 'create-team', 'platform-payments-and-checkout', '--db', db]);
    const { stdout } = await run(process.execPath, [
      MEMDIR,
      'server',
      'admin',
      'issue-token',
      'platform-payments-and-checkout',
      '--member',
      'annika',
      '--db',
      db,
      '--json',
    ]);
    const token = (JSON.parse(stdout) as { token: string }).token;
    for (const dir of [LONG, LONGER]) {
      await run(
        process.execPath,
        [
          MEMDIR,
          'team',
          'connect',
          '--project',
          dir,
          '--home',
          home,
          '--server',
          server.url,
          '--team',
          'platform-payments-and-checkout',
          '--token',
          token,
          '--json',
        ],
        { env: { ...process.env, MEMDIR_DATA_DIR: data } },
      ).catch((e: { code?: number }) => {
        if (e.code !== 1) throw e;
      });
    }
    // An open alert on the long-named team file (the Alerts view's widest row): a real scan's finding.
    const ghToken = ['ghp_', 'Vb3Nq8Wx', 'Kd2Lr7Tz', 'Pm5Hc9Ys', 'Fj4Ga1Ue', 'o6Ri'].join('');
    const secretText = topic('Deploy bot', 'project', `The deploy bot's token: ${ghToken}`);
    await fs.writeFile(path.join(memoryOf(SHORT), 'team', TEAM_FILE), secretText);
    await new AlertCenter(data).raise({
      topic: `secret:${memoryOf(SHORT)}:team/${TEAM_FILE}`,
      kind: 'secret',
      title: `A secret kept team/${TEAM_FILE} from being shared`,
      message: 'Take it out of the file, or allow it if it is safe to share.',
      dir: SHORT,
      memoryDir: memoryOf(SHORT),
      file: `team/${TEAM_FILE}`,
      findings: await scanText(secretText, { file: `team/${TEAM_FILE}`, name: `team/${TEAM_FILE}` }),
    });
    // The third one dreams (offline rules, before the app starts): two copies of one memory under long names are
    // merged and a pointer to a file that is gone is dropped (Dream's "Files changed").
    for (const n of [1, 2]) await fs.writeFile(path.join(memoryOf(SHORT), TWIN(n)), topic(CJK_NAME, 'project', `参见 ${URL}`));
    await fs.appendFile(
      path.join(memoryOf(SHORT), 'MEMORY.md'),
      `${[1, 2].map((n) => `- [${CJK_NAME}](${TWIN(n)}) — ${URL}\n`).join('')}- [旧的预发布集群仪表板](${GONE_FILE}) — ${URL}\n`,
    );
    await run(process.execPath, [MEMDIR, 'dream', '--project', SHORT, '--home', home, '--offline', '--force', '--allow-deletes', '--json'], {
      env: { ...process.env, MEMDIR_DATA_DIR: data },
    });
    // A live session started in a folder with a long Chinese name (Live sessions' row; a fourth project, its
    // folder named by Claude Code's rule), seen an hour ago: the app follows it without taking its turns for new ones.
    const transcriptOf = (id: string) => path.join(home, 'projects', sanitizeDirName(CJK_CWD), `${id}.jsonl`);
    const transcript = transcriptOf(SESSION);
    await fs.mkdir(path.dirname(transcript), { recursive: true });
    // Two of them: the second is chosen from the keyboard.
    for (const id of [SESSION, SESSION_TWO]) {
      await fs.writeFile(
        transcriptOf(id),
        new TranscriptBuilder({ sessionId: id, cwd: CJK_CWD }).prompt(`部署前先看 ${URL}`).assistant('好的。', { stopReason: 'end_turn' }).take(),
      );
      const anHourAgo = Date.now() / 1000 - 3600;
      await fs.utimes(transcriptOf(id), anHourAgo, anHourAgo);
      await new SessionMemory({ home, dataDir: data }).observe(transcriptOf(id));
    }
    // The extraction log and the review queue with rows: a turn whose operation was refused, a decision, a proposal.
    const store = new ExtractionStore(data);
    const operation = {
      action: 'create' as const,
      file: CJK_FILE,
      scope: 'private' as const,
      type: 'project' as const,
      name: CJK_NAME,
      description: `每次部署前先在预发布集群验证 ${URL}`,
      body: `参见 ${URL}/${'a'.repeat(60)}`,
      hook: null,
      reason: `The user said so (${URL})`,
    };
    await store.appendLog([
      {
        kind: 'turns',
        id: 'log-1',
        time: new Date().toISOString(),
        project: LONGER,
        transcriptPath: transcript,
        trigger: 'watcher',
        mode: 'review',
        outcome: {
          sessionId: SESSION,
          firstUuid: null,
          lastUuid: null,
          turns: 1,
          skipped: false,
          reason: null,
          message: `Checked against ${URL}`,
          method: 'model',
          operations: [{ operation, disposition: 'refused', reason: `${memoryOf(LONGER)}/${CJK_FILE} already says it`, warnings: [], proposalId: null }],
          model: null,
        },
      },
      {
        kind: 'decision',
        id: 'log-2',
        time: new Date().toISOString(),
        project: LONGER,
        proposalId: 'prop-s44-0a1a',
        decision: 'rejected',
        file: CJK_FILE,
        rev: null,
        reason: URL,
      },
    ]);
    await store.saveProposal({
      id: 'prop-s44-0a1b',
      kind: 'proposal',
      status: 'pending',
      createdAt: new Date().toISOString(),
      decidedAt: null,
      project: LONGER,
      memoryDir: memoryOf(LONGER),
      sessionId: SESSION,
      transcriptPath: transcript,
      turnUuid: null,
      operation: { ...operation, file: `project_${'结账服务回滚计划'.repeat(3)}.md` },
      evidence: `部署前先看 ${URL}`,
      warnings: [],
      edited: false,
      result: null,
      rejectReason: null,
    });
    host = await startHost(['--home', home, '--port', '0', '--data-dir', data]);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.on('pageerror', (e) => errors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await server?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  it('the dashboard shows every column, each project whole, at 1024 px and at 1360 px', async () => {
    for (const width of [1024, 1360]) {
      await page.setViewportSize({ width, height: 700 });
      await page.goto(host.url);
      const table = page.getByRole('table', { name: 'Projects' });
      await table.getByText('synced', { exact: true }).first().waitFor({ timeout: 20_000 });
      await table.getByText('local only').waitFor();
      await table.scrollIntoViewIfNeeded();
      await page.screenshot({ path: artifact(`laptop-dashboard-${width}.png`) });
      const grid = 'table[aria-label="Projects"]';
      expect(await outside(page, `${grid} th, ${grid} tr > td:last-child, ${grid} td button`), `at ${width} px`).toEqual([]);
      // Each project's name is there to read whole, wrapped only where it reads on ("-work-" /
      // "benzabonanza__" / "QuantumFurnace.jl"), never inside one of those parts.
      for (const dir of [LONG, LONGER, SHORT]) {
        const name = table.getByRole('button', { name: dir, exact: true });
        expect(await name.isVisible()).toBe(true);
        const split = await name.evaluate((b) =>
          [...b.childNodes]
            .filter((n) => n.nodeType === 3)
            .filter((n) => {
              const range = b.ownerDocument.createRange();
              range.selectNodeContents(n);
              return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
            })
            .map((n) => n.textContent),
        );
        expect(split, `${dir} at ${width} px: parts broken across lines`).toEqual([]);
      }
    }
    expect(errors).toEqual([]);
  });

  it("at 200 % zoom (a 1024 px window's 512 CSS px): the Team sync tab's rows and the project's name are whole", async () => {
    // Zoom in Chromium is a narrower CSS viewport drawn at twice the pixels: the page a user at 200 % reads.
    const zoomed = await browser.newPage({ viewport: { width: 512, height: 350 }, deviceScaleFactor: 2 });
    zoomed.on('pageerror', (e) => errors.push(e.message));
    try {
      await zoomed.goto(`${host.url}#/p/${LONGER}/team`);
      await zoomed.getByRole('region', { name: 'Sync state' }).waitFor({ timeout: 20_000 });
      await zoomed.screenshot({ path: artifact('zoom200-team.png') });
      expect(await outside(zoomed, '.view-head h1, .team-sync button, .team-sync td, .team-sync code, .team-sync [role="region"] *')).toEqual([]);
    } finally {
      await zoomed.close();
    }
    expect(errors).toEqual([]);
  });

  // 200 % zoom on a 1280 px window is 640 CSS px; 320 is WCAG 1.4.10's reflow width (s41 left the dashboard
  // scrolling sideways: the sidebar kept its 210 px and the Projects table needed 675 px).
  it('at 200 % zoom (640 CSS px) and at 320 px: the dashboard, a project, its History and Alerts do not scroll sideways', async () => {
    const views: [string, string, (p: Page) => Promise<unknown>][] = [
      ['dashboard', '', (p) => p.getByRole('table', { name: 'Projects' }).getByText('synced', { exact: true }).first().waitFor({ timeout: 20_000 })],
      ['project', `#/p/${LONG}/memories`, (p) => p.getByRole('listbox', { name: 'Memories' }).getByRole('option').first().waitFor({ timeout: 20_000 })],
      ['history', `#/p/${LONG}/history`, (p) => p.getByRole('region', { name: 'Timeline' }).waitFor({ timeout: 20_000 })],
      ['alerts', '#/alerts', (p) => p.getByRole('listitem').filter({ hasText: TEAM_FILE }).first().waitFor({ timeout: 20_000 })],
    ];
    for (const width of [640, 320]) {
      const zoomed = await browser.newPage({ viewport: { width, height: 480 }, deviceScaleFactor: 2 });
      zoomed.on('pageerror', (e) => errors.push(e.message));
      try {
        for (const [name, hash, ready] of views) {
          await zoomed.goto(`${host.url}${hash}`);
          await ready(zoomed);
          await zoomed.screenshot({ path: artifact(`zoom-${name}-${width}.png`), fullPage: true });
          expect.soft(await sideways(zoomed), `${name} at ${width} px`).toEqual([]);
        }
        // The dashboard: each project stays one row of seven cells under the seven column headers (a card to the
        // eye, a table row to a screen reader), every sort button and every project's button still there.
        await zoomed.goto(host.url);
        const table = zoomed.getByRole('table', { name: 'Projects' });
        await table.getByText('synced', { exact: true }).first().waitFor({ timeout: 20_000 });
        await table.scrollIntoViewIfNeeded();
        await zoomed.screenshot({ path: artifact(`zoom-projects-table-${width}.png`) });
        expect(await table.getByRole('columnheader').count()).toBe(7);
        // Four projects (the three and the live session's) and the header row.
        expect(await table.getByRole('row').count()).toBe(5);
        for (const dir of [LONG, LONGER, SHORT]) {
          const row = table.getByRole('row').filter({ has: zoomed.getByRole('button', { name: dir, exact: true }) });
          expect(await row.getByRole('cell').count(), dir).toBe(7);
          expect(await row.getByRole('button', { name: dir, exact: true }).isVisible()).toBe(true);
        }
        for (const sort of ['Project', 'Memories', 'Index', 'Problems', 'Changed']) {
          expect(await table.getByRole('button', { name: new RegExp(`^${sort}`) }).isVisible(), sort).toBe(true);
        }
        expect(await outside(zoomed, 'table[aria-label="Projects"] *:not(.no-sort)')).toEqual([]);
        // And in Chromium's own accessibility tree (what a screen reader gets), not only by the DOM's roles: a table
        // drawn with display: block / grid keeps its rows, cells and column headers.
        const cdp = await zoomed.context().newCDPSession(zoomed);
        const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { role?: { value?: string } }[] };
        const roles = nodes.map((n) => n.role?.value);
        expect(roles.filter((r) => r === 'columnheader').length).toBe(7);
        expect(roles.filter((r) => r === 'row').length).toBe(5);
        expect(roles.filter((r) => r === 'cell' || r === 'gridcell').length).toBe(28);
      } finally {
        await zoomed.close();
      }
    }
    expect(errors).toEqual([]);
  });

  // s42 stopped at the dashboard, a project, History and Alerts; the other views at WCAG 1.4.10's 320 px, with long
  // Chinese names, URLs and long descriptions: nothing past the right edge, every control in reach, axe clean light and dark.
  // s44: Review with a proposal and its extraction log open, Live sessions with a session, Team's movable memories
  // and a dream's files changed, each with real rows (s43 saw the first two empty only).
  it("at 320 px: Index, Health, Recall, Dream (a dream's files changed), Team (a conflict, a secret alert, the movable memories), Settings, Agents, Review (a proposal, the extraction log) and Live sessions do not scroll sideways; axe finds nothing", async () => {
    const heading = (name: string | RegExp) => (p: Page) => p.getByRole('heading', { name, level: 1 }).first().waitFor({ timeout: 20_000 });
    const views: [string, string, (p: Page) => Promise<unknown>][] = [
      ['index', `#/p/${LONGER}/index`, (p) => p.getByRole('list', { name: 'MEMORY.md lines' }).getByText(CJK_NAME).first().waitFor({ timeout: 20_000 })],
      ['health', `#/p/${LONGER}/health`, (p) => p.getByText(GONE_FILE).first().waitFor({ timeout: 20_000 })],
      ['recall', `#/p/${LONGER}/recall`, heading(LONGER)],
      ['dream', `#/p/${LONGER}/dream`, heading(LONGER)],
      ['team-conflict', `#/p/${LONGER}/team`, (p) => p.getByRole('table', { name: 'Conflicts to resolve' }).waitFor({ timeout: 20_000 })],
      ['team-secret', `#/p/${LONG}/team`, (p) => p.getByText('Files holding a secret are never uploaded').waitFor({ timeout: 30_000 })],
      ['settings', '#/settings', heading(/Settings/)],
      ['agents', '#/agents', (p) => p.getByText('checkout-service-deploy-reviewer').first().waitFor({ timeout: 20_000 })],
      ['review', '#/review', openLog],
      ['sessions', '#/sessions', (p) => p.getByRole('table', { name: 'Sessions' }).getByText(CJK_CWD).first().waitFor({ timeout: 20_000 })],
      ['team-move', `#/p/${LONGER}/team`, openMovable],
      ['dream-files', `#/p/${SHORT}/dream`, openDream],
    ];
    // A team file of the first one holds a secret: its Team tab says it waits (a real scan by the sync).
    const secret = ['ghp_', 'Qz7Wm2Lk', 'Xc4Vb8Nr', 'Ty1Hp5Sd', 'Gf3Ja6Ke', 'u9Mo'].join('');
    await fs.writeFile(path.join(memoryOf(LONG), 'team', 'reference_部署机器人令牌.md'), topic('部署机器人的令牌', 'reference', `Token: ${secret}`));
    const zoomed = await browser.newPage({ viewport: { width: 320, height: 480 }, deviceScaleFactor: 2 });
    zoomed.on('pageerror', (e) => errors.push(e.message));
    const found: string[] = [];
    try {
      for (const theme of ['light', 'dark'] as const) {
        await zoomed.emulateMedia({ colorScheme: theme });
        for (const [name, hash, ready] of views) {
          await zoomed.goto(`${host.url}${hash}`);
          await ready(zoomed);
          await zoomed.waitForTimeout(500);
          if (theme === 'light') {
            await zoomed.screenshot({ path: artifact(`zoom-${name}-320.png`), fullPage: true });
            expect.soft(await sideways(zoomed), `${name} at 320 px`).toEqual([]);
            // In reach: every control starts inside the window too (nothing pushed off the left), and the view
            // scrolls down to its last one.
            const unreachable = await zoomed.locator('main.content').evaluate((main) => {
              const out: string[] = [];
              for (const el of main.querySelectorAll('button, a[href], input, select, textarea, [role="textbox"], [tabindex="0"]')) {
                const r = el.getBoundingClientRect();
                if (r.width === 0 && r.height === 0) continue;
                if (r.left < -0.5) out.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}" starts at ${Math.round(r.left)} px`);
              }
              const style = main.ownerDocument.defaultView!.getComputedStyle(main);
              if (main.scrollHeight > main.clientHeight + 1 && !['auto', 'scroll'].includes(style.overflowY))
                out.push('main is taller than the window and does not scroll');
              return out;
            });
            expect.soft(unreachable, `${name} at 320 px`).toEqual([]);
          }
          found.push(...(await axeFindings(zoomed, `${theme} ${name} at 320 px`)));
        }
      }
    } finally {
      await zoomed.close();
    }
    expect(found).toEqual([]);
    expect(errors).toEqual([]);
  });

  // s43: at 320 px a table of five columns gave each column a few letters a line ("Needs" drawn N/e/e/d/s in
  // Dream's gates). Every data table of four columns or more is a card per row there, as the dashboard's Projects
  // (one shared rule, `.grid.cards`): no header or cell breaks inside a word of 12 letters or fewer, and each row
  // stays a row of cells under column headers in Chromium's own accessibility tree.
  // s44: Team's movable memories and a dream's files changed (four columns, no header row: words broke letter by
  // letter) are cards too, and each card's labels are its table's headers (s43 wrote them by hand, free to drift).
  it("at 320 px the tables of four columns or more (the dashboard's Projects, Dream gates and files changed, Agents, an alert's findings, Team's movable memories, Live sessions, the extraction log) break no short word, label each card with its headers and stay tables to a screen reader", async () => {
    const tables: [string, string, string, ((p: Page) => Promise<void>)?][] = [
      ['projects', '', 'Projects'],
      ['dream gates', `#/p/${LONGER}/dream`, 'Gates'],
      ['dream files changed', `#/p/${SHORT}/dream`, 'Files changed', openDream],
      ['agents', '#/agents', 'Agent memory'],
      ['alert findings', '#/alerts', `Findings in team/${TEAM_FILE}`],
      ['team movable', `#/p/${LONGER}/team`, 'Movable memories', openMovable],
      ['live sessions', '#/sessions', 'Sessions'],
      ['extraction log', '#/review', 'Extraction log', openLog],
    ];
    const zoomed = await browser.newPage({ viewport: { width: 320, height: 480 }, deviceScaleFactor: 2 });
    zoomed.on('pageerror', (e) => errors.push(e.message));
    try {
      for (const [name, hash, label, open] of tables) {
        await zoomed.goto(`${host.url}${hash}`);
        await open?.(zoomed);
        const table = zoomed.getByRole('table', { name: label });
        await table.getByRole('row').nth(1).waitFor({ timeout: 20_000 });
        await table.scrollIntoViewIfNeeded();
        await zoomed.screenshot({ path: artifact(`zoom-table-${name.replaceAll(' ', '-')}-320.png`), fullPage: true });
        // A word on several lines shows as client rects on several lines.
        const broken = await table.evaluate((el) => {
          const out: string[] = [];
          for (const cell of el.querySelectorAll('th, td')) {
            const walker = el.ownerDocument.createTreeWalker(cell, 4 /* NodeFilter.SHOW_TEXT */);
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
              for (const m of (n.textContent ?? '').matchAll(/[A-Za-z0-9]+/g)) {
                if (m[0].length > 12) continue;
                const range = el.ownerDocument.createRange();
                range.setStart(n, m.index);
                range.setEnd(n, m.index + m[0].length);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                if (lines.size > 1) out.push(`${cell.tagName.toLowerCase()} "${m[0]}" on ${lines.size} lines`);
              }
            }
          }
          return out;
        });
        expect.soft(broken, `${name} at 320 px`).toEqual([]);
        expect.soft(await sideways(zoomed), `${name} at 320 px`).toEqual([]);
        // Each card's labels are its table's column headers, cell by cell (a sort button's arrow aside); a card with no
        // label at all would be a table left out of the shared layout.
        const labels = await table.evaluate((el) => {
          const headers = [...el.querySelectorAll('thead th')].map((th) => (th.textContent ?? '').replace(/ [↑↓]$/, '').trim());
          const out: string[] = [];
          if (!el.matches('.grid.cards')) out.push('not drawn as cards');
          for (const tr of el.querySelectorAll('tbody tr')) {
            const cells = [...tr.querySelectorAll(':scope > td')];
            if (cells.length !== headers.length) out.push(`a row of ${cells.length} cells under ${headers.length} headers`);
            cells.forEach((td, i) => {
              const label = td.getAttribute('data-label');
              if (label !== null && label !== headers[i]) out.push(`"${label}" over a cell under "${headers[i]}"`);
            });
            if (!cells.some((td) => td.hasAttribute('data-label'))) out.push('a card without labels');
          }
          return out;
        });
        expect.soft(labels, `${name}: card labels against the headers`).toEqual([]);
        // As many rows, cells and column headers in the accessibility tree as the table has in its markup.
        const dom = await table.evaluate((el) => ({
          columnheader: el.querySelectorAll('th').length,
          row: el.querySelectorAll('tr').length,
          cell: el.querySelectorAll('td').length,
        }));
        const cdp = await zoomed.context().newCDPSession(zoomed);
        type AXNode = { nodeId: string; role?: { value?: string }; name?: { value?: string }; childIds?: string[] };
        const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AXNode[] };
        const byId = new Map(nodes.map((n) => [n.nodeId, n]));
        const top = nodes.find((n) => n.role?.value === 'table' && n.name?.value === label);
        const counts: Record<string, number> = { columnheader: 0, row: 0, cell: 0 };
        const walk = (n: AXNode | undefined) => {
          if (!n) return;
          const role = n.role?.value === 'gridcell' ? 'cell' : (n.role?.value ?? '');
          if (role in counts) counts[role] = (counts[role] ?? 0) + 1;
          for (const id of n.childIds ?? []) walk(byId.get(id));
        };
        walk(top);
        await cdp.detach();
        expect.soft(top, `${name}: a table named "${label}" in the accessibility tree`).toBeDefined();
        expect.soft(counts, `${name}: rows, cells and column headers in the accessibility tree`).toEqual(dom);
      }
    } finally {
      await zoomed.close();
    }
    expect(errors).toEqual([]);
  });

  // axe's scrollable-region-focusable: a view taller than the window with nothing focusable in it (Agents at user
  // level) could not be scrolled from the keyboard — main's tabIndex -1 (where a Menu choice puts the focus) also
  // took it out of the Tab order Chromium gives a scroller.
  it('at 320 px a view that scrolls with nothing focusable in it (Agents at user level) is reached by Tab and scrolls by keyboard', async () => {
    const short = await browser.newPage({ viewport: { width: 320, height: 260 }, deviceScaleFactor: 2 });
    short.on('pageerror', (e) => errors.push(e.message));
    try {
      await short.goto(`${host.url}#/agents`);
      await short.getByText('checkout-service-deploy-reviewer').first().waitFor({ timeout: 20_000 });
      const main = short.locator('main.content');
      const state = () =>
        main.evaluate((m) => ({
          scrolls: m.scrollHeight > m.clientHeight + 1,
          focusable: m.querySelectorAll('button, a[href], input, select, textarea, [tabindex="0"]').length,
        }));
      expect(await state()).toEqual({ scrolls: true, focusable: 0 });
      expect(await axeFindings(short, 'agents at 320×260')).toEqual([]);
      // Tab from the Menu button reaches the view, and the arrow keys scroll it.
      await short.getByRole('button', { name: 'Menu' }).focus();
      await short.keyboard.press('Tab');
      expect(await short.evaluate('document.activeElement.tagName')).toBe('MAIN');
      await short.keyboard.press('PageDown');
      await expect.poll(() => main.evaluate((m) => m.scrollTop)).toBeGreaterThan(0);
    } finally {
      await short.close();
    }
    expect(errors).toEqual([]);
  });

  // s44: a session was chosen by a click on its row only: from the keyboard the first one's note was all there was.
  it('at 320 px each live session is chosen from the keyboard', async () => {
    const zoomed = await browser.newPage({ viewport: { width: 320, height: 480 }, deviceScaleFactor: 2 });
    zoomed.on('pageerror', (e) => errors.push(e.message));
    try {
      await zoomed.goto(`${host.url}#/sessions`);
      const table = zoomed.getByRole('table', { name: 'Sessions' });
      await table.getByRole('row').nth(2).waitFor({ timeout: 20_000 });
      await zoomed.getByRole('button', { name: 'Menu' }).focus();
      const other = SESSION_TWO.slice(0, 8);
      let reached = false;
      for (let i = 0; i < 30 && !reached; i++) {
        await zoomed.keyboard.press('Tab');
        // A control of its own (main, a Tab stop while it scrolls, holds every session's text too).
        reached = (await zoomed.evaluate(`document.activeElement.tagName === 'BUTTON' && document.activeElement.textContent.includes('${other}')`)) as boolean;
      }
      expect(reached, `Tab reaches the session ${other}`).toBe(true);
      await zoomed.keyboard.press('Enter');
      await zoomed.getByRole('heading', { name: `Note of ${other}` }).waitFor();
    } finally {
      await zoomed.close();
    }
    expect(errors).toEqual([]);
  });

  // s44: whether main needs its Tab stop was checked again when nodes came or went or main's own box changed size,
  // not when only a text changed (React sets a text node's value when data arriving changes only the words): a view
  // that grew past the window that way stayed out of reach of the keyboard.
  it('at 320 px a view that grows past the window by a text change alone becomes a Tab stop', async () => {
    const tall = await browser.newPage({ viewport: { width: 320, height: 1600 }, deviceScaleFactor: 2 });
    tall.on('pageerror', (e) => errors.push(e.message));
    try {
      await tall.goto(`${host.url}#/agents`);
      await tall.getByText('checkout-service-deploy-reviewer').first().waitFor({ timeout: 20_000 });
      const main = tall.locator('main.content');
      const state = () => main.evaluate((m) => ({ scrolls: m.scrollHeight > m.clientHeight + 1, tabIndex: m.tabIndex }));
      await expect.poll(state).toEqual({ scrolls: false, tabIndex: -1 });
      // What React does to a text whose words changed: the same text node, a new value.
      await main.evaluate((m) => {
        const walker = m.ownerDocument.createTreeWalker(m.querySelector('tbody td') ?? m, 4 /* NodeFilter.SHOW_TEXT */);
        const text = walker.nextNode() as unknown as { data: string };
        text.data += '每次部署前先在预发布集群验证，再按回滚计划逐步发布。'.repeat(120);
      });
      await expect.poll(state).toEqual({ scrolls: true, tabIndex: 0 });
      expect(await axeFindings(tall, 'agents grown at 320 px')).toEqual([]);
    } finally {
      await tall.close();
    }
    expect(errors).toEqual([]);
  });

  it('in a narrow window the sidebar folds behind a Menu button: Enter opens it, Escape closes it, a chosen view takes the focus', async () => {
    const narrow = await browser.newPage({ viewport: { width: 640, height: 480 }, deviceScaleFactor: 2 });
    try {
      await narrow.goto(`${host.url}#/p/${SHORT}/memories`);
      await narrow.getByRole('listbox', { name: 'Memories' }).getByRole('option').first().waitFor({ timeout: 20_000 });
      const menu = narrow.getByRole('button', { name: 'Menu' });
      const nav = narrow.getByRole('navigation', { name: 'Main' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.isVisible()).toBe(false);
      await menu.focus();
      await narrow.keyboard.press('Enter');
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      // The focus goes to the view shown: the project's Memories tab.
      const focused = () => narrow.evaluate('document.activeElement.textContent + "|" + document.activeElement.getAttribute("aria-current")');
      expect(await focused()).toBe('Memories|page');
      await narrow.screenshot({ path: artifact('zoom-menu-640.png') });
      expect(await sideways(narrow)).toEqual([]);
      await narrow.keyboard.press('Escape');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.isVisible()).toBe(false);
      expect(await narrow.evaluate('document.activeElement.getAttribute("aria-controls")')).toBe('main-nav');
      // Opened again, every view is there: History chosen from the keyboard closes the menu and leaves the focus on the view.
      await narrow.keyboard.press('Enter');
      await nav.getByRole('button', { name: 'History' }).focus();
      await narrow.keyboard.press('Enter');
      await narrow.getByRole('region', { name: 'Timeline' }).waitFor({ timeout: 20_000 });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await narrow.evaluate('document.activeElement.tagName')).toBe('MAIN');
      // A wide window has no Menu button: the sidebar is always there.
      await narrow.setViewportSize({ width: 1024, height: 700 });
      expect(await menu.isVisible()).toBe(false);
      expect(await nav.isVisible()).toBe(true);
    } finally {
      await narrow.close();
    }
  });

  it('Team sync: a conflict on a file with a long name keeps its Resolve button in the window', async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.goto(`${host.url}#/p/${LONGER}/team`);
    const conflicts = page.getByRole('table', { name: 'Conflicts to resolve' });
    const resolve = conflicts.getByRole('button', { name: 'Resolve…' });
    await resolve.waitFor({ timeout: 20_000 });
    await conflicts.scrollIntoViewIfNeeded();
    await page.screenshot({ path: artifact('laptop-team-conflicts.png') });
    const table = 'table[aria-label="Conflicts to resolve"]';
    expect(await outside(page, `${table} td, ${table} button`)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a memory with a long file name: the editor shows the name whole, History's Restore is in reach", async () => {
    await page.setViewportSize({ width: 1024, height: 700 });
    const file = 'project_deploys_to_the_shared_staging_cluster_of_the_checkout_service.md';
    await page.goto(`${host.url}#/p/${SHORT}/history`);
    await page.getByRole('heading', { name: SHORT }).waitFor({ timeout: 20_000 });
    // Claude Code writes a memory with a long file name while the app is open.
    await fs.writeFile(path.join(memoryOf(SHORT), file), topic('Deploys to the shared staging cluster', 'project', 'No deploys on Fridays.'));
    const diff = page.getByRole('region', { name: `Changes to ${file}` });
    const restore = diff.getByRole('button', { name: 'Restore this version' });
    // The newest entry is the one that records it — once History has it: under load an older outside change may
    // still be the newest when the list first shows (the clean-clone CI opened that one and waited in vain).
    for (let tries = 0; ; tries++) {
      await page.getByText('Changes made outside Memdir').first().click({ timeout: 20_000 });
      if (
        await restore.waitFor({ timeout: 3_000 }).then(
          () => true,
          () => tries >= 8,
        )
      )
        break;
    }
    await restore.waitFor();
    await page.screenshot({ path: artifact('laptop-history.png') });
    const reach = await diff.evaluate((box) => {
      const edge = box.getBoundingClientRect().left + box.clientWidth;
      return [...box.querySelectorAll('header > *')].map((el) => ({
        text: (el.textContent ?? '').slice(0, 30),
        inReach: el.getBoundingClientRect().right <= edge + 0.5,
      }));
    });
    for (const r of reach) expect(r, `"${r.text}" of the diff's head is within the box, not behind its sideways scroll`).toMatchObject({ inReach: true });

    await page.goto(`${host.url}#/p/${SHORT}/memories/private/${file}`);
    const title = page.locator('.editor-head h2');
    await title.getByText(file).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: artifact('laptop-editor.png') });
    const head = await page.locator('.editor').evaluate((editor) => {
      const h2 = editor.querySelector('.editor-head h2')!;
      return {
        right: h2.getBoundingClientRect().right,
        edge: editor.getBoundingClientRect().left + editor.clientWidth,
        cut: h2.scrollWidth > h2.clientWidth + 1,
      };
    });
    expect(head.cut, 'the file name is cut').toBe(false);
    expect(head.right, "the file name ends inside the editor's box").toBeLessThanOrEqual(head.edge + 0.5);
    expect(await outside(page, '.editor-head h2, .editor-head button, .editor .problems li')).toEqual([]);
    expect(errors).toEqual([]);
  });
});
