/**
 * Settings files Claude Code 2.1.332 drops whole, or loads, for one value its schema rejects or
 * accepts (review x5 F1). Each case adds `shape` to a file whose other setting shows whether the
 * file was loaded: `"autoMemoryEnabled": false` (memory off when loaded) or an
 * `autoMemoryDirectory` (memory moved when loaded). Recorded live by claude-code-interop.test.ts
 * (`MEMDIR_RECORD_SETTINGS_FIXTURE=1`) in test/fixtures/claude-code/settings-rejected-2.1.332.json:
 * per case whether the file loaded and the dotted path the client named (a warning, when it loaded); settings.test.ts checks
 * Memdir against the recording without the binary.
 */
import fs from 'node:fs';
import path from 'node:path';

export const SETTINGS_REJECTED_FIXTURE = path.resolve(import.meta.dirname, '../../../../test/fixtures/claude-code/settings-rejected-2.1.332.json');

export interface SettingsCase {
  name: string;
  /** Which file: the user's settings.json, the launch directory's .claude/settings.json or .claude/settings.local.json. */
  file: 'user' | 'project' | 'local';
  probe: 'off' | 'dir';
  shape: Record<string, unknown>;
}

export interface SettingsRejectedFixture {
  claudeCode: string;
  how: string;
  cases: { name: string; loaded: boolean; at: string | null }[];
}

const hook = (h: Record<string, unknown>) => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [h] }] } });
const command = { type: 'command', command: 'true' };

export const SETTINGS_CASES: SettingsCase[] = [
  // Hooks: a broken PreToolUse / PermissionRequest hook drops the file; other events, an unknown event or `hooks` that is no object do not.
  { name: 'hooks in the old format', file: 'user', probe: 'off', shape: { hooks: { PreToolUse: [{ matcher: 'Bash', command: 'echo hi' }] } } },
  {
    name: 'PermissionRequest hook in the old format',
    file: 'user',
    probe: 'off',
    shape: { hooks: { PermissionRequest: [{ matcher: 'Bash', command: 'x' }] } },
  },
  { name: 'PostToolUse hook in the old format', file: 'user', probe: 'off', shape: { hooks: { PostToolUse: [{ matcher: 'Bash', command: 'x' }] } } },
  { name: 'Stop hook in the old format', file: 'user', probe: 'off', shape: { hooks: { Stop: [{ command: 'x' }] } } },
  { name: 'a valid hook', file: 'user', probe: 'off', shape: hook(command) },
  { name: 'an unknown hook event', file: 'user', probe: 'off', shape: { hooks: { NotAnEvent: [{ matcher: 'Bash', hooks: [command] }] } } },
  { name: 'hooks as text', file: 'user', probe: 'off', shape: { hooks: 'x' } },
  { name: 'hooks null', file: 'user', probe: 'off', shape: { hooks: null } },
  { name: 'a hook event that is an object', file: 'user', probe: 'off', shape: { hooks: { PreToolUse: { matcher: 'Bash' } } } },
  { name: 'a matcher that is a number', file: 'user', probe: 'off', shape: { hooks: { PreToolUse: [{ matcher: 5, hooks: [command] }] } } },
  { name: 'a matcher whose hooks are text', file: 'user', probe: 'off', shape: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: 'x' }] } } },
  { name: 'an unknown hook type', file: 'user', probe: 'off', shape: hook({ type: 'bogus', command: 'x' }) },
  { name: 'a hook with no type', file: 'user', probe: 'off', shape: hook({ command: 'x' }) },
  { name: 'a command hook with no command', file: 'user', probe: 'off', shape: hook({ type: 'command' }) },
  { name: 'a prompt hook', file: 'user', probe: 'off', shape: hook({ type: 'prompt', prompt: 'x' }) },
  { name: 'an agent hook', file: 'user', probe: 'off', shape: hook({ type: 'agent', prompt: 'x' }) },
  { name: 'an http hook', file: 'user', probe: 'off', shape: hook({ type: 'http', url: 'http://127.0.0.1:1/' }) },
  // Permissions: the lists must be lists and the mode one of the modes; what is in a list is not checked.
  { name: 'permissions.allow as text', file: 'user', probe: 'off', shape: { permissions: { allow: 'Bash(ls:*)' } } },
  { name: 'permissions.deny as text', file: 'user', probe: 'off', shape: { permissions: { deny: 'x' } } },
  { name: 'permissions.ask as text', file: 'user', probe: 'off', shape: { permissions: { ask: 'x' } } },
  { name: 'permissions.allow null', file: 'user', probe: 'off', shape: { permissions: { allow: null } } },
  { name: 'permissions.additionalDirectories as text', file: 'user', probe: 'off', shape: { permissions: { additionalDirectories: '/tmp' } } },
  { name: 'permissions as text', file: 'user', probe: 'off', shape: { permissions: 'notanobject' } },
  { name: 'permissions as a list', file: 'user', probe: 'off', shape: { permissions: [] } },
  { name: 'permissions null', file: 'user', probe: 'off', shape: { permissions: null } },
  { name: 'a permission rule that is a number', file: 'user', probe: 'off', shape: { permissions: { allow: [1] } } },
  { name: 'a malformed permission rule', file: 'user', probe: 'off', shape: { permissions: { allow: ['Bash('] } } },
  { name: 'an unknown permissions.defaultMode', file: 'user', probe: 'off', shape: { permissions: { defaultMode: 'bogus' } } },
  // env: a block that is no object drops the file; values that are not text do not.
  { name: 'env as text', file: 'user', probe: 'off', shape: { env: 'x' } },
  { name: 'env as a list', file: 'user', probe: 'off', shape: { env: ['x'] } },
  { name: 'env null', file: 'user', probe: 'off', shape: { env: null } },
  { name: 'an env value that is a number', file: 'user', probe: 'off', shape: { env: { MAX_THINKING_TOKENS: 8000 } } },
  { name: 'an env value that is an object', file: 'user', probe: 'off', shape: { env: { FOO: { a: 1 } } } },
  { name: "a dropped file's env block", file: 'user', probe: 'dir', shape: { env: { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' }, permissions: { allow: 'x' } } },
  // Keys of the wrong type, null included; unknown keys are kept.
  { name: 'autoMemoryEnabled as text', file: 'user', probe: 'dir', shape: { autoMemoryEnabled: 'false' } },
  { name: 'autoMemoryEnabled as a number', file: 'user', probe: 'dir', shape: { autoMemoryEnabled: 0 } },
  { name: 'autoMemoryEnabled null', file: 'user', probe: 'dir', shape: { autoMemoryEnabled: null } },
  { name: 'autoMemoryDirectory as a number', file: 'user', probe: 'off', shape: { autoMemoryDirectory: 5 } },
  { name: 'autoMemoryDirectory null', file: 'user', probe: 'off', shape: { autoMemoryDirectory: null } },
  { name: 'autoDreamEnabled as text', file: 'user', probe: 'off', shape: { autoDreamEnabled: 'yes' } },
  { name: 'model as a number', file: 'user', probe: 'off', shape: { model: 5 } },
  { name: 'model null', file: 'user', probe: 'off', shape: { model: null } },
  { name: 'apiKeyHelper as a number', file: 'user', probe: 'off', shape: { apiKeyHelper: 5 } },
  { name: 'statusLine as text', file: 'user', probe: 'off', shape: { statusLine: 'x' } },
  { name: 'includeCoAuthoredBy as text', file: 'user', probe: 'off', shape: { includeCoAuthoredBy: 'yes' } },
  { name: 'cleanupPeriodDays as text', file: 'user', probe: 'off', shape: { cleanupPeriodDays: 'x' } },
  { name: 'enabledPlugins as a list', file: 'user', probe: 'off', shape: { enabledPlugins: ['x'] } },
  { name: 'an unknown key', file: 'user', probe: 'off', shape: { myOwnKey: 5 } },
  // Unknown keys named like what every object has (found by the fuzz test: Memdir took them for known keys).
  { name: 'a key named toString', file: 'user', probe: 'off', shape: { toString: null } },
  { name: 'a key named constructor', file: 'user', probe: 'off', shape: { constructor: 5 } },
  { name: 'a key named __proto__', file: 'user', probe: 'off', shape: { ['__proto__']: 'x' } },
  { name: 'permissions holding a key named toString', file: 'user', probe: 'off', shape: { permissions: { toString: 'x' } } },
  // The project's shared and local files are dropped the same way.
  { name: 'project settings with permissions.deny as text', file: 'project', probe: 'off', shape: { permissions: { deny: 'x' } } },
  { name: 'local settings with permissions.allow as text', file: 'local', probe: 'dir', shape: { permissions: { allow: 'x' } } },
];

/** The settings file of a case, for a launch directory and a config dir. */
export function caseFile(c: SettingsCase, launchDir: string, configDir: string): string {
  if (c.file === 'user') return path.join(configDir, 'settings.json');
  return path.join(launchDir, '.claude', c.file === 'project' ? 'settings.json' : 'settings.local.json');
}

/** Write the case's file; `movedTo` is where its `dir` probe moves the memory. */
export function writeCase(c: SettingsCase, launchDir: string, configDir: string, movedTo: string): string {
  const file = caseFile(c, launchDir, configDir);
  const probe = c.probe === 'off' ? { autoMemoryEnabled: false } : { autoMemoryDirectory: movedTo };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...probe, ...c.shape }));
  return file;
}

export const SETTINGS_REJECTED: SettingsRejectedFixture = JSON.parse(fs.readFileSync(SETTINGS_REJECTED_FIXTURE, 'utf8')) as SettingsRejectedFixture;
