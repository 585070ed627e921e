/**
 * Personal sync's words that the CLI, main and the app all show (issue 18, item 5), declared once.
 */

/** Shown before a passphrase is set (the first machine of a personal space). */
export const PASSPHRASE_WARNING =
  'Your passphrase encrypts your personal memory on this machine before it goes to the sync server; the server keeps only ciphertext. ' +
  'It is never stored or sent anywhere: this machine keeps only a key derived from it. Every other machine needs the same passphrase. ' +
  'If you lose it, nobody can decrypt the synced copy — not the server’s admin, not Memdir: your memories stay on the machines that have them, ' +
  'but a new machine cannot get them, and to go on syncing the space must be reset and uploaded again. Write it down somewhere safe.';

/** The shortest passphrase accepted for a new space. */
export const MIN_PASSPHRASE_CHARS = 12;
