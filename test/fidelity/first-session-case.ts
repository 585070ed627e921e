/**
 * A project's first session, recorded from the real Claude Code 2.1.332 (test/fixtures/
 * claude-code-index/first-session-2.1.332.json): launched where the project has no memory folder,
 * `claude -p hello` makes an empty `memory/` beside its transcript and writes nothing into it —
 * no MEMORY.md, no topic file. The live test (index-cut-live.test.ts) runs the client and
 * compares with the recording; index-cut.test.ts lays the recorded layout out again and checks what
 * Memdir shows for it without the binary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { scanMemoryDir } from '../../src/main/memdir/scan-dir.js';
import { agentIndexView } from '../../src/main/transcripts/agent-index.js';

export const FIRST_SESSION_FIXTURE = path.resolve(__dirname, '../fixtures/claude-code-index/first-session-2.1.332.json');

/** What the fixture holds. */
export interface FirstSession {
  claudeCode: string;
  how: string;
  /** The project folder after the run, depth first in name order: folders end in `/`, the transcript is `<session>.jsonl`. */
  layout: string[];
}

/** A project folder's layout as the fixture records it. */
export function layoutOf(folder: string, under = ''): string[] {
  return fs
    .readdirSync(path.join(folder, under), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => {
      const rel = under ? `${under}/${e.name}` : e.name;
      if (e.isDirectory()) return [`${rel}/`, ...layoutOf(folder, rel)];
      return [/^[0-9a-f-]{36}\.jsonl$/.test(e.name) ? (under ? `${under}/<session>.jsonl` : '<session>.jsonl') : rel];
    });
}

/** What Memdir shows for a project folder laid out as a first session leaves it. */
export async function firstSessionShownByMemdir(folder: string): Promise<{
  loaded: string;
  truncated: boolean;
  builtByClaudeCode: string | null;
  builtFile: string | null;
  memories: number;
  problems: number;
}> {
  const memoryDir = path.join(folder, 'memory');
  const view = await agentIndexView({
    transcriptDirs: [folder],
    memoryDir,
    settings: { autoMemoryEnabled: true, autoMemoryEnabledSource: 'default', autoMemoryEnabledFrom: null, memoryStores: null },
  });
  const scan = scanMemoryDir(memoryDir, { scope: 'private' });
  return {
    loaded: view.text,
    truncated: view.truncated,
    builtByClaudeCode: view.builtByClaudeCode,
    builtFile: view.builtFile,
    memories: scan.memories.length,
    problems: scan.problems.length,
  };
}

/** The client loads nothing and builds nothing there: Memdir shows an empty memory with no problem. */
export const FIRST_SESSION_SHOWN = { loaded: '', truncated: false, builtByClaudeCode: null, builtFile: null, memories: 0, problems: 0 } as const;
