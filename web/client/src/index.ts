// @theboss/client: a typed client for The Boss game service over gRPC-Web, for browsers (and
// any runtime with fetch). What a front end needs beyond the generated stubs:
//
// - `Service.register` / `Service.session`: a player's session, its bearer token on every call;
// - `Session.follow`: a game's `WatchGame` stream that resumes with `after_seq` after any drop
//   or silence, so a page sees every update once, in order, across server restarts;
// - `Session.submit`: a turn with one idempotency key per intended turn, retried with that
//   key on UNAVAILABLE or a lost connection (a turn is never played twice);
// - every call: RESOURCE_EXHAUSTED is waited out when the server says how long (`RetryInfo`).
//
// The messages and enums are those generated from `proto/theboss/v1` (re-exported here).

export * from "./gen/theboss/v1/model_pb.js";
export * from "./gen/theboss/v1/game_service_pb.js";
export * from "./gen/theboss/v1/ladder_service_pb.js";
export { Session, Service, type Credentials } from "./session.js";
export { follow, type FeedItem, type FollowOptions } from "./feed.js";
export { retryDelayMs, describeError, isFinal, isTransient, backoffMs } from "./errors.js";
export { verifyShuffle, seedCommitment, type ShuffleCheck } from "./fairness.js";
