import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXTRACT_SYSTEM_PROMPT, buildExtractPrompt } from '../../src/main/extract/extract-prompt.js';
import { validateOperation } from '../../src/main/extract/validate-operation.js';
import { TEAM_EXTRACT_FIXTURE, type TeamExtractRecording } from '../../src/main/extract/test-support/claude-code-extract-cases.js';

// What the real Claude Code 2.1.332 tells its own extraction agent with team memory on (live,
// re-recorded: src/main/extract/claude-code-interop.test.ts, 'team'). Memdir's extraction model
// is told the same about scopes, in the client's words. That mode needs a team store in
// CLAUDE_MEMORY_STORES, and then the client sends no MEMORY.md at all; Memdir models the layout
// without stores (README), where MEMORY.md alone reaches the agent with its team/x.md lines
// (test/fidelity/team-index.test.ts): the index sentence is Memdir's, about that layout, and
// team/MEMORY.md is no index the model should fill.
const recording = JSON.parse(fs.readFileSync(TEAM_EXTRACT_FIXTURE, 'utf8')) as TeamExtractRecording;

describe("Memdir's extraction, told about team scopes as Claude Code 2.1.332 tells its agent, and about MEMORY.md as the layout without stores loads it", () => {
  it('the recording is of the client with team memory on: two folders, the scope guidance, and the instruction pointing to it', () => {
    expect(recording.memorySection).toContain('`$MEM/team/` (shared with all users of this project)');
    expect(recording.instruction).toContain('Apply the memory types, scope guidance, what-not-to-save criteria');
  });

  it("gives the client's scope guidance in its words, the secret rule for the team among them", () => {
    const guidance = /`user` memories are always private;[^\n]*?team\. Never write secrets or credentials to the team directory\./.exec(
      recording.memorySection,
    )?.[0];
    expect(guidance).toBeDefined();
    expect(EXTRACT_SYSTEM_PROMPT).toContain(guidance);
    expect(EXTRACT_SYSTEM_PROMPT).toContain('"team" (shared with all users of this project)');
  });

  it('shows the model MEMORY.md as the one index, with team memories in it as team/x.md, and not team/MEMORY.md as an index', () => {
    expect(EXTRACT_SYSTEM_PROMPT).toContain('team/x.md');
    const prompt = buildExtractPrompt([], {
      indexText: '- [Build](build.md) — how the project builds\n- [Deploy](team/deploy.md) — how the team deploys\n',
      memories: [{ file: 'build.md', name: 'Build', description: 'how the project builds', type: 'project' } as never],
      teamMemories: [{ file: 'deploy.md', name: 'Deploy', description: 'how the team deploys', type: 'project' } as never],
    });
    expect(prompt).not.toContain('team_memory_index');
    expect(prompt).toContain('- [Deploy](team/deploy.md) — how the team deploys');
    expect(prompt).toContain('- deploy.md [team, project] Deploy: how the team deploys');
  });

  it("warns of MEMORY.md's cut for a new team memory: its loading pointer goes there, as team/x.md", async () => {
    const full = Array.from({ length: 200 }, (_, i) => `- [M${i}](m${i}.md) — memory ${i}`).join('\n') + '\n';
    const target = { privateFiles: new Set<string>(), teamFiles: new Set<string>(), indexText: full };
    const checked = await validateOperation(
      { action: 'create', file: 'project_deploy.md', scope: 'team', type: 'project', name: 'Deploy', description: 'how the team deploys', body: 'make deploy' },
      target as never,
    );
    expect(checked.ok && checked.warnings).toEqual([
      'MEMORY.md is past its limit: this pointer would be cut and never reach the agent. Shorten the index first.',
    ]);
  });
});
