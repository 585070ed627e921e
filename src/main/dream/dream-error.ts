/**
 * A dream operation that cannot go ahead (confirm, revert), for a reason a person can act on.
 * The API turns it into a typed error; the CLI prints its message and exits 2.
 */
export class DreamError extends Error {
  override readonly name = 'DreamError';
  constructor(
    readonly code: 'not-found' | 'conflict' | 'busy' | 'invalid-input',
    message: string,
  ) {
    super(message);
  }
}
