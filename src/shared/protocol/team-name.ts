/**
 * The team-name rule, shared by the sync server (which creates teams and answers 404 for any
 * other name in a URL) and the client (which refuses a bad name before it connects).
 */

/** Team names are URL path segments: lower-case letters, digits and inner dashes, ≤ 63. */
export const TEAM_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Whether `name` is a valid team name (the HTTP layer answers 404 for anything else). */
export function isTeamName(name: string): boolean {
  return TEAM_NAME.test(name);
}
