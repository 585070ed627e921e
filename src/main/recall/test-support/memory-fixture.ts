/**
 * A small real memory directory for recall tests: English and Chinese memories of all four
 * types, a MEMORY.md index, one memory with an empty description, and bodies carrying a marker
 * (`BODY-SECRET`) that must never reach a model request.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { RecallCandidate } from '../find-relevant-memories.js';

export const BODY_MARKER = 'BODY-SECRET';

export const FIXTURE_MEMORIES: (RecallCandidate & { body: string })[] = [
  {
    file: 'user_role.md',
    type: 'user',
    name: 'User role',
    description: 'Senior backend engineer, ten years of Go, new to React',
    body: 'Explain frontend with backend analogies.',
  },
  { file: 'user_language.md', type: 'user', name: '沟通语言', description: '用户希望用中文回答，代码注释保持英文', body: '代码和注释用英文。' },
  {
    file: 'feedback_no_orm.md',
    type: 'feedback',
    name: 'No ORM',
    description: 'Write SQL by hand; the team removed Prisma after an outage',
    body: 'A generated query locked the orders table.',
  },
  {
    file: 'feedback_tests_real_db.md',
    type: 'feedback',
    name: '测试用真实数据库',
    description: '集成测试必须连真实的 Postgres，不要用 mock',
    body: 'mock 掩盖了迁移错误。',
  },
  {
    file: 'project_release_freeze.md',
    type: 'project',
    name: '发版冻结',
    description: '双十一前两周代码冻结，只允许修复线上故障',
    body: '冻结期间合并需要批准。',
  },
  {
    file: 'project_ci_python.md',
    type: 'project',
    name: 'CI Python versions',
    description: 'CI runners dropped Python 3.8; the matrix is 3.10–3.12',
    body: 'Images were removed in February.',
  },
  {
    file: 'reference_grafana.md',
    type: 'reference',
    name: 'Latency dashboard',
    description: "Grafana board 'Checkout latency' shows p95 per endpoint",
    body: 'https://grafana.internal/d/checkout',
  },
  {
    file: 'reference_runbook.md',
    type: 'reference',
    name: '值班手册',
    description: '值班手册在 Confluence 的 SRE 空间，包含告警处理步骤',
    body: 'https://confluence.internal/sre',
  },
  { file: 'project_misc.md', type: 'project', name: 'Misc notes', description: '', body: 'Loose notes.' },
];

const topic = (m: (typeof FIXTURE_MEMORIES)[number]) =>
  `---\nname: ${JSON.stringify(m.name)}\ndescription: ${JSON.stringify(m.description)}\ntype: ${m.type}\n---\n\n${m.body} ${BODY_MARKER}-${m.file}\n`;

/** Write the fixture into `memoryDir` (created), with an index listing every memory. */
export async function writeMemoryFixture(memoryDir: string, memories = FIXTURE_MEMORIES): Promise<void> {
  await fs.mkdir(memoryDir, { recursive: true });
  for (const m of memories) await fs.writeFile(path.join(memoryDir, m.file), topic(m));
  const index = memories.map((m) => `- [${m.name}](${m.file}) — ${m.description || 'notes'}`).join('\n');
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), `${index}\n`);
}
