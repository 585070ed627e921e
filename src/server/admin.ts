/**
 * Team administration (`memdir server admin …`): create teams and personal spaces, issue tokens
 * (shown once, never stored), list members and tokens without secrets, revoke tokens. Runs against the store
 * directly, so it works while the server is running (SQLite waits for the writer, PostgreSQL
 * is shared) and a revoked token is refused on its very next request.
 */
import { randomBytes } from 'node:crypto';
import { isTeamName } from '../shared/protocol/team-name.js';
import { type PersonalInfo, type TeamInfo, type TeamStore, type TokenInfo, StoreError, personalSpaceName } from './store.js';
import { generateToken, parseToken } from './tokens.js';

function checkMember(member: string): string {
  const trimmed = member.trim();
  if (trimmed === '' || trimmed.length > 64 || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(trimmed)) {
    throw new StoreError('invalid-input', `A member name is 1 to 64 printable characters, not ${JSON.stringify(member.slice(0, 80))}.`);
  }
  return trimmed;
}

/** Create a team with a fresh epoch. */
export async function createTeam(store: TeamStore, name: string, now = new Date()): Promise<TeamInfo> {
  if (!isTeamName(name)) {
    throw new StoreError(
      'invalid-input',
      `"${name.slice(0, 80)}" is not a valid team name: use lower-case letters, digits and dashes (at most 63), e.g. "platform-team".`,
    );
  }
  return store.createTeam(name, randomBytes(4).toString('hex'), now.toISOString());
}

/** When a token issued at `now` to last `days` expires (null: it lasts until revoked). */
function expiry(now: Date, days: number | undefined): string | null {
  return days === undefined ? null : new Date(now.getTime() + days * 24 * 3600 * 1000).toISOString();
}

/**
 * Issue a token for a member of `team`, valid for `days` when given (else until revoked). The
 * returned `token` is the only copy there will ever be.
 */
export async function issueToken(
  store: TeamStore,
  team: string,
  member = 'member',
  now = new Date(),
  days?: number,
): Promise<{ token: string; info: TokenInfo }> {
  const name = checkMember(member);
  if (!(await store.getTeam(team))) throw new StoreError('not-found', `There is no team "${team}". Create it first: memdir server admin create-team ${team}`);
  const { token, id, hash } = generateToken();
  const info = await store.addToken({ id, team, member: name, hash, createdAt: now.toISOString(), expiresAt: expiry(now, days) });
  return { token, info };
}

/** Revoke a token by its id (or the whole token, if that is what the admin has at hand). */
export async function revokeToken(store: TeamStore, idOrToken: string, now = new Date()): Promise<TokenInfo> {
  const id = parseToken(idOrToken)?.id ?? idOrToken.replace(/^mdt_/, '');
  const info = /^[0-9a-f]{16}$/.test(id) ? await store.revokeToken(id, now.toISOString()) : null;
  // Named by its id only: a whole token's secret is never echoed, not even in part.
  const named = /^[0-9a-f]{16}$/.test(id) ? id : `"${idOrToken.slice(0, 20)}"`;
  if (!info) throw new StoreError('not-found', `There is no token ${named}. \`memdir server admin list\` shows token ids.`);
  return info;
}

/** Teams (one, or all) with their members' tokens, secrets never included. */
export async function listMembers(store: TeamStore, team?: string): Promise<(TeamInfo & { tokens: TokenInfo[] })[]> {
  const teams = team === undefined ? await store.listTeams() : [await store.getTeam(team)].filter((t): t is TeamInfo => t !== null);
  if (team !== undefined && teams.length === 0) throw new StoreError('not-found', `There is no team "${team}".`);
  const tokens = await store.listTokens(team);
  return teams.map((t) => ({ ...t, tokens: tokens.filter((k) => k.team === t.name) }));
}

/** User names of personal spaces follow the team-name rule (they appear in the admin's lists and logs). */
function checkUser(user: string): string {
  if (!isTeamName(user)) {
    throw new StoreError(
      'invalid-input',
      `"${user.slice(0, 80)}" is not a valid user name: use lower-case letters, digits and dashes (at most 63), e.g. "alice".`,
    );
  }
  return user;
}

/** Create the personal space of `user` (issue 18): their own memory, synced between their machines, end-to-end encrypted. */
export async function createPersonal(store: TeamStore, user: string, now = new Date()): Promise<PersonalInfo> {
  return store.createPersonal(checkUser(user), randomBytes(4).toString('hex'), now.toISOString());
}

/**
 * Issue a token for one machine (`device`) of `user`'s personal space. It reaches that space's
 * projects only — never a team, and a team token never reaches it.
 */
export async function issuePersonalToken(
  store: TeamStore,
  user: string,
  device = 'machine',
  now = new Date(),
  days?: number,
): Promise<{ token: string; info: TokenInfo }> {
  const name = checkMember(device);
  if ((await store.personalKey(checkUser(user))) === undefined) {
    throw new StoreError('not-found', `There is no personal space for "${user}". Create it first: memdir server admin create-personal ${user}`);
  }
  const { token, id, hash } = generateToken();
  const info = await store.addToken({ id, team: personalSpaceName(user), member: name, hash, createdAt: now.toISOString(), expiresAt: expiry(now, days) });
  return { token, info };
}

/** Personal spaces with their machines' tokens (ids only) and counts — never names or contents, which the server cannot read. */
export async function listPersonalSpaces(store: TeamStore): Promise<(PersonalInfo & { tokens: TokenInfo[] })[]> {
  const spaces = await store.listPersonal();
  const tokens = await store.listTokens();
  return spaces.map((s) => ({ ...s, tokens: tokens.filter((k) => k.team === personalSpaceName(s.user)) }));
}

/**
 * Reset the personal space of `user` for a new passphrase (the old one was lost): its key record
 * and every encrypted entry are deleted — without the old passphrase they are unreadable — and
 * its machines' tokens stay. The next machine to connect sets a new passphrase and uploads its
 * memories again; machines still holding the old key stop with "another key" until reconnected.
 */
export async function resetPersonal(store: TeamStore, user: string): Promise<void> {
  if (!(await store.resetPersonal(checkUser(user)))) throw new StoreError('not-found', `There is no personal space for "${user}".`);
}
