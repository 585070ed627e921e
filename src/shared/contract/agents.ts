/** Sub-agent memory (R-AGENT): three scopes per agent type. */
import * as z from 'zod';
import { memoryDirScanSchema } from '../scan-types.js';
import { query } from './define.js';
import { projectRef } from './common.js';

export const agentMemorySchema = z.object({
  agentType: z.string(),
  definedIn: z.array(z.string()),
  scopes: z.array(
    z.object({
      scope: z.enum(['user', 'project', 'local']),
      memoryDir: z.string(),
      exists: z.boolean(),
      enabled: z.boolean(),
      scan: memoryDirScanSchema.nullable(),
      /**
       * What a sub-agent was last given of this folder's MEMORY.md, as the newest of the project's
       * sub-agent transcripts recorded it (its system prompt's snapshot): the text ('' for an empty
       * index), when, and in which session; null when no transcript of the project records one.
       */
      lastInjected: z.object({ text: z.string(), at: z.string().nullable(), sessionId: z.string() }).nullable(),
    }),
  ),
});

export const agentsContract = {
  'agents.list': query(
    'Agent types with memory, for a project (the .claude folders of the directory its sessions start in, and of its parents up to the git root) or the user level only.',
    projectRef.partial().extend({
      /** Which of the project's launch directories to show (default the main one, `launchDir` of the answer). */
      launchDir: z.string().min(1).max(4096).optional(),
    }),
    z.object({
      repoRoot: z.string().nullable(),
      /** The directory the project's sessions start in whose settings speak for it (its root when any session starts there, else the one with most sessions): its `.claude/agent-memory*` folders are the ones Claude Code uses for those sessions; other launch directories' are named in warnings. */
      launchDir: z.string().nullable(),
      /** Every directory the project's sessions start in, the main one first: each keeps agent memory of its own. */
      launchDirs: z.array(z.string()),
      agents: z.array(agentMemorySchema),
      warnings: z.array(z.object({ code: z.string(), file: z.string().optional(), message: z.string() })),
    }),
  ),
};
