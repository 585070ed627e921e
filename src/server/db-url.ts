/**
 * `--db` as the user types it, read without loading either database driver (the CLI of the
 * desktop app has neither).
 */

/** Whether `db` names a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(db);
}

/**
 * A connection string with its password replaced, for messages and logs: the one after the user
 * name, and a `password=` (or `sslpassword=`) in the query string, which the driver reads too.
 */
export function redactConnectionString(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*):[^@/\s]*@/i, '$1:***@').replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***');
}
