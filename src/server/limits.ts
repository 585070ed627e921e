/**
 * What one request and one team may hold. Every figure is configurable (`createApp({ limits })`,
 * `memdir server --max-body …`); the defaults fit memories, which are short notes.
 */
import { PATH_KEY_LIMITS } from '../shared/path-key.js';
import { TEAM_MAX_ENTRIES, TOPIC_MAX_BYTES } from '../shared/limits.js';

export interface ServerLimits {
  /** A PUT body larger than this is refused before it is read (Content-Length) or while it is. */
  maxBodyBytes: number;
  /** Keys in one PUT; clients split larger pushes. */
  maxKeysPerRequest: number;
  /** UTF-8 bytes of one key; never more than the shared path-key rule allows. */
  maxKeyBytes: number;
  /** UTF-8 bytes of one entry's content: the size above which Memdir does not parse a topic file. */
  maxEntryBytes: number;
  /** Entries one team may hold, so one token cannot fill the disk with keys. */
  maxEntriesPerTeam: number;
  /** Content bytes one team may hold: a full pull is one JSON document built in memory. */
  maxTeamBytes: number;
  /**
   * Push ids one team (or one project of a personal space) remembers, the newest kept: within the
   * rate limit a member could otherwise record ~6 million in the 7 days they are kept, each with
   * its result, and fill the disk. A forgotten id sent again is judged anew — its content is then
   * already there, so it is answered "unchanged" and nothing is written twice.
   */
  maxPushIdsPerTeam: number;
  /** Projects one personal space may hold (each is created on its first use). */
  maxProjectsPerSpace: number;
  /** Token bucket per token: `burst` requests at once, refilled at `perSecond`. */
  rateLimit: { burst: number; perSecond: number };
  /** Failed authentications per client address before 429 (same bucket shape). */
  authFailureLimit: { burst: number; perSecond: number };
  /** Open connections in all (each holds a file descriptor); past it a new one is closed at once. */
  maxConnections: number;
  /** Open connections from one client address (an IPv6 client's /64); not applied with trustProxy, where all come from the proxy. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxBodyBytes: 8 * 1024 * 1024,
  maxKeysPerRequest: 500,
  maxKeyBytes: PATH_KEY_LIMITS.maxBytes,
  maxEntryBytes: TOPIC_MAX_BYTES,
  maxEntriesPerTeam: TEAM_MAX_ENTRIES,
  maxTeamBytes: 256 * 1024 * 1024,
  maxProjectsPerSpace: 1_000,
  // A lost answer is re-sent within minutes, or at the client's next start: 1,000 pushes of a team cover that.
  maxPushIdsPerTeam: 1_000,
  rateLimit: { burst: 60, perSecond: 10 },
  authFailureLimit: { burst: 20, perSecond: 1 },
  // An app holds one or two keep-alive connections; 100 leaves room for a NAT-ed office.
  maxConnections: 1_000,
  maxConnectionsPerAddress: 100,
};

/** Defaults overlaid with `overrides`; the key limit is capped by the shared rule. */
export function resolveLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_LIMITS, ...overrides };
  limits.maxKeyBytes = Math.min(limits.maxKeyBytes, PATH_KEY_LIMITS.maxBytes);
  return limits;
}
