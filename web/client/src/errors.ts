/**
 * What an error from the service says, and what to do about it: its code and ErrorInfo
 * reason, how long a RESOURCE_EXHAUSTED answer asks the caller to wait (google.rpc.RetryInfo),
 * which errors trying again cannot mend (final) and which may pass (transient), and the
 * one backoff every retry of the package and its pages uses.
 *
 * @module
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { BinaryReader } from "@bufbuild/protobuf/wire";

const RETRY_INFO = "google.rpc.RetryInfo";
const ERROR_INFO = "google.rpc.ErrorInfo";

/**
 * The delay a RESOURCE_EXHAUSTED error asks for, in milliseconds; undefined if it gives none
 * (a limit reached rather than a rate: waiting changes nothing).
 */
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

/** The `ErrorInfo` reason of an error (e.g. `NOT_YOUR_TURN`, `RATE_LIMITED`), if it has one. */
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

/** The gRPC code of an error; `Code.Unknown` for anything that is not a `ConnectError`. */
export function codeOf(error: unknown): Code {
  return error instanceof ConnectError ? error.code : Code.Unknown;
}

/**
 * Codes after which repeating a call cannot help: the request itself is wrong, the game is
 * not there, or the caller may not (another token is needed). Anything else (UNAVAILABLE, a
 * lost connection, a server restarting) may be tried again.
 */
const FINAL = new Set([Code.InvalidArgument, Code.NotFound, Code.PermissionDenied, Code.Unauthenticated]);

/** Whether an error is one that trying again cannot mend. */
export function isFinal(error: unknown): boolean {
  return error instanceof ConnectError && FINAL.has(error.code);
}

/**
 * Whether an error is one the same call may well not meet again: the service is
 * UNAVAILABLE (stopping, restarting, its database failing over), or the request never got an
 * answer (the connection failed or was lost: fetch's TypeError, which connect-web reports as
 * UNKNOWN).
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  return error.code === Code.Unavailable || (error.code === Code.Unknown && error.cause instanceof TypeError);
}

/**
 * What a caller should do about an error:
 * - `throttled`: wait as the server asked (`retryDelayMs`), then the same call will be heard;
 * - `transient`: the service could not be reached; the same call may succeed soon;
 * - `final`: the request cannot succeed as it is (bad argument, no such game, not allowed);
 * - `refused`: the service heard it and said no for now (a rule of the game, a stale seq, a
 *   limit reached): look at the game again before deciding.
 */
export type ErrorKind = "throttled" | "transient" | "final" | "refused";

/** Sorts an error into one of the {@link ErrorKind}s. */
export function errorKind(error: unknown): ErrorKind {
  if (retryDelayMs(error) !== undefined) return "throttled";
  if (isTransient(error)) return "transient";
  if (isFinal(error) || !(error instanceof ConnectError)) return "final";
  return "refused";
}

/**
 * How long to wait before trying again after `attempt` failures in a row (from 1): doubling
 * from 200 ms, at most 3 s, so a server that restarts is found again within seconds.
 */
export function backoffMs(attempt: number): number {
  return Math.min(3000, 100 * 2 ** Math.min(Math.max(attempt, 1), 5));
}

/**
 * An error in technical words, for logs and developers: the service's message, with its
 * reason or code. Pages should say something kinder to a person (the reference front end's
 * `app/src/messages.ts`).
 */
export function describeError(error: unknown): string {
  if (error instanceof ConnectError) {
    const reason = reasonOf(error);
    const code = Code[error.code] ?? String(error.code);
    return `${error.rawMessage || code}${reason ? ` (${reason})` : ` (${code})`}`;
  }
  return error instanceof Error ? error.message : String(error);
}
