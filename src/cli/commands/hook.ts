import path from 'node:path';
import { type CommandSpec, jsonOption, printJson } from '../command.js';

const dataDirOption = { type: 'string' as const, valueName: 'D', description: "Memdir's data folder (default: $MEMDIR_DATA_DIR, else the platform's)" };

/**
 * `memdir hook <event>`: run by Claude Code's Stop, PreCompact and SessionEnd hooks. Always exits
 * 0 — a failing hook must not break Claude Code — and reports trouble to the hook log instead.
 */
export const hookCommand: CommandSpec = {
  name: ['hook'],
  summary: "Run by Claude Code's hooks: hand the event on stdin to the running app, or spool it for its next start.",
  // Optional and variadic: a malformed call must still exit 0 (the problem goes to the log).
  args: ['[event...]'],
  options: { 'data-dir': dataDirOption, json: jsonOption },
  details: `Events: Stop, PreCompact, SessionEnd (installed by Settings → Connect to Claude Code, or
\`memdir hooks connect\`). Reads Claude Code's hook JSON on stdin (session_id, transcript_path,
cwd, hook_event_name, …), hands it to the running app over a local socket in the data folder,
or writes it to <data folder>/hook-spool/ when the app is closed. Sessions with
MEMDIR_INTERNAL=1 (Memdir's own model calls) are ignored. Always exits 0; problems go to
<data folder>/hook-errors.log. --json prints {"outcome": "delivered"|"spooled"|"ignored"|"failed", "message"}.`,
  async run({ positionals, values, io }) {
    const { resolveDataDir } = await import('../../main/data-dir.js');
    const { runHook, logHookProblem } = await import('../../main/hooks/run-hook.js');
    const dataDir = typeof values['data-dir'] === 'string' ? path.resolve(io.cwd, values['data-dir']) : resolveDataDir(io.env);
    const event = positionals[0] ?? '';
    if (positionals.length !== 1) {
      await logHookProblem(dataDir, event || '(none)', `expected one event name, got ${positionals.length}`);
      if (values.json) printJson(io, { outcome: 'failed', message: 'expected one event name' });
      return 0;
    }
    const result = await runHook({ event, stdin: io.stdin, env: io.env, dataDir });
    if (values.json) printJson(io, result);
    return 0;
  },
};
