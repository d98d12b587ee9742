// What an error from the service says: its code and reason in words, and, for
// RESOURCE_EXHAUSTED, how long the server asks the caller to wait (google.rpc.RetryInfo);
// and what to do about one: whether trying again can help (final, transient), and after how
// long (one backoff for every retry of the package and its pages).

import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader } from "@bufbuild/protobuf/wire";

const RETRY_INFO = "google.rpc.RetryInfo";
const ERROR_INFO = "google.rpc.ErrorInfo";

/// The delay a RESOURCE_EXHAUSTED error asks for, in milliseconds; undefined if it gives none.
export function retryDelayMs(error: unknown): number | undefined {
  if (!(error instanceof ConnectError) || error.code !== Code.ResourceExhausted) {
    return undefined;
  }
  for (const detail of error.details) {
    if ("type" in detail && detail.type === RETRY_INFO) {
      // RetryInfo { google.protobuf.Duration retry_delay = 1; } and
      // Duration { int64 seconds = 1; int32 nanos = 2; }, read by hand: google.rpc is not
      // part of this package's generated code.
      const outer = new BinaryReader(detail.value);
      while (outer.pos < outer.len) {
        const [field, wireType] = outer.tag();
        if (field !== 1) {
          outer.skip(wireType);
          continue;
        }
        const duration = new BinaryReader(outer.bytes());
        let seconds = 0;
        let nanos = 0;
        while (duration.pos < duration.len) {
          const [f, w] = duration.tag();
          if (f === 1) seconds = Number(duration.int64());
          else if (f === 2) nanos = duration.int32();
          else duration.skip(w);
        }
        return seconds * 1000 + Math.ceil(nanos / 1e6);
      }
    }
  }
  return undefined;
}

/// The `ErrorInfo` reason of an error (e.g. `NOT_YOUR_TURN`, `RATE_LIMITED`), if it has one.
export function reasonOf(error: unknown): string | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  for (const detail of error.details) {
    if ("type" in detail && detail.type === ERROR_INFO) {
      // ErrorInfo { string reason = 1; string domain = 2; map<string,string> metadata = 3; }
      const reader = new BinaryReader(detail.value);
      while (reader.pos < reader.len) {
        const [field, wireType] = reader.tag();
        if (field === 1) return reader.string();
        reader.skip(wireType);
      }
    }
  }
  return undefined;
}

/// Codes after which repeating a call cannot help: the request itself is wrong, the game is
/// not there, or the caller may not (another token is needed). Anything else (UNAVAILABLE, a
/// lost connection, a server restarting) may be tried again.
const FINAL = new Set([Code.InvalidArgument, Code.NotFound, Code.PermissionDenied, Code.Unauthenticated]);

/// Whether an error is one that trying again cannot mend.
export function isFinal(error: unknown): boolean {
  return error instanceof ConnectError && FINAL.has(error.code);
}

/// Whether an error is one the same call may well not meet again: the service is
/// UNAVAILABLE (stopping, restarting), or the request never got an answer (the connection
/// failed or was lost: fetch's TypeError, which connect-web reports as UNKNOWN).
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  return error.code === Code.Unavailable || (error.code === Code.Unknown && error.cause instanceof TypeError);
}

/// How long to wait before trying again after `attempt` failures in a row (from 1): doubling
/// from 200 ms, at most 3 s, so a server that restarts is found again within seconds.
export function backoffMs(attempt: number): number {
  return Math.min(3000, 100 * 2 ** Math.min(Math.max(attempt, 1), 5));
}

/// An error in words for a person: the service's message, with its code.
export function describeError(error: unknown): string {
  if (error instanceof ConnectError) {
    const reason = reasonOf(error);
    const code = Code[error.code] ?? String(error.code);
    return `${error.rawMessage || code}${reason ? ` (${reason})` : ` (${code})`}`;
  }
  return error instanceof Error ? error.message : String(error);
}
