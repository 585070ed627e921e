import { type CommandSpec, homeOption, jsonOption, printJson } from '../command.js';
import { SESSION_HANDBACK_MAX_CHARS } from '../../shared/limits.js';
import { ago, table } from '../format.js';
import { homeFrom } from './scan.js';

/** `memdir session status`: Session Memory counters of the live sessions (R-SESSION). */
export const sessionStatusCommand: CommandSpec = {
  name: ['session', 'status'],
  summary: 'Live sessions with their Session Memory counters: context growth and tool calls since the last note update.',
  args: [],
  options: { home: homeOption, json: jsonOption },
  details: `JSON: {"sessions": [{"sessionId", "project", "projectPath", "transcriptPath", "contextTokens",
  "started": bool, "tokensSinceUpdate", "toolCallsSinceUpdate", "lastResponseUsedTools": bool,
  "due": bool, "tokensToNext", "toolCallsToNext", "lastActivityAt", "endedAt", "lastUpdateAt",
  "updates", "method", "fallbackReason", "note", "noteFile", "handBack": {"chars", "wholeChars", "cut": bool}|null,
  "claudeCodeSummary": {"file", "text", "modifiedAt", "truncated"}|null}]}
The context is counted as Claude Code counts it: input + cache + output tokens of the latest
response, plus characters / 4 of what came after it. The first note is written once it reaches
10,000 tokens ("started"); then a note is "due" when the context grew by at least 5,000 tokens
since the last update AND either 3 tool calls happened since or the latest response made none.
HANDED BACK (handBack) is what the SessionStart hook gives Claude Code after a compaction or a
resume: the note under a one-line intro, within the 10,000 characters Claude Code 2.1.332 takes
whole from a hook (past that the model would get a 2 KB preview); a longer note is cut ("cut"),
keeping its beginning and its latest lines and naming the file with the whole note. "chars" is
what is handed back, "wholeChars" what the intro and the whole note come to (UTF-16 units both).
claudeCodeSummary is the summary.md an older Claude Code wrote for the session, where it exists.
Live sessions: those the app follows (an ended one until it has been idle for Settings → Session
Memory's idle time, default 4 hours, so that a resume gets its note back), and session transcripts
changed within that time. Only reports: nothing is written (the running app updates the notes).`,
  async run({ values, io }) {
    const { resolveDataDir } = await import('../../main/core/index.js');
    const { SessionMemory } = await import('../../main/session/index.js');
    const sessions = await new SessionMemory({ home: homeFrom(values, io), dataDir: resolveDataDir(io.env) }).listLive();
    if (values.json) {
      printJson(io, { sessions });
      return 0;
    }
    if (sessions.length === 0) {
      io.out('No live sessions.\n');
      return 0;
    }
    const rows = [['SESSION', 'PROJECT', 'TOKENS', 'TOOLS SINCE', 'DUE', 'UPDATED', 'HANDED BACK', 'ACTIVE']];
    for (const s of sessions) {
      rows.push([
        `${s.sessionId.slice(0, 8)}${s.endedAt ? ' (ended)' : ''}`,
        s.projectPath ?? s.project,
        s.started ? `${s.tokensSinceUpdate.toLocaleString('en')} / 5,000 since` : `${s.contextTokens.toLocaleString('en')} / 10,000 to start`,
        s.lastResponseUsedTools ? `${s.toolCallsSinceUpdate} / 3` : `${s.toolCallsSinceUpdate} (answered)`,
        s.due ? 'yes' : 'no',
        s.lastUpdateAt ? ago(Date.parse(s.lastUpdateAt)) : 'never',
        s.handBack ? `${s.handBack.chars.toLocaleString('en')} / ${SESSION_HANDBACK_MAX_CHARS.toLocaleString('en')}${s.handBack.cut ? ' (cut)' : ''}` : '—',
        s.lastActivityAt ? ago(Date.parse(s.lastActivityAt)) : '—',
      ]);
    }
    io.out(table(rows));
    return 0;
  },
};
