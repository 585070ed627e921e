/** Human text for any failure a store meets. */
import { RpcError } from '../../shared/contract/rpc-error.js';

export function messageOf(error: unknown): string {
  // An invalid input's message already says each problem in a sentence (the issues, joined).
  if (error instanceof RpcError) return error.message;
  return error instanceof Error ? error.message : String(error);
}
