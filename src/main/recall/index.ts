/**
 * Recall: which memories are relevant to a query, by the local ranker or the model, as Claude Code picks them.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { type ClaudeCodeRecallResult, type ProjectRecallResult, RecallService, RecentQueries } from './recall-service.js';
export { tokenize } from './tokenize.js';
