/**
 * A memory operation that cannot go ahead, for a reason a person can act on. Services throw
 * it; the CLI prints its message, the API turns it into a typed error for the app.
 */
import { MemdirError } from '../../shared/errors.js';
export type MemoryErrorCode = 'exists' | 'not-found' | 'conflict' | 'invalid-name' | 'scope-refused' | 'invalid-input' | 'unsafe-path' | 'busy';

export class MemoryError extends MemdirError<MemoryErrorCode> {
  override readonly name = 'MemoryError';
  constructor(
    code: MemoryErrorCode,
    message: string,
    /** For `conflict`: what is on disk now, so the editor can show both versions. */
    readonly current?: string,
  ) {
    super(code, message);
  }
}
