/**
 * Claude Code's transcripts (R-SESSION): listing them, reading them as turns, cursors, the memory writes a turn made,
 * and what the agent sees of MEMORY.md beside what the newest transcript recorded as injected.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { agentIndexView } from './agent-index.js';
export { claudeCodeVersionIn, type TranscriptsVersion } from './claude-code-version.js';
export { type CursorLoad, CursorStore, type TranscriptCursor } from './cursor-store.js';
export { readLines } from './line-reader.js';
export { listHomeTranscripts, listTranscriptsIn } from './list-transcripts.js';
export { FILE_WRITE_TOOLS, memoryWritesInTurn } from './memory-writes.js';
export { commitCursor, type NewTurns, readNewTurns } from './read-new-turns.js';
export { grepTranscript } from './signal-grep.js';
export { lastSubAgentInjections, type SubAgentInjection } from './sub-agent-injections.js';
export { type Turn } from './turn-types.js';
export { isSubagentTranscriptPath, readTurns, type TrailingTurnPolicy } from './turns.js';
