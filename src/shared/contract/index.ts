/**
 * The whole contract between the renderer and main, merged from one file per domain. Adding
 * a call means adding it here (and its handler in src/main/api/): nothing else.
 */
import type { Def, QueryDef, SubscriptionDef } from './define.js';
import { agentsContract } from './agents.js';
import { alertsContract } from './alerts.js';
import { appContract } from './app.js';
import { claudeSettingsContract } from './claude-settings.js';
import { curationContract } from './curation.js';
import { desktopContract } from './desktop.js';
import { draftsContract } from './drafts.js';
import { dreamContract } from './dream.js';
import { eventsContract } from './events.js';
import { extractContract } from './extract.js';
import { hooksContract } from './hooks.js';
import { identityContract } from './identity.js';
import { memoriesContract } from './memories.js';
import { personalContract } from './personal.js';
import { projectsContract } from './projects.js';
import { recallContract } from './recall.js';
import { sessionContract } from './session.js';
import { teamContract } from './team.js';

export const CONTRACT = {
  ...appContract,
  ...projectsContract,
  ...memoriesContract,
  ...curationContract,
  ...draftsContract,
  ...agentsContract,
  ...eventsContract,
  ...recallContract,
  ...extractContract,
  ...sessionContract,
  ...hooksContract,
  ...claudeSettingsContract,
  ...dreamContract,
  ...teamContract,
  ...personalContract,
  ...alertsContract,
  ...desktopContract,
  ...identityContract,
} satisfies Record<string, Def>;

export type Contract = typeof CONTRACT;
export type CallName = { [K in keyof Contract]: Contract[K] extends QueryDef ? K : never }[keyof Contract];
export type SubscriptionName = { [K in keyof Contract]: Contract[K] extends SubscriptionDef ? K : never }[keyof Contract];

export * from './define.js';
