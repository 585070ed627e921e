/**
 * Structured logs: one JSON object per line. Request lines carry method, route template,
 * team, member, status and duration — never a token, a key's content or a request body.
 */
export type LogRecord = Record<string, string | number | boolean | null | undefined>;
export type Log = (record: LogRecord) => void;

/** A logger writing JSON lines through `write` (stdout by default). */
export function jsonLog(write: (line: string) => void = (line) => process.stdout.write(line)): Log {
  return (record) => write(`${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`);
}

/** Drops everything (tests that do not look at logs). */
export const silentLog: Log = () => undefined;
