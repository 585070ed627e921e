/**
 * The model: which provider a task uses, and the errors and answers every provider shares.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { resolveProvider } from './resolve-provider.js';
export { type AnswerBlock, LlmError, type ModelProvider } from './types.js';
