/** Human text for any failure a store meets. */
import { RpcError } from '../../shared/contract/define.js';

export function messageOf(error: unknown): string {
  if (error instanceof RpcError) return error.issues?.length ? `${error.message} ${error.issues.join('; ')}` : error.message;
  return error instanceof Error ? error.message : String(error);
}
