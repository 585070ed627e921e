/**
 * A Claude Code home with every case a scan must survive (issue: "bad input gets a clear
 * message and loses nothing"), in English and Chinese. Built on the real file system in a
 * temporary directory, because half of the cases (permissions, links, a 50 MB file, invalid
 * bytes) cannot live in git.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { sanitizeDirName } from '../../../shared/sanitize.js';

export const canChangePermissions = process.getuid?.() !== 0 && process.platform !== 'win32';

const topic = (name: string, description: string, type: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;

function transcriptLine(sessionId: string, cwd: string, uuid: string, text: string): string {
  return JSON.stringify({
    type: 'user',
    uuid,
    parentUuid: null,
    sessionId,
    timestamp: '2026-03-01T10:00:00Z',
    cwd,
    isSidechain: false,
    message: { role: 'user', content: text },
  });
}

async function write(file: string, content: string | Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
}

export interface FixtureHome {
  home: string;
  /** Real paths recorded in the transcripts' `cwd`. */
  shopPath: string;
  zhPath: string;
}

export async function buildFixtureHome(root: string): Promise<FixtureHome> {
  const home = path.join(root, 'claude-home');
  const shopPath = '/work/shop';
  const zhPath = '/work/中文项目';
  const projects = path.join(home, 'projects');

  // 1. English project with every health problem and every unreadable file.
  const shop = path.join(projects, '-work-shop');
  const mem = path.join(shop, 'memory');
  await write(path.join(shop, 'session-1.jsonl'), `${transcriptLine('session-1', shopPath, 'u1', 'hello')}\n{"type":"assistant","broken`);
  await write(
    path.join(mem, 'MEMORY.md'),
    [
      '# Memory index',
      '- [User role](user_role.md) — senior backend engineer',
      '- [CI](project_ci.md) — CI has no Python 3.8',
      '- [No ORM](feedback_sql.md) — write SQL by hand',
      '- [Gone](feedback_gone.md) — this file was deleted',
      '- [CI again](project_ci.md) — duplicate pointer',
      '- [Broken link](feedback_broken.md',
      '- [Bad yaml](bad_yaml.md) — unparsable frontmatter',
      '- [Escape](../../secrets.md) — points outside',
      '',
    ].join('\n'),
  );
  await write(
    path.join(mem, 'user_role.md'),
    topic('User role', 'Senior backend engineer, prefers functional style', 'user', 'Explain frontend with backend analogies.'),
  );
  await write(
    path.join(mem, 'project_ci.md'),
    '---\nname: CI\ndescription: CI has no Python 3.8\nmetadata:\n  type: project\n  originSessionId: session-1\n---\n\nCI images dropped 3.8 on 2026-02-01.\n',
  );
  await write(
    path.join(mem, 'feedback_sql.md'),
    '\uFEFF---\r\nname: No ORM\r\ndescription: Write SQL by hand, never an ORM\r\ntype: feedback\r\n---\r\n\r\nThe team removed the ORM after an outage.\r\n',
  );
  await write(path.join(mem, 'reference_dash.md'), topic('Dashboard', 'Grafana board for checkout latency', 'reference', 'https://grafana.example/d/checkout'));
  await write(path.join(mem, 'bad_yaml.md'), '---\nname: "unterminated\ndescription: x\n---\nbody\n');
  await write(path.join(mem, 'no_frontmatter.md'), 'Just some notes without frontmatter.\n');
  await write(path.join(mem, 'invalid_type.md'), topic('Opinion', 'An opinion', 'opinion', 'Tabs are better.'));
  await write(path.join(mem, 'empty.md'), '');
  await write(path.join(mem, 'latin1.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await write(path.join(mem, 'binary.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]));
  // 50 MB without writing 50 MB: a sparse file is still "too large" to read.
  const huge = await fs.open(path.join(mem, 'huge.md'), 'w');
  await huge.truncate(50 * 1024 * 1024);
  await huge.close();
  await fs.mkdir(path.join(mem, 'folder.md'));
  await write(path.join(mem, 'locked.md'), topic('Locked', 'Unreadable file', 'user', 'secret'));
  if (canChangePermissions) await fs.chmod(path.join(mem, 'locked.md'), 0o000);
  await fs.symlink('loop_b.md', path.join(mem, 'loop_a.md'));
  await fs.symlink('loop_a.md', path.join(mem, 'loop_b.md'));
  await write(path.join(root, 'outside', 'secrets.md'), topic('Secret', 'outside the memory dir', 'user', 'ssh keys'));
  await fs.symlink(path.join(root, 'outside', 'secrets.md'), path.join(mem, 'escape_link.md'));
  await write(path.join(mem, '.consolidate-lock'), '12345');
  await write(path.join(mem, 'notes.txt'), 'not a memory');
  // Team memory with its own index.
  await write(path.join(mem, 'team', 'MEMORY.md'), '- [API migration](project_api.md) — v2 API cutover on 2026-04-01\n');
  await write(path.join(mem, 'team', 'project_api.md'), topic('API migration', 'v2 API cutover date and owners', 'project', 'Cutover 2026-04-01.'));
  await write(path.join(mem, 'team', 'reference_oncall.md'), topic('On-call board', 'Where the on-call rota lives', 'reference', 'https://oncall.example'));

  // 2. Chinese project, healthy.
  const zh = path.join(projects, sanitizeDirName(zhPath));
  await write(path.join(zh, 'session-zh.jsonl'), `${transcriptLine('session-zh', zhPath, 'z1', '你好')}\n`);
  await write(
    path.join(zh, 'memory', 'MEMORY.md'),
    '- [用户角色](user_role.md) — 高级后端工程师，偏好函数式编程\n- [代码审查偏好](feedback_review.md) — 不要自动提交，先让用户看 diff\n',
  );
  await write(path.join(zh, 'memory', 'user_role.md'), topic('用户角色', '高级后端工程师，偏好函数式编程', 'user', '用后端类比解释前端概念。'));
  await write(path.join(zh, 'memory', 'feedback_review.md'), topic('代码审查偏好', '不要自动提交，先让用户看 diff', 'feedback', '用户希望先审查再提交。'));

  // 3. An index over its 200-line limit.
  const big = path.join(projects, '-work-big', 'memory');
  const lines: string[] = [];
  for (let i = 0; i < 230; i++) {
    lines.push(`- [Memory ${i}](project_m${i}.md) — hook ${i}`);
    await write(path.join(big, `project_m${i}.md`), topic(`Memory ${i}`, `Fact number ${i}`, 'project', `Fact ${i}.`));
  }
  await write(path.join(big, 'MEMORY.md'), `${lines.join('\n')}\n`);

  // 4. Memories but no MEMORY.md; 5. transcripts but no memory at all.
  await write(path.join(projects, '-work-noindex', 'memory', 'feedback_tabs.md'), topic('Tabs', 'Indent with tabs', 'feedback', 'The user asked for tabs.'));
  await write(path.join(projects, '-work-nomem', 'session-x.jsonl'), `${transcriptLine('session-x', '/work/nomem', 'x1', 'hi')}\n`);
  // A stray file in projects/ is not a project.
  await write(path.join(projects, 'README.txt'), 'not a project');
  return { home, shopPath, zhPath };
}
