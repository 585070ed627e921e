/**
 * The folder name of an agent type (R-AGENT), as Claude Code 2.1.332 makes it: every UTF-16 code
 * unit outside `[A-Za-z0-9_-]` becomes `-` (`plugin:agent` → `plugin-agent`, `with space` →
 * `with-space`, `a.b` → `a-b`, an emoji → `--`), so no name can lead out of the root
 * (test/fixtures/claude-code-agent/observed-agent.json).
 */
export function agentTypeDirName(agentType: string): string {
  return agentType.replace(/[^A-Za-z0-9_-]/g, '-');
}

/**
 * Whether `name` is a folder name Claude Code gives an agent type's memory: one it maps to itself
 * (letters, digits, `-` and `_`). A folder an archive names otherwise (`%2E%2E`, `..%2F..`, `a.b`)
 * is never read by Claude Code, and never written by Memdir.
 */
export function isAgentTypeDirName(name: string): boolean {
  return name !== '' && agentTypeDirName(name) === name;
}
