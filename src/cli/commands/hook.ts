import { type CommandSpec, jsonOption, printJson } from '../command.js';

const dataDirOption = { type: 'string' as const, valueName: 'D', description: "Memdir's data folder (default: $MEMDIR_DATA_DIR, else the platform's)" };

/**
 * `memdir hook <event>`: run by Claude Code's hooks — SessionStart (to hand back the Session
 * Memory note), and Stop, PreCompact, SessionEnd where no POSIX shell runs the spooling command.
 * Always exits 0 — a failing hook must not break Claude Code — and reports trouble to the hook
 * log instead.
 */
export const hookCommand: CommandSpec = {
  name: ['hook'],
  summary: "Run by Claude Code's hooks: spool the event on stdin for the app, or (SessionStart) hand back the session's note.",
  // Optional and variadic: a malformed call must still exit 0 (the problem goes to the log).
  args: ['[event...]'],
  options: { 'data-dir': dataDirOption, json: jsonOption },
  details: `Events (installed by Settings → Connect to Claude Code, or \`memdir hooks connect\`):
  Stop, PreCompact, SessionEnd  write Claude Code's hook JSON from stdin to <data folder>/hook-spool/,
                                where the running app takes it (or the next start does)
  SessionStart                  with source compact or resume: print the session's Session Memory
                                note as {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                "additionalContext": "…"}}, which Claude Code adds to the conversation
Sessions with MEMDIR_INTERNAL=1 (Memdir's own model calls) are ignored. Always exits 0; problems go
to <data folder>/hook-errors.log. --json prints {"outcome": "spooled"|"answered"|"ignored"|"failed", "message"}
instead of what Claude Code reads.`,
  async run({ positionals, values, io }) {
    const { processDataDir } = await import('../../main/core/index.js');
    const { runHook, logHookProblem } = await import('../../main/hook-spool/index.js');
    // runCli made `--data-dir` (else the environment's) the run's data dir: the log, the spool and the fingerprint key alike.
    const dataDir = processDataDir();
    const event = positionals[0] ?? '';
    if (positionals.length !== 1) {
      await logHookProblem(dataDir, event || '(none)', `expected one event name, got ${positionals.length}`);
      if (values.json) printJson(io, { outcome: 'failed', message: 'expected one event name' });
      return 0;
    }
    const result = await runHook({ event, stdin: io.stdin, env: io.env, dataDir });
    if (values.json) printJson(io, { outcome: result.outcome, message: result.message });
    else if (result.stdout) io.out(result.stdout);
    return 0;
  },
};
