/**
 * The entries of a space — a team, or a project of a personal space — read (GET entries,
 * GET checksums: conditional on the ETag) and written (PUT v1 with If-Match for a team, PUT v2
 * per-key commits for both). Routes and shapes in src/shared/protocol/sync.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { type CommitResponse, PERSONAL_PROJECT_PATTERN, commitRequestSchema, formatEtag, parseEtag, parseEtagList } from '../shared/protocol/sync.js';
import { quoteName } from '../shared/visible-text.js';
import { type AppEnv, conditionalHeaders, fail, methodNotAllowed, noneMatch, notFound } from './http.js';
import type { ServerLimits } from './limits.js';
import { checkWrites, readJsonBody } from './push-body.js';
import type { PutOutcome, TeamState, TeamStore } from './store.js';

const ROUTE_ENTRIES = '/v1/teams/:team/entries';
const ROUTE_CHECKSUMS = '/v1/teams/:team/checksums';
const ROUTE_ENTRIES_V2 = '/v2/teams/:team/entries';
const ROUTE_PERSONAL_ENTRIES = '/v1/personal/projects/:project/entries';
const ROUTE_PERSONAL_CHECKSUMS = '/v1/personal/projects/:project/checksums';
const ROUTE_PERSONAL_ENTRIES_V2 = '/v2/personal/projects/:project/entries';

/** What the routes of a space stand on. */
export interface EntriesRoutesOptions {
  store: TeamStore;
  limits: ServerLimits;
  now: () => Date;
}

/** The space a request reads or writes: its row name in the store and the name its answers carry. */
interface Space {
  name: string;
  label: string;
}

type SpaceOf = (c: Context<AppEnv>) => Promise<Space | Response>;

/** Add the entries and checksums routes of teams and personal projects to `app`. */
export function addEntriesRoutes(app: Hono<AppEnv>, options: EntriesRoutesOptions): void {
  const { store, limits, now } = options;

  /** The answer to a store refusal shared by both protocols. */
  const refusal = (c: Context<AppEnv>, outcome: Extract<PutOutcome, { reason: 'team-full' | 'case-conflict' | 'no-team' }>): Response => {
    switch (outcome.reason) {
      case 'no-team':
        return notFound(c);
      case 'team-full':
        return fail(c, 413, 'team-full', `The team memory may hold at most ${outcome.limit} ${outcome.unit === 'bytes' ? 'bytes of content' : 'entries'}.`, {
          limit: outcome.limit,
        });
      case 'case-conflict':
        return fail(
          c,
          409,
          'case-conflict',
          `${quoteName(outcome.key)} differs from ${quoteName(outcome.existing)} only in letter case; they would be one file on macOS and Windows.`,
          { key: outcome.key },
        );
    }
  };

  // The only team a token may see. Anything else is indistinguishable from a team that does not exist.
  const ownTeam: SpaceOf = async (c) => {
    const team = c.req.param('team');
    const auth = c.get('auth');
    return team !== undefined && auth.scope === 'team' && team === auth.team ? { name: team, label: team } : notFound(c);
  };

  // A project of the caller's personal space, opened (created on first use) by its id.
  const ownProject: SpaceOf = async (c) => {
    const project = c.req.param('project');
    const auth = c.get('auth');
    if (auth.scope !== 'personal' || project === undefined || !PERSONAL_PROJECT_PATTERN.test(project)) return notFound(c);
    const opened = await store.openPersonalProject(
      auth.team.slice(1),
      project,
      randomBytes(4).toString('hex'),
      now().toISOString(),
      limits.maxProjectsPerSpace,
    );
    if (opened.ok) return { name: opened.space, label: project };
    if (opened.reason === 'full') return fail(c, 409, 'space-full', `Your personal space may hold at most ${opened.limit} projects.`, { limit: opened.limit });
    return notFound(c);
  };

  /** A conditional read of a space: its state, or the answer instead (404, or 304 while the client's ETag is current). */
  const readable = async (c: Context<AppEnv>, space: Space): Promise<TeamState | Response> => {
    const current = await store.teamState(space.name);
    if (!current) return notFound(c);
    const inm = c.req.header('if-none-match');
    if (inm && noneMatch(inm, formatEtag(current))) return c.body(null, 304, conditionalHeaders(formatEtag(current)));
    return current;
  };

  /** GET entries of a space (a team, or a project of a personal space): the same answer for both. */
  const getEntries = (spaceOf: SpaceOf) => async (c: Context<AppEnv>) => {
    const space = await spaceOf(c);
    if (space instanceof Response) return space;
    const current = await readable(c, space);
    if (current instanceof Response) return current;
    const since = c.req.query('since');
    const base = since === undefined ? null : parseEtag(since);
    const delta = base !== null && base.epoch === current.epoch && base.version <= current.version;
    const data = await store.readEntries(space.name, delta ? base.version : undefined);
    if (!data) return notFound(c);
    const etag = formatEtag(data.state);
    const entries = Object.fromEntries(
      data.entries
        .sort((a, b) => (a.key < b.key ? -1 : 1))
        .map((e) => [e.key, { content: e.content, sha256: e.sha256, updatedAt: e.updatedAt, updatedBy: e.updatedBy }]),
    );
    return c.json({ team: space.label, version: data.state.version, etag, full: !delta, entries }, 200, conditionalHeaders(etag));
  };

  /** GET checksums of a space. */
  const getChecksums = (spaceOf: SpaceOf) => async (c: Context<AppEnv>) => {
    const space = await spaceOf(c);
    if (space instanceof Response) return space;
    const current = await readable(c, space);
    if (current instanceof Response) return current;
    const data = await store.readChecksums(space.name);
    if (!data) return notFound(c);
    const etag = formatEtag(data.state);
    const checksums = Object.fromEntries(data.checksums.sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    return c.json({ team: space.label, version: data.state.version, etag, checksums }, 200, conditionalHeaders(etag));
  };

  app.get(ROUTE_ENTRIES, getEntries(ownTeam));
  app.get(ROUTE_CHECKSUMS, getChecksums(ownTeam));
  app.get(ROUTE_PERSONAL_ENTRIES, getEntries(ownProject));
  app.get(ROUTE_PERSONAL_CHECKSUMS, getChecksums(ownProject));

  app.put(ROUTE_ENTRIES, async (c) => {
    const owned = await ownTeam(c);
    if (owned instanceof Response) return owned;
    const team = owned.name;
    const auth = c.get('auth');

    const ifMatch = c.req.header('if-match');
    if (!ifMatch || ifMatch.trim() === '' || ifMatch.trim() === '*') {
      return fail(
        c,
        428,
        'precondition-required',
        'A push must send If-Match with the ETag it is based on (from GET entries or checksums); "*" is not accepted.',
      );
    }
    const current = await store.teamState(team);
    if (!current) return notFound(c);
    const stale = (state: TeamState, why: string): Response =>
      fail(c, 412, 'stale', why, { etag: formatEtag(state), version: state.version }, { ETag: formatEtag(state) });
    // Strong comparison, and only our own tags: a weak or foreign tag can never match.
    const base = parseEtagList(ifMatch)
      .filter((t) => !t.weak)
      .map((t) => parseEtag(t.tag))
      .find((t) => t !== null && t.epoch === current.epoch && t.version === current.version);
    // Answer a stale push before reading its body: nothing it says could be applied anyway.
    if (!base) return stale(current, 'The team memory changed since your copy: fetch the checksums, recompute your delta and push again with the new ETag.');

    const parsed = await readJsonBody(c, limits);
    if (parsed instanceof Response) return parsed;
    const shapeError = 'The body must be {"entries": {"<key>.md": "<content>", …}} with string contents.';
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail(c, 400, 'invalid-body', shapeError);
    const fields = Object.keys(parsed);
    const raw = (parsed as { entries?: unknown }).entries;
    if (fields.length !== 1 || fields[0] !== 'entries' || typeof raw !== 'object' || raw === null || Array.isArray(raw))
      return fail(c, 400, 'invalid-body', shapeError);
    // Own properties only (JSON.parse makes "__proto__" an ordinary own key, never a prototype).
    const writes = checkWrites(c, Object.entries(raw), limits);
    if (writes instanceof Response) return writes;

    const outcome = await store.putEntries(team, {
      baseVersion: base.version,
      entries: writes,
      member: auth.member,
      at: now().toISOString(),
      maxEntriesPerTeam: limits.maxEntriesPerTeam,
      maxTeamBytes: limits.maxTeamBytes,
    });
    if (!outcome.ok) {
      if (outcome.reason === 'stale')
        return stale(outcome.state, 'Another push landed first: fetch the checksums, recompute your delta and push again with the new ETag.');
      return refusal(c, outcome);
    }
    const etag = formatEtag(outcome.state);
    return c.json({ version: outcome.state.version, etag, changed: outcome.changed, unchanged: outcome.unchanged }, 200, {
      ETag: etag,
      'Cache-Control': 'no-store',
    });
  });

  // Protocol 2: per-key bases, a client-chosen push id (see src/shared/protocol/sync.ts). The same for a team and a personal project.
  const putCommit = (spaceOf: SpaceOf) => async (c: Context<AppEnv>) => {
    const space = await spaceOf(c);
    if (space instanceof Response) return space;
    const team = space.name;
    const auth = c.get('auth');
    const parsed = await readJsonBody(c, limits);
    if (parsed instanceof Response) return parsed;
    const shape = commitRequestSchema.safeParse(parsed);
    if (!shape.success) {
      return fail(
        c,
        400,
        'invalid-body',
        'The body must be {"pushId": "<16–64 letters, digits, - or _>", "entries": {"<key>.md": {"content": "<text>", "base": "<sha256>" | null}, …}}.',
      );
    }
    const writes = checkWrites(
      c,
      Object.entries(shape.data.entries).map(([key, e]) => [key, e.content]),
      limits,
    );
    if (writes instanceof Response) return writes;
    const outcome = await store.commitEntries(team, {
      pushId: shape.data.pushId,
      entries: writes.map((w) => ({ ...w, base: shape.data.entries[w.key]!.base })),
      member: auth.member,
      at: now().toISOString(),
      maxEntriesPerTeam: limits.maxEntriesPerTeam,
      maxTeamBytes: limits.maxTeamBytes,
      maxPushIds: limits.maxPushIdsPerTeam,
    });
    if (!outcome.ok) return refusal(c, outcome);
    const { result } = outcome;
    const etag = formatEtag({ epoch: result.epoch, version: result.version });
    const body: CommitResponse = {
      pushId: result.pushId,
      version: result.version,
      previousVersion: result.previousVersion,
      etag,
      committed: result.committed,
      unchanged: result.unchanged,
      conflicts: result.conflicts,
      replayed: outcome.replayed,
    };
    return c.json(body, 200, { ETag: etag, 'Cache-Control': 'no-store' });
  };
  app.put(ROUTE_ENTRIES_V2, putCommit(ownTeam));
  app.put(ROUTE_PERSONAL_ENTRIES_V2, putCommit(ownProject));

  // Only the caller's own space learns which methods exist (never opens a personal project).
  const isOwnTeam = (c: Context<AppEnv>): boolean => c.get('auth').scope === 'team' && c.req.param('team') === c.get('auth').team;
  const isOwnProject = (c: Context<AppEnv>): boolean => c.get('auth').scope === 'personal' && PERSONAL_PROJECT_PATTERN.test(c.req.param('project') ?? '');
  const refuseMethod = (own: (c: Context<AppEnv>) => boolean, allow: string) => (c: Context<AppEnv>) => (own(c) ? methodNotAllowed(c, allow) : notFound(c));
  app.on(['POST', 'DELETE', 'PATCH'], ROUTE_ENTRIES, refuseMethod(isOwnTeam, 'GET, HEAD, PUT'));
  app.on(['GET', 'POST', 'DELETE', 'PATCH'], ROUTE_ENTRIES_V2, refuseMethod(isOwnTeam, 'PUT'));
  app.on(['POST', 'PUT', 'DELETE', 'PATCH'], ROUTE_CHECKSUMS, refuseMethod(isOwnTeam, 'GET, HEAD'));
  app.on(['POST', 'PUT', 'DELETE', 'PATCH'], ROUTE_PERSONAL_ENTRIES, refuseMethod(isOwnProject, 'GET, HEAD'));
  app.on(['GET', 'POST', 'DELETE', 'PATCH'], ROUTE_PERSONAL_ENTRIES_V2, refuseMethod(isOwnProject, 'PUT'));
  app.on(['POST', 'PUT', 'DELETE', 'PATCH'], ROUTE_PERSONAL_CHECKSUMS, refuseMethod(isOwnProject, 'GET, HEAD'));
}
