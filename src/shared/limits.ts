/**
 * Numbers that must match Claude Code's own behaviour (SPEC R-INDEX, R-SANITIZE, R-SESSION,
 * R-DREAM-*, R-RECALL-SELECT). One place for each, so no feature carries its own copy.
 */

/** R-INDEX: only this many lines of MEMORY.md reach the agent. */
export const INDEX_MAX_LINES = 200;
/** R-INDEX: only this many UTF-16 code units (JavaScript `length`, not UTF-8 bytes) of MEMORY.md reach the agent, cut at a newline. */
export const INDEX_MAX_CHARS = 25_000;
/**
 * R-INDEX *(fact, Claude Code 2.1.332)*: a MEMORY.md of more UTF-8 bytes than this is not loaded at
 * all — the client skips it ("not a regular file or exceeds 4194304 byte limit" in its debug log)
 * and the agent starts with no index (test/fixtures/claude-code-index/observed-size.json).
 */
export const INDEX_FILE_MAX_BYTES = 4 * 1024 * 1024;
/** R-SANITIZE: longer sanitised names are cut to this length and given a hash suffix. */
export const SANITIZED_MAX_LENGTH = 200;
/** R-RECALL-SELECT: at most this many topic files are loaded per query. */
export const RECALL_MAX_SELECTED = 5;
/** The file name of the index inside a memory directory. */
export const INDEX_FILE = 'MEMORY.md';
/** The team memory lives in this subdirectory of a memory directory (R-LAYOUT). */
export const TEAM_DIR = 'team';
/** The folder of each agent memory scope (R-AGENT): user under the Claude home, project and local under `<launch dir>/.claude/`. */
export const AGENT_MEMORY_FOLDER = { user: 'agent-memory', project: 'agent-memory', local: 'agent-memory-local' } as const;
/**
 * Top-level folders of a memory directory whose files Claude Code never offers as memories
 * (its recall scan skips them; `team` has its own rule): recall mirrors it, and personal sync
 * leaves them on the machine.
 */
export const SKIPPED_TOP_FOLDERS: readonly string[] = ['logs', 'sessions', 'proposals'];
/**
 * A topic file larger than this is not parsed (it is reported `unreadable`): memories are
 * short notes, and a huge file is almost certainly something else dropped in by mistake.
 */
export const TOPIC_MAX_BYTES = 1_000_000;

/**
 * Entries one team may hold (the sync server's default `--max-entries`), and so the most one
 * pull answer is taken with: a server sending more is refused whole (issue 15, unbounded pull).
 */
export const TEAM_MAX_ENTRIES = 20_000;
/**
 * R-SESSION *(fact, Claude Code 2.1.332)*: a hook's `additionalContext` of more than this many
 * characters (UTF-16 units, as JavaScript counts them, nothing trimmed) is saved to a file and the
 * model gets only a 2 KB preview of it (test/fixtures/claude-code-session/hook-context-2.1.332.json).
 * The Session Memory note Memdir hands back, its intro included, is cut to fit.
 */
export const SESSION_HANDBACK_MAX_CHARS = 10_000;
