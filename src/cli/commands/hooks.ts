import { type CommandSpec, CliFailure, EXIT_OK, EXIT_PROBLEMS, homeOption, jsonOption, printJson } from '../command.js';
import type { HooksAction } from '../../shared/contract/hooks.js';
import { homeFrom } from './scan.js';

const dataDirOption = {
  type: 'string' as const,
  valueName: 'D',
  description: "Memdir's data folder the hooks hand events to (default: $MEMDIR_DATA_DIR, else the platform's)",
};

/** The run's data dir: runCli made `--data-dir` (else the environment's) the one this process works in. */
async function runDataDir(): Promise<string> {
  const { processDataDir } = await import('../../main/core/index.js');
  return processDataDir();
}

function changeCommand(action: HooksAction): CommandSpec {
  return {
    name: ['hooks', action],
    summary:
      action === 'connect'
        ? "Add Memdir's Stop, PreCompact, SessionEnd and SessionStart hooks to Claude Code's settings.json (shows the diff; --yes writes it)."
        : "Remove Memdir's hooks from Claude Code's settings.json (shows the diff; --yes writes it).",
    args: [],
    options: {
      home: homeOption,
      'data-dir': dataDirOption,
      yes: { type: 'boolean', description: 'write the change (without it, only the diff is shown)' },
      json: jsonOption,
    },
    details: `JSON: {"action", "settingsFile", "changed", "diff", "warnings": [..], "applied": bool, "backup": path|null}
The file is edited in place, never rewritten: only Memdir's entries are added or removed, every
other byte (comments, inline lists, indentation, line endings) stays; running it twice changes
nothing; connect then disconnect gives back the same bytes. The previous file is kept as
settings.json.memdir-backup. Stop, PreCompact and SessionEnd run a short shell command that spools
the event to <D>/hook-spool/ (on Windows: "<node> <memdir.js> hook <Event> --data-dir <D>");
SessionStart (compact|resume) runs "<node> <memdir.js> hook SessionStart --data-dir <D>", with
absolute paths, so they work whatever PATH Claude Code's shell has. A warning says when Claude Code
would ignore the file (comments or trailing commas). Exit codes: 0 done, 2 settings.json unreadable
or not JSON.`,
    async run({ values, io }) {
      const { applyHooksChange, planHooksChange } = await import('../../main/hooks/index.js');
      const home = homeFrom(values, io);
      const options = { dataDir: await runDataDir() };
      const plan = await planHooksChange(home, action, options);
      if (plan.problems.length > 0) throw new CliFailure(plan.problems.join(' '));
      let applied = false;
      let backup: string | null = null;
      if (values.yes && plan.changed) {
        const result = await applyHooksChange(home, action, plan.baseHash, options);
        applied = result.changed;
        backup = result.backup;
      }
      if (values.json) {
        printJson(io, { action, settingsFile: plan.settingsFile, changed: plan.changed, diff: plan.diff, warnings: plan.warnings, applied, backup });
        return 0;
      }
      for (const warning of plan.warnings) io.out(`warning: ${warning}\n`);
      if (!plan.changed) {
        io.out(
          action === 'connect' ? `Already connected: ${plan.settingsFile} has Memdir's hooks.\n` : `Not connected: ${plan.settingsFile} has no Memdir hooks.\n`,
        );
        return 0;
      }
      io.out(plan.diff);
      io.out(
        applied
          ? `\nWritten ${plan.settingsFile}${backup ? ` (previous version: ${backup})` : ''}.\n`
          : '\nNothing written: run again with --yes to apply this change.\n',
      );
      return 0;
    },
  };
}

/** `memdir hooks connect` / `disconnect`. */
export const hooksConnectCommand = changeCommand('connect');
export const hooksDisconnectCommand = changeCommand('disconnect');

/** `memdir hooks status`. */
export const hooksStatusCommand: CommandSpec = {
  name: ['hooks', 'status'],
  summary: "Whether Memdir's hooks are in Claude Code's settings.json, and whether the app receives them.",
  args: [],
  options: { home: homeOption, 'data-dir': dataDirOption, json: jsonOption },
  details: `JSON: {"settingsFile", "exists", "connected": "all"|"partial"|"none",
  "events": [{"event", "command", "current"}], "command", "listening", "spooled", "problems": [..]}
Exit codes: 0 no problem (connected or not), 1 problems found ("problems": settings.json unreadable or not valid
JSON, hooks out of date, Memdir's command-line entry missing), 2 usage or I/O error.`,
  async run({ values, io }) {
    const { readHooksStatus } = await import('../../main/hooks/index.js');
    const status = await readHooksStatus(homeFrom(values, io), { dataDir: await runDataDir() });
    // A problem waits for you (fix settings.json, connect again): 1, as every command that found problems.
    const code = status.problems.length > 0 ? EXIT_PROBLEMS : EXIT_OK;
    if (values.json) {
      printJson(io, status);
      return code;
    }
    io.out(`${status.settingsFile}: ${status.connected === 'all' ? 'connected' : status.connected === 'none' ? 'not connected' : 'partly connected'}\n`);
    for (const e of status.events) io.out(`  ${e.event.padEnd(12)} ${e.command ? (e.current ? 'yes' : 'yes (another install or an older command)') : 'no'}\n`);
    // Not connected, Claude Code sends no hook event at all: say what Memdir does instead.
    const receiving =
      status.connected === 'none'
        ? 'Claude Code sends no hook events: Memdir watches the transcripts'
        : `app ${status.listening ? 'is running and receives hook events' : 'is not running: hook events are spooled'}`;
    io.out(`${receiving}${status.spooled ? ` (${status.spooled} waiting)` : ''}\n`);
    for (const p of status.problems) io.out(`problem: ${p}\n`);
    return code;
  },
};
