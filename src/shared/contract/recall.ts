/** Recall and the model connection: the playground and the Settings' model section. */
import * as z from 'zod';
import { appSettingsSchema } from '../app-settings.js';
import { claudeCodeRecallResultSchema, projectRecallResultSchema, providerStatusSchema, rankExplanationSchema } from '../recall-types.js';
import { mutation, query } from './define.js';
import { projectRef } from './common.js';

const recallInput = projectRef.extend({ query: z.string().max(20_000) });

export const settingsViewSchema = z.object({
  settings: appSettingsSchema,
  /** Settings that were invalid on disk and replaced by defaults, in words. */
  problems: z.array(z.string()),
  apiKey: z.object({
    /** A key is saved in Memdir's credential store. */
    stored: z.boolean(),
    /** The store encrypts (Electron safeStorage); false in the headless host. */
    encrypted: z.boolean(),
    /** ANTHROPIC_API_KEY is set in the environment (it wins over a stored key). */
    fromEnv: z.boolean(),
  }),
});
export type SettingsView = z.infer<typeof settingsViewSchema>;

export const recallContract = {
  'recall.run': mutation(
    'Select the memories a query would load (model side query, else the local ranker).',
    recallInput.extend({ offline: z.boolean().optional() }),
    projectRecallResultSchema,
  ),
  'recall.compare': mutation(
    'The playground: model and local ranker side by side for one query, each explaining every memory it did not choose. exclude: files already recalled earlier in the playground session, never chosen again.',
    recallInput.extend({ exclude: z.array(z.string().max(1000)).max(1000).optional() }),
    z.object({ model: projectRecallResultSchema, local: projectRecallResultSchema }),
  ),
  'recall.claudeCode': mutation(
    'Recall exactly as Claude Code would (its scan, cap, request and answer rules), in a playground session that remembers earlier queries and loaded files like a Claude Code session; `session: null` starts a new one.',
    recallInput.extend({ session: z.string().max(100).nullable().optional(), offline: z.boolean().optional() }),
    claudeCodeRecallResultSchema,
  ),
  'recall.explain': query(
    '"Why not this one?": how the local ranker saw one memory for a query.',
    recallInput.extend({ file: z.string() }),
    rankExplanationSchema,
  ),
  'recall.recent': query(
    'Recent playground queries, newest first.',
    z.object({}),
    z.object({ queries: z.array(z.object({ project: z.string(), query: z.string(), at: z.string() })) }),
  ),
  'model.status': query('The model connection: online, offline (a mode, not an error) or error, with the reason.', z.object({}), providerStatusSchema),
  'settings.get': query("Memdir's own settings, and whether an API key is known.", z.object({}), settingsViewSchema),
  'settings.update': mutation(
    'Change settings; an invalid value refuses the whole change and nothing is written.',
    z.object({ patch: z.record(z.string(), z.unknown()) }),
    settingsViewSchema,
  ),
  'settings.setApiKey': mutation(
    'Save (or, with null, remove) the Anthropic API key in the credential store. It is never logged.',
    z.object({ key: z.string().trim().min(10).max(500).nullable() }),
    settingsViewSchema,
  ),
};
