/**
 * How an alert names its file in words: as its findings name it, so a secret in the file's name
 * stays masked (the alert's `file` keeps the real path, only to open the file). For the host's
 * sentences and the Alerts page alike; no schema here, so the page's first screen stays small.
 */
export function shownFileOf(alert: { file?: string | null; findings: readonly { file: string }[] }): string {
  return alert.findings[0]?.file ?? alert.file ?? 'the file';
}
