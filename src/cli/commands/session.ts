import { type CommandSpec, homeOption, jsonOption, printJson } from '../command.js';
import { ago, table } from '../format.js';
import { homeFrom } from './scan.js';

/** `memdir session status`: Session Memory counters of the live sessions (R-SESSION). */
export const sessionStatusCommand: CommandSpec = {
  name: ['session', 'status'],
  summary: 'Live sessions with their Session Memory counters: context growth and tool calls since the last note update.',
  args: [],
  options: { home: homeOption, json: jsonOption },
  details: `JSON: {"sessions": [{"sessionId", "project", "projectPath", "transcriptPath",
  "tokensSinceUpdate", "toolCallsSinceUpdate", "due": bool, "tokensToNext", "toolCallsToNext",
  "contextTokens", "lastActivityAt", "lastUpdateAt", "updates", "method", "note", "noteFile"}]}
A note is updated when the context grew by more than 5,000 tokens AND at least 3 tool calls
happened since its last update ("due"). Live sessions: those the app follows, and session
transcripts changed within Settings → Session Memory's idle time (default 4 hours).
Only reports: nothing is written (the running app updates the notes).`,
  async run({ values, io }) {
    const { resolveDataDir } = await import('../../main/data-dir.js');
    const { loadAppSettings } = await import('../../main/settings/app-settings.js');
    const { SessionMemory } = await import('../../main/session/session-memory.js');
    const dataDir = resolveDataDir(io.env);
    const { settings } = await loadAppSettings(dataDir);
    const sessions = await new SessionMemory({ home: homeFrom(values, io), dataDir }).list({ recentMinutes: settings.session.idleMinutes });
    if (values.json) {
      printJson(io, { sessions });
      return 0;
    }
    if (sessions.length === 0) {
      io.out('No live sessions.\n');
      return 0;
    }
    const rows = [['SESSION', 'PROJECT', 'TOKENS SINCE', 'TOOLS SINCE', 'DUE', 'UPDATED', 'ACTIVE']];
    for (const s of sessions) {
      rows.push([
        s.sessionId.slice(0, 8),
        s.projectPath ?? s.project,
        `${s.tokensSinceUpdate.toLocaleString('en')} / >5,000`,
        `${s.toolCallsSinceUpdate} / 3`,
        s.due ? 'yes' : 'no',
        s.lastUpdateAt ? ago(Date.parse(s.lastUpdateAt)) : 'never',
        s.lastActivityAt ? ago(Date.parse(s.lastActivityAt)) : '—',
      ]);
    }
    io.out(table(rows));
    return 0;
  },
};
