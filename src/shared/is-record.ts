/** A plain JSON object: not null, not an array. The one test every reader of untrusted JSON uses. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
