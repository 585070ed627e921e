/**
 * A dream operation that cannot go ahead (confirm, revert), for a reason a person can act on.
 * The API turns it into a typed error; the CLI prints its message and exits 2.
 */
import { MemdirError } from '../../shared/errors.js';
export class DreamError extends MemdirError<'not-found' | 'conflict' | 'busy' | 'invalid-input'> {
  override readonly name = 'DreamError';
}
