/** Node's system errors, asked one way everywhere (issue 17: one helper instead of four copies). */

/** The `code` of a Node system error (`ENOENT`, `EEXIST`, …), or undefined for anything else. */
export function errCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The codes of a write the disk itself refused: full, out of quota, read-only, not allowed. */
const DISK_REFUSALS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM']);

/**
 * Whether `err`, or an error it was made from (its `cause`s), is the disk refusing a write: what a
 * change that stopped half-way takes back (history's transact), so none is left half-made.
 */
export function isDiskRefusal(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (DISK_REFUSALS.has(errCode(e) ?? '')) return true;
  }
  return false;
}
