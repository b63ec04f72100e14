import { LocalError } from '../jsonrpc/errors.js';

// How the engine reports an aborted or failed operation: small helpers shared by the peer's
// outgoing and incoming sides.

/** The abort reason as a sentence ("This operation was aborted", not "AbortError: ..."). */
export function reasonText(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
}

export function abortError(method: string, signal: AbortSignal): LocalError {
  return new LocalError('aborted', `Request "${method}" was aborted: ${reasonText(signal)}`);
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
