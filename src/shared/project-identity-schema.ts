/**
 * The zod schema of a project's identity (issue 18), apart from project-identity.ts: the renderer's
 * first screen imports that module for describeEvidence and must not bring zod with it (84 KB to
 * load and compile before the dashboard's first paint; vite.config.ts fails the build if it does).
 */
import * as z from 'zod';
import { IDENTITY_SOURCES } from './project-identity.js';

/** A project's identity, as the contract carries it (the type and the rest are project-identity.ts). */
export const projectIdentitySchema = z.object({
  /**
   * `repository`: read from the repository's files now; `remembered`: read earlier by Memdir
   * (the repository is no longer where it was); `paths`: no repository known, only paths.
   */
  source: z.enum(IDENTITY_SOURCES),
  /** Normalised remote URLs (`github.com/acme/app`, `file:///srv/git/app`), sorted, no repeats. */
  remotes: z.array(z.string()),
  /** Root commits (hex object ids) of the history HEAD points at, sorted; [] when unknown. */
  rootCommits: z.array(z.string()),
  /** The project's last known paths: its key and the launch directories of its sessions, newest first. */
  paths: z.array(z.string()),
  /** The git directory the facts were read from, or null. */
  gitDir: z.string().nullable(),
  /** When the repository facts were read (ISO time), or null when none were. */
  readAt: z.string().nullable(),
  /** What could not be known, in a sentence (no remote, a shallow clone, history too long to walk), or null. */
  note: z.string().nullable(),
});
