/**
 * One memory directory and one two-query session, run through the real Claude Code (to capture
 * its recall requests: capture-claude-code-recall.ts) and through Memdir's Claude Code mode (to
 * compare). Mtimes are whole seconds and all different, so the manifest's order and ISO times do
 * not depend on the file system. It covers: subfolders (two levels), a file with no type, one
 * with no description, one without frontmatter, a wrong-case type, a nested `metadata.type`,
 * frontmatter past line 30, a team file (and a deeper team file, never offered), a `MEMORY.md`
 * in a subfolder, a `.txt`, a dot folder, a `sessions/` folder, a value needing the YAML
 * quoting retry, CRLF with a BOM, a `---` inside a value, a folded description, a symlinked
 * file and a symlink back to a folder already listed — and 230 older files, so the 200-newest
 * cap leaves some out.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** 2026-01-01T12:00:00Z, in seconds. */
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0) / 1000;

/** A topic file of the scenario: relative path, content, age in seconds before T0. */
export const SCENARIO_FILES: readonly { file: string; text: string; age: number }[] = [
  {
    file: 'feedback_sql.md',
    text: '---\nname: No ORM\ndescription: Write SQL by hand; the team removed Prisma\ntype: feedback\n---\n\nA generated query locked the orders table.\n',
    age: 600,
  },
  {
    file: 'retros/2026-q1.md',
    text: '---\nname: Q1 retro\ndescription: What went wrong with the database migration in Q1\ntype: project\n---\nbody\n',
    age: 540,
  },
  { file: 'retros/deep/inner.md', text: '---\nname: Inner\ndescription: nested two levels\ntype: reference\n---\n', age: 480 },
  { file: 'untyped.md', text: '---\nname: Untyped\ndescription: has a description but no type\n---\n', age: 420 },
  { file: 'nodesc.md', text: '---\nname: No description\ntype: user\n---\n# Heading line\nFirst body line here\n', age: 360 },
  { file: 'nofm.md', text: '# Just a heading\n\nPlain body without frontmatter.\n', age: 300 },
  { file: 'badtype.md', text: '---\nname: Bad type\ndescription: type is Feedback with a capital\ntype: Feedback\n---\n', age: 240 },
  { file: 'nested.md', text: '---\nname: Nested\ndescription: flat description, nested type\nmetadata:\n  type: reference\n---\n', age: 180 },
  {
    file: 'late.md',
    text: `---\nname: Late\n${Array.from({ length: 30 }, (_, i) => `k${i}: v`).join('\n')}\ndescription: after line 30\ntype: user\n---\n`,
    age: 120,
  },
  { file: 'team/shared.md', text: '---\nname: Team\ndescription: a team memory\ntype: project\n---\n', age: 60 },
  { file: 'team/sub/deeper.md', text: '---\nname: Deeper\ndescription: never offered\ntype: project\n---\n', age: 59 },
  { file: 'retros/MEMORY.md', text: '- [x](x.md) — a sub index\n', age: 58 },
  { file: 'notes.txt', text: 'not markdown\n', age: 57 },
  { file: '.drafts/draft.md', text: '---\nname: Draft\ndescription: in a dot folder\ntype: user\n---\n', age: 56 },
  { file: 'sessions/s.md', text: '---\nname: S\ndescription: in sessions/\ntype: user\n---\n', age: 55 },
  { file: 'colon.md', text: '---\nname: Colon\ndescription: use case: foo bar\ntype: feedback\n---\n', age: 30 },
  { file: 'crlf.md', text: '\uFEFF---\r\nname: CRLF\r\ndescription: CRLF with a BOM\r\ntype: user\r\n---\r\nbody\r\n', age: 25 },
  { file: 'dashes.md', text: '---\nname: Dashes\ndescription: before---after\ntype: project\n---\n', age: 20 },
  { file: 'folded.md', text: '---\nname: Folded\ndescription: >\n  folded line one\n  line two\ntype: reference\n---\n', age: 15 },
  {
    file: 'project_old_decision.md',
    text: '---\nname: Old decision\ndescription: We chose Postgres over MySQL in 2024\ntype: project\n---\n',
    age: 40 * 86_400,
  },
  ...Array.from({ length: 230 }, (_, i) => ({
    file: `bulk/m${String(i).padStart(3, '0')}.md`,
    text: `---\nname: Bulk ${i}\ndescription: bulk memory number ${i}\ntype: reference\n---\n`,
    age: 3_600 + i * 60,
  })),
];

/** Symlinks of the scenario: `alias.md` → feedback_sql.md, `again` → retros/ (already listed: not followed). */
export const SCENARIO_LINKS: readonly { link: string; target: string }[] = [
  { link: 'alias.md', target: 'feedback_sql.md' },
  { link: 'again', target: 'retros' },
];

/** The session's prompts, with the answer the scripted model gives to each. */
export const SCENARIO_QUERIES: readonly { query: string; answer: string }[] = [
  {
    query: 'please fix the database migration that broke in Q1',
    answer: JSON.stringify({ selected_memories: ['feedback_sql.md', 'retros/2026-q1.md', 'nope.md', '[project] retros/deep/inner.md'] }),
  },
  { query: 'now write SQL for the orders report please', answer: JSON.stringify({ selected_memories: ['feedback_sql.md', 'untyped.md'] }) },
];

/** What Claude Code loads for each prompt of the session (seen in its transcript). */
export const SCENARIO_LOADED: readonly (readonly string[])[] = [['feedback_sql.md', 'retros/2026-q1.md', 'retros/deep/inner.md'], ['untyped.md']];

/** Write the scenario into `memoryDir` (created), with an index. */
export async function writeRecallScenario(memoryDir: string): Promise<void> {
  for (const { file, text, age } of SCENARIO_FILES) {
    const abs = path.join(memoryDir, file);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, text);
    await fs.utimes(abs, T0 - age, T0 - age);
  }
  for (const { link, target } of SCENARIO_LINKS) await fs.symlink(target, path.join(memoryDir, link));
  await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [No ORM](feedback_sql.md) — write SQL by hand\n');
}
