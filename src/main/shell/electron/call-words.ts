/**
 * A window's call named in words a person knows ("saving a memory (feedback_tabs.md)"), for what
 * quitting says it could not wait for (quit.ts). Changes are named by what they change; reads are
 * all one ("reading for the window"): cutting a read loses nothing.
 *
 * Plain Node: nothing here imports `electron`.
 */
import { CONTRACT } from '../../../shared/contract/index.js';

/** A read in flight: nothing of it is lost when it is cut. */
export const READING = 'reading for the window';

/** Each changing call's domain (the name before the dot), as the app names what it does. */
export const CHANGE_WORDS: Record<string, string> = {
  memories: 'saving a memory',
  index: 'saving MEMORY.md',
  health: 'a health fix',
  duplicates: 'merging duplicate memories',
  history: 'an undo or restore from History',
  drafts: 'keeping or discarding a draft',
  identity: 'relinking a project’s memory',
  recall: 'a recall',
  extract: 'extraction from a session',
  sessions: 'a change to a session',
  hooks: 'installing Claude Code’s hooks',
  settings: 'saving settings',
  claudeSettings: 'saving Claude Code’s settings',
  dream: 'a dream',
  team: 'team sync',
  personal: 'personal sync',
  alerts: 'acting on a secret alert',
  jobs: 'cancelling a background job',
  app: 'switching the home folder',
  desktop: 'a desktop action',
};

/** `name` called with `input`, in words; the memory's file name when the call has one. */
export function callWords(name: unknown, input: unknown): string {
  const def = typeof name === 'string' && Object.hasOwn(CONTRACT, name) ? CONTRACT[name as keyof typeof CONTRACT] : undefined;
  if (!def || def.kind !== 'mutation') return READING;
  const words = CHANGE_WORDS[(name as string).split('.')[0]!] ?? 'a change';
  const file = typeof input === 'object' && input !== null ? (input as { file?: unknown }).file : undefined;
  return typeof file === 'string' && file.length > 0 && file.length <= 200 ? `${words} (${file})` : words;
}
