/**
 * `@theboss/client`: a typed client for The Boss game service over gRPC-Web, for browsers
 * (and any runtime with fetch). What a front end needs beyond the generated stubs:
 *
 * - `Service.register` / `Service.session`: a player's session, its bearer token on every
 *   call; `Service.spectator`: a session without an account, for watching;
 * - `Session.follow`: a game's `WatchGame` stream that resumes with `after_seq` after any drop
 *   or silence, so a page sees every update once, in order, across server restarts;
 * - `Session.submit`: a turn with one idempotency key per intended turn, retried with that
 *   key while the service is unreachable, for a bounded time (a turn is never played twice);
 * - every call: RESOURCE_EXHAUSTED is waited out when the server says how long (`RetryInfo`);
 * - `errorKind` and friends: what an error means and whether trying again can help.
 *
 * The messages and enums are those generated from `proto/theboss/v1` (re-exported here).
 *
 * @packageDocumentation
 */

export * from "./gen/theboss/v1/model_pb.js";
export * from "./gen/theboss/v1/game_service_pb.js";
export * from "./gen/theboss/v1/ladder_service_pb.js";
export {
  Session,
  Service,
  DEFAULT_RETRY,
  type Credentials,
  type RetryPolicy,
  type Retrying,
  type CallSettings,
  type ServiceOptions,
} from "./session.js";
export { follow, isOver, type FeedItem, type FollowOptions, type WatchSource } from "./feed.js";
export {
  retryDelayMs,
  reasonOf,
  codeOf,
  describeError,
  errorKind,
  isFinal,
  isTransient,
  backoffMs,
  type ErrorKind,
} from "./errors.js";
export { verifyShuffle, seedCommitment, type ShuffleCheck } from "./fairness.js";
export { Code, ConnectError } from "@connectrpc/connect";
