/**
 * The phases of a dream, in order (R-DREAM-PHASES), and the final apply step. Apart from the
 * dream contract's schemas (dream.ts) and free of zod, so the dashboard's Dream column does not
 * load the schema library on the app's first screen (issue 16).
 */
export const DREAM_PHASES = ['orient', 'gather', 'consolidate', 'prune', 'apply'] as const;
export type DreamPhase = (typeof DREAM_PHASES)[number];
