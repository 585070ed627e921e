/**
 * The demo workspace: a small Claude Code home in Memdir's data dir, so a newcomer sees the app
 * working in one click — several projects, English and Chinese memories, transcripts, a team
 * directory, an index past its limit and a few health problems to fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sanitizeDirName } from '../../shared/sanitize.js';
import { recordSnapshot } from '../history/index.js';
import { writeFileAtomic } from '../core/safe-fs.js';

interface DemoMemory {
  file: string;
  name: string;
  description: string;
  type: 'user' | 'feedback' | 'project' | 'reference';
  body: string;
}

const topic = (m: DemoMemory) => `---\nname: ${m.name}\ndescription: ${m.description}\ntype: ${m.type}\n---\n\n${m.body.trim()}\n`;
const pointer = (m: DemoMemory) => `- [${m.name}](${m.file}) — ${m.description}`;

function transcript(sessionId: string, cwd: string, turns: [string, string][], start: Date): string {
  const lines: string[] = [];
  let parent: string | null = null;
  let t = start.getTime();
  turns.forEach(([user, assistant], i) => {
    const u = `${sessionId}-u${i}`;
    const a = `${sessionId}-a${i}`;
    lines.push(
      JSON.stringify({
        type: 'user',
        uuid: u,
        parentUuid: parent,
        sessionId,
        timestamp: new Date(t).toISOString(),
        cwd,
        gitBranch: 'main',
        version: '2.1.0',
        isSidechain: false,
        message: { role: 'user', content: user },
      }),
    );
    t += 20_000;
    lines.push(
      JSON.stringify({
        type: 'assistant',
        uuid: a,
        parentUuid: u,
        sessionId,
        timestamp: new Date(t).toISOString(),
        cwd,
        gitBranch: 'main',
        version: '2.1.0',
        isSidechain: false,
        message: {
          id: `msg_${a}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: assistant }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1200 + i * 900, output_tokens: 180, cache_read_input_tokens: 4000 * i, cache_creation_input_tokens: 0 },
        },
      }),
    );
    parent = a;
    t += 60_000;
  });
  return `${lines.join('\n')}\n`;
}

const CHECKOUT: DemoMemory[] = [
  {
    file: 'user_role.md',
    name: 'User role',
    description: 'Senior backend engineer; new to React, explain UI with backend analogies',
    type: 'user',
    body: 'Ten years of Go and Postgres. Prefers short answers with the command to run first.',
  },
  {
    file: 'feedback_sql.md',
    name: 'No ORM',
    description: 'We write SQL by hand; never introduce an ORM',
    type: 'feedback',
    body: 'The team removed the ORM after the 2025 checkout outage (N+1 queries under load).\n\n**Why:** query plans must be reviewable.\n**How to apply:** use the sqlc-generated helpers.',
  },
  {
    file: 'feedback_tests.md',
    name: 'Integration tests hit a real database',
    description: 'Do not mock the database in integration tests',
    type: 'feedback',
    body: 'Mocks hid a migration bug last quarter. Use the docker-compose Postgres.',
  },
  {
    file: 'project_freeze.md',
    name: 'Release freeze',
    description: 'Mobile release freeze starts 2026-03-05; no schema changes after it',
    type: 'project',
    body: 'Freeze agreed with the mobile team. Schema changes need sign-off until the 2026-03-20 release.',
  },
  {
    file: 'reference_grafana.md',
    name: 'Checkout dashboard',
    description: 'Grafana board for checkout latency and error rates',
    type: 'reference',
    body: 'https://grafana.example.com/d/checkout — p99 latency panel is the one on-call watches.',
  },
  // Dream-worthy (issue 6): a duplicate written in another session, and relative dates.
  {
    file: 'feedback_no_db_mocks.md',
    name: 'Integration tests hit a real database',
    description: 'Do not mock the database in integration tests',
    type: 'feedback',
    body: 'Mocks hid a migration bug last quarter. Use the docker-compose Postgres.',
  },
  {
    file: 'project_payment_incident.md',
    name: 'Payment retries incident',
    description: 'Payment retries doubled charges yesterday; the fix ships next Friday',
    type: 'project',
    body: 'Payment retries doubled some charges yesterday. The idempotency-key fix ships next Friday; until then retries are off.',
  },
];
const CHECKOUT_TEAM: DemoMemory[] = [
  {
    file: 'project_api_migration.md',
    name: 'API v2 cutover',
    description: 'v2 API cutover on 2026-04-01; v1 clients get 410 after that',
    type: 'project',
    body: 'Owners: payments team. Rollback plan in the runbook.',
  },
  {
    file: 'reference_oncall.md',
    name: 'On-call rota',
    description: 'Where the on-call rota and escalation policy live',
    type: 'reference',
    body: 'PagerDuty schedule "checkout-primary".',
  },
];
const MOBILE: DemoMemory[] = [
  {
    file: 'user_preferences.md',
    name: '用户偏好',
    description: '回答用中文，代码注释用英文',
    type: 'user',
    body: '用户是移动端负责人，习惯先看结论再看细节。',
  },
  {
    file: 'feedback_review.md',
    name: '代码审查偏好',
    description: '不要自动提交，先让用户看 diff',
    type: 'feedback',
    body: '用户希望每次提交前先审查改动。\n\n**Why:** 之前自动提交带进了调试代码。',
  },
  {
    file: 'project_release.md',
    name: '发布节奏',
    description: '每两周周四发布一次，发布前一天冻结',
    type: 'project',
    body: '下一次发布是 2026-03-12（周四）。',
  },
  {
    file: 'reference_design.md',
    name: '设计稿位置',
    description: 'Figma 设计稿和切图都在移动端团队空间',
    type: 'reference',
    body: 'Figma 团队空间“Mobile 2026”。',
  },
  {
    file: 'project_login_crash.md',
    name: '登录崩溃',
    description: '昨天发现登录崩溃，下周五发热修复',
    type: 'project',
    body: '昨天发现安卓登录页崩溃，下周五发热修复版本。',
  },
];

/** Create the demo home under `dir` (idempotent: an existing demo is left as it is). */
export async function createDemoHome(dir: string, dataDir: string): Promise<string> {
  const home = path.join(dir, 'claude-home');
  if (fs.existsSync(path.join(home, 'projects'))) return home;
  const now = new Date();
  const day = 86_400_000;
  const projects: {
    cwd: string;
    memories: DemoMemory[];
    index: string[];
    team?: DemoMemory[];
    extra?: (mem: string) => Promise<void>;
    sessions: [string, string][][];
  }[] = [
    {
      cwd: '/demo/checkout-service',
      memories: CHECKOUT,
      // A pointer to a memory that was deleted (dangling), and reference_grafana.md left out (orphan).
      index: [
        '# Memory index',
        ...CHECKOUT.filter((m) => m.file !== 'reference_grafana.md').map(pointer),
        '- [Old deploy notes](project_deploy_notes.md) — superseded deploy checklist',
      ],
      team: CHECKOUT_TEAM,
      sessions: [
        [
          ['The checkout tests are flaky again, can you look?', 'The flakiness comes from a shared fixture; I isolated it per test.'],
          ['Remember: we never mock the database in integration tests.', 'Noted — integration tests keep using the real Postgres container.'],
          [
            'Heads up: payment retries doubled some charges yesterday, and the idempotency-key fix ships next Friday.',
            'Understood — I will keep retries off until the fix ships.',
          ],
        ],
        [['Add p99 latency to the checkout dashboard README', 'Added the Grafana link and the panel name.']],
      ],
    },
    {
      cwd: '/demo/移动端应用',
      memories: MOBILE,
      // A repeated pointer (duplicate-pointer).
      index: [...MOBILE.map(pointer), pointer(MOBILE[1]!)],
      sessions: [
        [
          ['以后发布前一天都要冻结代码，记住这个。', '好的，我记下了：发布前一天冻结。'],
          ['昨天发现安卓登录页崩溃，下周五发热修复版本。', '收到，我会在热修复发布前留意登录相关的改动。'],
        ],
      ],
    },
    {
      cwd: '/demo/data-pipeline',
      memories: Array.from({ length: 215 }, (_, i) => ({
        file: `project_source_${i}.md`,
        name: `Source ${i}`,
        description: `Ingestion source ${i}: schedule, owner and quirks of this feed`,
        type: 'project' as const,
        body: `Feed ${i} arrives hourly; retries are safe.`,
      })),
      index: [],
      sessions: [[['Why is the index so long?', 'Every feed got its own memory; consider merging them.']]],
    },
    {
      cwd: '/demo/docs-site',
      memories: [
        {
          file: 'project_build.md',
          name: 'Docs build',
          description: 'How the docs build is wired',
          type: 'project',
          body: 'The build script:\n\n```js\nimport { build } from "vite";\nawait build({ root: "docs" });\nconsole.log("built");\nprocess.exit(0);\nexport {};\n```\n',
        },
      ],
      index: [],
      sessions: [],
    },
  ];
  for (const [i, p] of projects.entries()) {
    const projectDir = path.join(home, 'projects', sanitizeDirName(p.cwd));
    const memoryDir = path.join(projectDir, 'memory');
    fs.mkdirSync(memoryDir, { recursive: true });
    for (const m of p.memories) await writeFileAtomic(memoryDir, m.file, topic(m));
    const index = p.index.length > 0 ? p.index : p.cwd.endsWith('data-pipeline') ? p.memories.map(pointer) : [];
    if (index.length > 0) await writeFileAtomic(memoryDir, 'MEMORY.md', `${index.join('\n')}\n`);
    if (p.team) {
      for (const m of p.team) await writeFileAtomic(memoryDir, `team/${m.file}`, topic(m));
      await writeFileAtomic(memoryDir, 'team/MEMORY.md', `${p.team.map(pointer).join('\n')}\n`);
    }
    for (const [s, turns] of p.sessions.entries()) {
      // A session UUID, as Claude Code names transcripts (only those count as sessions, R-DREAM-GATE).
      const id = `de300000-0000-4000-8000-${(i * 1000 + s).toString(16).padStart(12, '0')}`;
      await writeFileAtomic(projectDir, `${id}.jsonl`, transcript(id, p.cwd, turns, new Date(now.getTime() - (s + 1) * day)));
    }
    await recordSnapshot(memoryDir, { source: 'demo', summary: 'Demo workspace created', dataDir });
  }
  return home;
}
