// What a scan says about the team folder: a "user" memory put there (R-TYPES: always private), and team memories
// pointed at from the main MEMORY.md rather than team/MEMORY.md (the agent reads both indexes).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanProject } from './scan-home.js';

let root: string;
let home: string;
let memoryDir: string;
const DIR = '-work-teamhealth';
const topic = (name: string, type: string) => `---\nname: ${name}\ndescription: about ${name}\ntype: ${type}\n---\nBody of ${name}.\n`;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-team-health-'));
  home = path.join(root, 'home');
  memoryDir = path.join(home, 'projects', DIR, 'memory');
  await fs.mkdir(path.join(memoryDir, 'team'), { recursive: true });
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('a "user" memory in the team folder', () => {
  it('is flagged, with what it means; a user memory in the private folder is not', async () => {
    await fs.writeFile(path.join(memoryDir, 'MEMORY.md'), '- [Role](role.md) — who I am\n');
    await fs.writeFile(path.join(memoryDir, 'role.md'), topic('Role', 'user'));
    await fs.writeFile(path.join(memoryDir, 'team', 'MEMORY.md'), '- [Me](me.md) — me\n- [Deploys](deploys.md) — how\n');
    await fs.writeFile(path.join(memoryDir, 'team', 'me.md'), topic('Me', 'user'));
    await fs.writeFile(path.join(memoryDir, 'team', 'deploys.md'), topic('Deploys', 'project'));
    const scan = await scanProject(home, DIR, { env: {} });
    expect(scan.problems.filter((p) => p.code === 'user-in-team')).toEqual([]);
    const flagged = scan.team!.problems.filter((p) => p.code === 'user-in-team');
    expect(flagged.map((p) => [p.file, p.severity])).toEqual([['me.md', 'warning']]);
    expect(flagged[0]!.message).toMatch(/"user" memory in the team folder.*always stays private.*Move it to your private memory/);
  });
});
