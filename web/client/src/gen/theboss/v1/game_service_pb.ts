// The Boss game service — RPCs.
//
// Authentication: every RPC except `Register` needs the metadata
// `authorization: Bearer <api_token>` with the token `Register` returned, but for reading
// what anyone may see: ListGames (public games), GetView, GetCatalogue, GetOdds, WatchGame and
// GetHistory here, Leaderboard, GetPlayer, GetTournament and ListTournaments in
// LadderService may also be called with no `authorization` metadata at all, as an anonymous
// spectator (a wrong token is still UNAUTHENTICATED). Anonymous calls count against their
// address's quota ("anonymous calls per address", by default 10 a second, bursts of 50), and
// the unauthenticated calls an address holds open at once (anonymous WatchGame streams,
// health watches, reflection, requests whose message has not arrived) are capped per
// connection, per address and in all (README, "Limits"): RESOURCE_EXHAUSTED
// TOO_MANY_UNAUTHENTICATED_CALLS.
//
// Errors use standard gRPC codes, with `google.rpc` rich details where they help:
// - INVALID_ARGUMENT: a malformed request (details: BadRequest naming the field);
// - UNAUTHENTICATED: missing or unknown token; PERMISSION_DENIED: not allowed for you;
// - NOT_FOUND: unknown game;
// - FAILED_PRECONDITION: a rule of the game or of the table was broken (details: ErrorInfo
//   with `reason` naming the rule, e.g. "STRICT_LEAD", "TURN_ORDER", "GAME_OVER");
// - ABORTED: `expected_seq` is stale (reason "STALE_SEQ"), i.e. not the game's current seq,
//   whether behind it or ahead of it: fetch the view and try again;
// - UNAVAILABLE: the store or the game is briefly unavailable: retry (with the same
//   idempotency key for SubmitAction).
// - RESOURCE_EXHAUSTED: over a quota or a limit (below). Reason "RATE_LIMITED" for call
//   quotas (details: RetryInfo with how long to wait, QuotaFailure naming the quota's
//   subject, "player:<id>" or "peer:<ip>"). Every authenticated call counts against its
//   player's quota (by default 50 a second, with bursts of 200); registrations count against
//   the caller's address (by default 60 a minute, bursts of 100), and so, apart, do calls with
//   a missing or unknown token (same defaults); challenges count against their challenger
//   besides (by default 20 a minute, bursts of 5). Wait as RetryInfo says and try again: a
//   throttled call did nothing. Other reasons name a limit reached (QuotaFailure says whose;
//   no RetryInfo: trying again changes nothing until the caller lets go of what it holds):
//   TOO_MANY_STREAMS, TOO_MANY_SPECTATORS, TOO_MANY_OPEN_GAMES, TOO_MANY_HOUSE_GAMES,
//   TOO_MANY_CHALLENGES, TOO_MANY_TOURNAMENTS; TOO_MANY_UNAUTHENTICATED_CALLS, which does come
//   with RetryInfo (such calls end within seconds).
//
// Rate-limit metadata. Every response to a call that counts against a quota (above) tells
// the caller what it has left of that quota, so that it can pace itself before it is
// refused: in the response's initial metadata (HTTP headers), or for an answer that is only
// a status (a refusal), in its trailers; names after the IETF RateLimit header fields:
// - `ratelimit-limit`: calls the caller may make at once when its bucket is full (the burst);
// - `ratelimit-remaining`: calls it may make at once now (0 on a throttled call);
// - `ratelimit-reset`: whole seconds (rounded up) until its bucket is full again;
// - `ratelimit-policy`: `<burst>;w=<seconds a whole burst takes to refill>;name="<quota>"`,
//   the quota named as in QuotaFailure ("calls per player", "registrations per address",
//   "calls with an unknown token per address").
// A client that keeps `ratelimit-remaining` above zero, or waits `ratelimit-reset` seconds
// when it reaches zero, is never throttled. Calls outside every quota (health, reflection,
// or a server run with its quotas off) carry none of them.
// Nothing changes when an error is returned. An acknowledged action is durably stored.
//
// What the transport answers before a request reaches the service: a request body that is
// not a valid protobuf encoding of the request message is INVALID_ARGUMENT ("failed to
// decode Protobuf message"); a request message over 64 KiB is OUT_OF_RANGE (tonic's
// "decoded message length too large", refused before it is decoded); neither changes
// anything.
//
// Error messages quote at most a short prefix of anything the client sent; one mistake has
// one code whatever the value (a seat out of range is INVALID_ARGUMENT, seat 7 or seat 256).
//
// Reasons in ErrorInfo (domain "theboss.v1"): the engine's rule names (TURN_ORDER,
// CARD_IN_HAND, PLACEMENT_NOT_EMPTY, CITY_IN_PLAY, BANISHED, CHICAGO_AFTER_ANOTHER_CITY,
// EXPERTS_AVAILABLE, OCCASIONALS_AVAILABLE, OCCASIONALS_NEED_EXPERT, STRICT_LEAD, GAME_OVER),
// the table's (GAME_NOT_OPEN, GAME_NOT_RUNNING, SEAT_TAKEN, TABLE_FULL, ALREADY_SEATED,
// NOT_SEATED (PERMISSION_DENIED), STALE_SEQ, CONCURRENT_WRITE), SET_IN_PROGRESS
// (PERMISSION_DENIED: a table of a duplicate set is watched only by its own players until
// every table of the set has ended) and the limits' (above).
//
// Limits. Every resource one client can hold is bounded, each by a server flag (README,
// "Limits"; defaults in brackets). A connection must send its first request within a few
// seconds of opening [5 s], and each request message must arrive whole within a few seconds
// [10 s]; a connection with no call in flight for a while is closed [300 s] (clients
// reconnect on their next call); the server pings quiet HTTP/2 connections [every 30 s] and
// closes those that do not answer. Connections are capped per address [256] and in all
// [10,000]; a connection carries at most [1,024] concurrent streams. Open WatchGame streams
// are capped per player [64] and, for spectators, per game [256]. Calls whose caller is not
// known yet (no token, or a token not yet checked: health watches, reflection, anonymous
// spectators' streams, requests whose message has not arrived) held open at once are capped
// per connection [32], per client address [128] and in all [4,096], whatever the method:
// RESOURCE_EXHAUSTED TOO_MANY_UNAUTHENTICATED_CALLS, with RetryInfo. A client address is an
// IPv4 address or an IPv6 /64 (behind the operator's trusted proxies, the client it forwards).
// Games a player created that have not started [10]. A game that has not started within [1 hour] of its creation expires: it is
// aborted ("expired"). LadderService: Offers streams per player [4, fixed]; challenges of one
// player waiting for answers [8, fixed]; unfinished tournaments one player created [2,
// fixed], entrants of one tournament [32 at most].

// @generated by protoc-gen-es v2.13.0 with parameter "target=ts,import_extension=js"
// @generated from file theboss/v1/game_service.proto (package theboss.v1, syntax proto3)
/* eslint-disable */

import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
import type { BotStrategy, CityCards, CityOdds, GameEvent, GameSettings, GameStatus, GameSummary, GameView, TurnAction } from "./model_pb.js";
import { file_theboss_v1_model } from "./model_pb.js";
import type { Message } from "@bufbuild/protobuf";

/**
 * Describes the file theboss/v1/game_service.proto.
 */
export const file_theboss_v1_game_service: GenFile = /*@__PURE__*/
  fileDesc("Ch10aGVib3NzL3YxL2dhbWVfc2VydmljZS5wcm90bxIKdGhlYm9zcy52MSJMCg9SZWdpc3RlclJlcXVlc3QSFAoMZGlzcGxheV9uYW1lGAEgASgJEg4KBmlzX2JvdBgCIAEoCBITCgtkZXNjcmlwdGlvbhgDIAEoCSI4ChBSZWdpc3RlclJlc3BvbnNlEhEKCXBsYXllcl9pZBgBIAEoCRIRCglhcGlfdG9rZW4YAiABKAkiiAEKEUNyZWF0ZUdhbWVSZXF1ZXN0EioKCHNldHRpbmdzGAEgASgLMhgudGhlYm9zcy52MS5HYW1lU2V0dGluZ3MSEQoEc2VlZBgCIAEoBEgAiAEBEisKCmhvdXNlX2JvdHMYAyADKA4yFy50aGVib3NzLnYxLkJvdFN0cmF0ZWd5QgcKBV9zZWVkIiUKEkNyZWF0ZUdhbWVSZXNwb25zZRIPCgdnYW1lX2lkGAEgASgJIj4KD0pvaW5HYW1lUmVxdWVzdBIPCgdnYW1lX2lkGAEgASgJEhEKBHNlYXQYAiABKA1IAIgBAUIHCgVfc2VhdCIxChBKb2luR2FtZVJlc3BvbnNlEgwKBHNlYXQYASABKA0SDwoHc3RhcnRlZBgCIAEoCCIjChBMZWF2ZUdhbWVSZXF1ZXN0Eg8KB2dhbWVfaWQYASABKAkiEwoRTGVhdmVHYW1lUmVzcG9uc2UicQoQTGlzdEdhbWVzUmVxdWVzdBIoCghzdGF0dXNlcxgBIAMoDjIWLnRoZWJvc3MudjEuR2FtZVN0YXR1cxIMCgRtaW5lGAIgASgIEhEKCXBhZ2Vfc2l6ZRgDIAEoDRISCgpwYWdlX3Rva2VuGAQgASgJIlQKEUxpc3RHYW1lc1Jlc3BvbnNlEiYKBWdhbWVzGAEgAygLMhcudGhlYm9zcy52MS5HYW1lU3VtbWFyeRIXCg9uZXh0X3BhZ2VfdG9rZW4YAiABKAkiIQoOR2V0Vmlld1JlcXVlc3QSDwoHZ2FtZV9pZBgBIAEoCSI1Cg9HZXRWaWV3UmVzcG9uc2USIgoEdmlldxgBIAEoCzIULnRoZWJvc3MudjEuR2FtZVZpZXciJgoTR2V0Q2F0YWxvZ3VlUmVxdWVzdBIPCgdnYW1lX2lkGAEgASgJIj0KFEdldENhdGFsb2d1ZVJlc3BvbnNlEiUKBmNpdGllcxgBIAMoCzIVLnRoZWJvc3MudjEuQ2l0eUNhcmRzIngKEFdhdGNoR2FtZVJlcXVlc3QSDwoHZ2FtZV9pZBgBIAEoCRIWCglhZnRlcl9zZXEYAiABKARIAIgBARItCgx1cGRhdGVfdmlld3MYAyABKA4yFy50aGVib3NzLnYxLlVwZGF0ZVZpZXdzQgwKCl9hZnRlcl9zZXEinwEKEVdhdGNoR2FtZVJlc3BvbnNlEigKCHNuYXBzaG90GAEgASgLMhQudGhlYm9zcy52MS5HYW1lVmlld0gAEigKBnVwZGF0ZRgCIAEoCzIWLnRoZWJvc3MudjEuR2FtZVVwZGF0ZUgAEisKCmtlZXBfYWxpdmUYAyABKAsyFS50aGVib3NzLnYxLktlZXBBbGl2ZUgAQgkKB21lc3NhZ2UifAoKR2FtZVVwZGF0ZRILCgNzZXEYASABKAQSJAoFZXZlbnQYAiABKAsyFS50aGVib3NzLnYxLkdhbWVFdmVudBIiCgR2aWV3GAMgASgLMhQudGhlYm9zcy52MS5HYW1lVmlldxIXCg9hY3Rpb25fY29tcGxldGUYBCABKAgiSQoJS2VlcEFsaXZlEgsKA3NlcRgBIAEoBBIvCgtzZXJ2ZXJfdGltZRgCIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAirAEKE1N1Ym1pdEFjdGlvblJlcXVlc3QSDwoHZ2FtZV9pZBgBIAEoCRIUCgxleHBlY3RlZF9zZXEYAiABKAQSFwoPaWRlbXBvdGVuY3lfa2V5GAMgASgJEiYKBmFjdGlvbhgEIAEoCzIWLnRoZWJvc3MudjEuVHVybkFjdGlvbhItCgx1cGRhdGVfdmlld3MYBSABKA4yFy50aGVib3NzLnYxLlVwZGF0ZVZpZXdzIkwKFFN1Ym1pdEFjdGlvblJlc3BvbnNlEicKB3VwZGF0ZXMYASADKAsyFi50aGVib3NzLnYxLkdhbWVVcGRhdGUSCwoDc2VxGAIgASgEIiQKEUdldEhpc3RvcnlSZXF1ZXN0Eg8KB2dhbWVfaWQYASABKAkikQEKEkdldEhpc3RvcnlSZXNwb25zZRIpCgdlbnRyaWVzGAEgAygLMhgudGhlYm9zcy52MS5IaXN0b3J5RW50cnkSEQoEc2VlZBgCIAEoBEgAiAEBEhYKCXNlZWRfc2FsdBgDIAEoCUgBiAEBEg4KBnNlZWRlZBgEIAEoCEIHCgVfc2VlZEIMCgpfc2VlZF9zYWx0IiEKDkdldE9kZHNSZXF1ZXN0Eg8KB2dhbWVfaWQYASABKAkiRAoPR2V0T2Rkc1Jlc3BvbnNlEgsKA3NlcRgBIAEoBBIkCgZjaXRpZXMYAiADKAsyFC50aGVib3NzLnYxLkNpdHlPZGRzIisKFFVwZGF0ZVByb2ZpbGVSZXF1ZXN0EhMKC2Rlc2NyaXB0aW9uGAEgASgJIiwKFVVwZGF0ZVByb2ZpbGVSZXNwb25zZRITCgtkZXNjcmlwdGlvbhgBIAEoCSKkAQoSRXhwb3J0R2FtZXNSZXF1ZXN0EjIKDmZpbmlzaGVkX2FmdGVyGAEgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIzCg9maW5pc2hlZF9iZWZvcmUYAiABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEhEKCXBhZ2Vfc2l6ZRgDIAEoDRISCgpwYWdlX3Rva2VuGAQgASgJIk0KE0V4cG9ydEdhbWVzUmVzcG9uc2USEAoGcmVjb3JkGAEgASgJSAASGQoPbmV4dF9wYWdlX3Rva2VuGAIgASgJSABCCQoHbWVzc2FnZSJpCgxIaXN0b3J5RW50cnkSCwoDc2VxGAEgASgEEiQKBWV2ZW50GAIgASgLMhUudGhlYm9zcy52MS5HYW1lRXZlbnQSJgoCYXQYAyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wKmUKC1VwZGF0ZVZpZXdzEhwKGFVQREFURV9WSUVXU19VTlNQRUNJRklFRBAAEhYKElVQREFURV9WSUVXU19FVkVSWRABEiAKHFVQREFURV9WSUVXU19BQ1RJT05fQ09NUExFVEUQAjLrBwoLR2FtZVNlcnZpY2USRQoIUmVnaXN0ZXISGy50aGVib3NzLnYxLlJlZ2lzdGVyUmVxdWVzdBocLnRoZWJvc3MudjEuUmVnaXN0ZXJSZXNwb25zZRJLCgpDcmVhdGVHYW1lEh0udGhlYm9zcy52MS5DcmVhdGVHYW1lUmVxdWVzdBoeLnRoZWJvc3MudjEuQ3JlYXRlR2FtZVJlc3BvbnNlEkUKCEpvaW5HYW1lEhsudGhlYm9zcy52MS5Kb2luR2FtZVJlcXVlc3QaHC50aGVib3NzLnYxLkpvaW5HYW1lUmVzcG9uc2USSAoJTGVhdmVHYW1lEhwudGhlYm9zcy52MS5MZWF2ZUdhbWVSZXF1ZXN0Gh0udGhlYm9zcy52MS5MZWF2ZUdhbWVSZXNwb25zZRJICglMaXN0R2FtZXMSHC50aGVib3NzLnYxLkxpc3RHYW1lc1JlcXVlc3QaHS50aGVib3NzLnYxLkxpc3RHYW1lc1Jlc3BvbnNlEkIKB0dldFZpZXcSGi50aGVib3NzLnYxLkdldFZpZXdSZXF1ZXN0GhsudGhlYm9zcy52MS5HZXRWaWV3UmVzcG9uc2USUQoMR2V0Q2F0YWxvZ3VlEh8udGhlYm9zcy52MS5HZXRDYXRhbG9ndWVSZXF1ZXN0GiAudGhlYm9zcy52MS5HZXRDYXRhbG9ndWVSZXNwb25zZRJKCglXYXRjaEdhbWUSHC50aGVib3NzLnYxLldhdGNoR2FtZVJlcXVlc3QaHS50aGVib3NzLnYxLldhdGNoR2FtZVJlc3BvbnNlMAESUQoMU3VibWl0QWN0aW9uEh8udGhlYm9zcy52MS5TdWJtaXRBY3Rpb25SZXF1ZXN0GiAudGhlYm9zcy52MS5TdWJtaXRBY3Rpb25SZXNwb25zZRJLCgpHZXRIaXN0b3J5Eh0udGhlYm9zcy52MS5HZXRIaXN0b3J5UmVxdWVzdBoeLnRoZWJvc3MudjEuR2V0SGlzdG9yeVJlc3BvbnNlEkIKB0dldE9kZHMSGi50aGVib3NzLnYxLkdldE9kZHNSZXF1ZXN0GhsudGhlYm9zcy52MS5HZXRPZGRzUmVzcG9uc2USVAoNVXBkYXRlUHJvZmlsZRIgLnRoZWJvc3MudjEuVXBkYXRlUHJvZmlsZVJlcXVlc3QaIS50aGVib3NzLnYxLlVwZGF0ZVByb2ZpbGVSZXNwb25zZRJQCgtFeHBvcnRHYW1lcxIeLnRoZWJvc3MudjEuRXhwb3J0R2FtZXNSZXF1ZXN0Gh8udGhlYm9zcy52MS5FeHBvcnRHYW1lc1Jlc3BvbnNlMAFiBnByb3RvMw", [file_google_protobuf_timestamp, file_theboss_v1_model]);

/**
 * @generated from message theboss.v1.RegisterRequest
 */
export type RegisterRequest = Message<"theboss.v1.RegisterRequest"> & {
  /**
   * What others see of the player. The server trims it and normalises it to Unicode
   * Normalization Form C; then it must hold 1..32 characters (Unicode scalar values) and no
   * control (Cc), format (Cf: zero-width characters, bidirectional overrides and isolates),
   * private-use (Co), unassigned (Cn), line or paragraph separator (Zl, Zp) character;
   * otherwise INVALID_ARGUMENT names the first such character (e.g. "U+202E is not
   * allowed"). Names are labels, not identities: they are not unique (two players may both
   * be "Alice"), and clients must tell players apart by `player_id`. Two names are the same
   * when their normalised forms (as returned in views) are equal, code point by code point.
   *
   * @generated from field: string display_name = 1;
   */
  displayName: string;

  /**
   * @generated from field: bool is_bot = 2;
   */
  isBot: boolean;

  /**
   * What the player is, for others to read on the leaderboard and its profile: for a bot,
   * its strategy and version (e.g. "ismcts 100 ms, root width 10, v3"). Normalised as
   * `display_name` is, then 0..200 characters of the same kinds (empty: none).
   *
   * @generated from field: string description = 3;
   */
  description: string;
};

/**
 * Describes the message theboss.v1.RegisterRequest.
 * Use `create(RegisterRequestSchema)` to create a new message.
 */
export const RegisterRequestSchema: GenMessage<RegisterRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 0);

/**
 * @generated from message theboss.v1.RegisterResponse
 */
export type RegisterResponse = Message<"theboss.v1.RegisterResponse"> & {
  /**
   * @generated from field: string player_id = 1;
   */
  playerId: string;

  /**
   * Secret: send as `authorization: Bearer <api_token>`.
   *
   * @generated from field: string api_token = 2;
   */
  apiToken: string;
};

/**
 * Describes the message theboss.v1.RegisterResponse.
 * Use `create(RegisterResponseSchema)` to create a new message.
 */
export const RegisterResponseSchema: GenMessage<RegisterResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 1);

/**
 * @generated from message theboss.v1.CreateGameRequest
 */
export type CreateGameRequest = Message<"theboss.v1.CreateGameRequest"> & {
  /**
   * @generated from field: theboss.v1.GameSettings settings = 1;
   */
  settings?: GameSettings | undefined;

  /**
   * For tests and replays of known deals only: fixes the shuffle. Absent: a random seed.
   * Accepted only for UNLISTED games (INVALID_ARGUMENT otherwise): whoever chose the seed may
   * know every deal, so a seeded game is marked `seeded` in its summary, every view and its
   * history, and is never listed to strangers or rated.
   *
   * @generated from field: optional uint64 seed = 2;
   */
  seed?: bigint | undefined;

  /**
   * Seats the server fills with its own bots ("house bots"), one entry per seat with the
   * strategy it plays, so that one person can play at once: at most `players - 1` entries.
   * They take the table's last seats as it is created; the table starts when its other seats
   * are joined (the creator is not seated by this call: JoinGame). A house bot acts from its
   * own seat's view only, as a remote bot would, is subject to the turn clock, and thinks
   * within the server's think time, the server's thinking shared fairly between the client
   * addresses whose tables wait for it. Games with house bots are never rated. A player
   * creates or sits at a few unfinished games with house bots at most (3 by default): past
   * that, RESOURCE_EXHAUSTED TOO_MANY_HOUSE_GAMES (checked by JoinGame too). While the
   * server's house bots have no room for another table (in all, or for the caller's
   * address), RESOURCE_EXHAUSTED HOUSE_BOTS_BUSY, with RetryInfo.
   *
   * @generated from field: repeated theboss.v1.BotStrategy house_bots = 3;
   */
  houseBots: BotStrategy[];
};

/**
 * Describes the message theboss.v1.CreateGameRequest.
 * Use `create(CreateGameRequestSchema)` to create a new message.
 */
export const CreateGameRequestSchema: GenMessage<CreateGameRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 2);

/**
 * @generated from message theboss.v1.CreateGameResponse
 */
export type CreateGameResponse = Message<"theboss.v1.CreateGameResponse"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;
};

/**
 * Describes the message theboss.v1.CreateGameResponse.
 * Use `create(CreateGameResponseSchema)` to create a new message.
 */
export const CreateGameResponseSchema: GenMessage<CreateGameResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 3);

/**
 * @generated from message theboss.v1.JoinGameRequest
 */
export type JoinGameRequest = Message<"theboss.v1.JoinGameRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;

  /**
   * A given seat; absent: the first free seat.
   *
   * @generated from field: optional uint32 seat = 2;
   */
  seat?: number | undefined;
};

/**
 * Describes the message theboss.v1.JoinGameRequest.
 * Use `create(JoinGameRequestSchema)` to create a new message.
 */
export const JoinGameRequestSchema: GenMessage<JoinGameRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 4);

/**
 * @generated from message theboss.v1.JoinGameResponse
 */
export type JoinGameResponse = Message<"theboss.v1.JoinGameResponse"> & {
  /**
   * @generated from field: uint32 seat = 1;
   */
  seat: number;

  /**
   * Whether this join filled the table and started the game.
   *
   * @generated from field: bool started = 2;
   */
  started: boolean;
};

/**
 * Describes the message theboss.v1.JoinGameResponse.
 * Use `create(JoinGameResponseSchema)` to create a new message.
 */
export const JoinGameResponseSchema: GenMessage<JoinGameResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 5);

/**
 * @generated from message theboss.v1.LeaveGameRequest
 */
export type LeaveGameRequest = Message<"theboss.v1.LeaveGameRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;
};

/**
 * Describes the message theboss.v1.LeaveGameRequest.
 * Use `create(LeaveGameRequestSchema)` to create a new message.
 */
export const LeaveGameRequestSchema: GenMessage<LeaveGameRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 6);

/**
 * @generated from message theboss.v1.LeaveGameResponse
 */
export type LeaveGameResponse = Message<"theboss.v1.LeaveGameResponse"> & {
};

/**
 * Describes the message theboss.v1.LeaveGameResponse.
 * Use `create(LeaveGameResponseSchema)` to create a new message.
 */
export const LeaveGameResponseSchema: GenMessage<LeaveGameResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 7);

/**
 * @generated from message theboss.v1.ListGamesRequest
 */
export type ListGamesRequest = Message<"theboss.v1.ListGamesRequest"> & {
  /**
   * Empty: every status. At most 4 values.
   *
   * @generated from field: repeated theboss.v1.GameStatus statuses = 1;
   */
  statuses: GameStatus[];

  /**
   * Only games the caller is seated in.
   *
   * @generated from field: bool mine = 2;
   */
  mine: boolean;

  /**
   * 1..100; 0 means 20.
   *
   * @generated from field: uint32 page_size = 3;
   */
  pageSize: number;

  /**
   * From a previous response's `next_page_token`.
   *
   * @generated from field: string page_token = 4;
   */
  pageToken: string;
};

/**
 * Describes the message theboss.v1.ListGamesRequest.
 * Use `create(ListGamesRequestSchema)` to create a new message.
 */
export const ListGamesRequestSchema: GenMessage<ListGamesRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 8);

/**
 * @generated from message theboss.v1.ListGamesResponse
 */
export type ListGamesResponse = Message<"theboss.v1.ListGamesResponse"> & {
  /**
   * @generated from field: repeated theboss.v1.GameSummary games = 1;
   */
  games: GameSummary[];

  /**
   * Empty when there are no more pages.
   *
   * @generated from field: string next_page_token = 2;
   */
  nextPageToken: string;
};

/**
 * Describes the message theboss.v1.ListGamesResponse.
 * Use `create(ListGamesResponseSchema)` to create a new message.
 */
export const ListGamesResponseSchema: GenMessage<ListGamesResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 9);

/**
 * @generated from message theboss.v1.GetViewRequest
 */
export type GetViewRequest = Message<"theboss.v1.GetViewRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;
};

/**
 * Describes the message theboss.v1.GetViewRequest.
 * Use `create(GetViewRequestSchema)` to create a new message.
 */
export const GetViewRequestSchema: GenMessage<GetViewRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 10);

/**
 * @generated from message theboss.v1.GetViewResponse
 */
export type GetViewResponse = Message<"theboss.v1.GetViewResponse"> & {
  /**
   * @generated from field: theboss.v1.GameView view = 1;
   */
  view?: GameView | undefined;
};

/**
 * Describes the message theboss.v1.GetViewResponse.
 * Use `create(GetViewResponseSchema)` to create a new message.
 */
export const GetViewResponseSchema: GenMessage<GetViewResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 11);

/**
 * @generated from message theboss.v1.GetCatalogueRequest
 */
export type GetCatalogueRequest = Message<"theboss.v1.GetCatalogueRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;
};

/**
 * Describes the message theboss.v1.GetCatalogueRequest.
 * Use `create(GetCatalogueRequestSchema)` to create a new message.
 */
export const GetCatalogueRequestSchema: GenMessage<GetCatalogueRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 12);

/**
 * @generated from message theboss.v1.GetCatalogueResponse
 */
export type GetCatalogueResponse = Message<"theboss.v1.GetCatalogueResponse"> & {
  /**
   * The cities in play, in the order of GameView.cities, each with all its cards.
   *
   * @generated from field: repeated theboss.v1.CityCards cities = 1;
   */
  cities: CityCards[];
};

/**
 * Describes the message theboss.v1.GetCatalogueResponse.
 * Use `create(GetCatalogueResponseSchema)` to create a new message.
 */
export const GetCatalogueResponseSchema: GenMessage<GetCatalogueResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 13);

/**
 * @generated from message theboss.v1.WatchGameRequest
 */
export type WatchGameRequest = Message<"theboss.v1.WatchGameRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;

  /**
   * Resume after this sequence number: the updates missed are sent first, then live ones
   * (0 replays every event the caller may see). Ahead of the game: INVALID_ARGUMENT.
   * Absent: start with a snapshot.
   *
   * @generated from field: optional uint64 after_seq = 2;
   */
  afterSeq?: bigint | undefined;

  /**
   * Which updates carry the view; unspecified means every update.
   *
   * @generated from field: theboss.v1.UpdateViews update_views = 3;
   */
  updateViews: UpdateViews;
};

/**
 * Describes the message theboss.v1.WatchGameRequest.
 * Use `create(WatchGameRequestSchema)` to create a new message.
 */
export const WatchGameRequestSchema: GenMessage<WatchGameRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 14);

/**
 * @generated from message theboss.v1.WatchGameResponse
 */
export type WatchGameResponse = Message<"theboss.v1.WatchGameResponse"> & {
  /**
   * @generated from oneof theboss.v1.WatchGameResponse.message
   */
  message: {
    /**
     * The current view; sent first when `after_seq` is absent.
     *
     * @generated from field: theboss.v1.GameView snapshot = 1;
     */
    value: GameView;
    case: "snapshot";
  } | {
    /**
     * @generated from field: theboss.v1.GameUpdate update = 2;
     */
    value: GameUpdate;
    case: "update";
  } | {
    /**
     * @generated from field: theboss.v1.KeepAlive keep_alive = 3;
     */
    value: KeepAlive;
    case: "keepAlive";
  } | { case: undefined; value?: undefined };
};

/**
 * Describes the message theboss.v1.WatchGameResponse.
 * Use `create(WatchGameResponseSchema)` to create a new message.
 */
export const WatchGameResponseSchema: GenMessage<WatchGameResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 15);

/**
 * One event and the view once the action that caused it is complete (the events of one
 * action, e.g. a last turn and the round's resolution, share that view; with
 * UPDATE_VIEWS_ACTION_COMPLETE only the last of them carries it). Sequence numbers increase
 * by one per event (including events this viewer cannot see, so gaps are normal for
 * private events).
 *
 * @generated from message theboss.v1.GameUpdate
 */
export type GameUpdate = Message<"theboss.v1.GameUpdate"> & {
  /**
   * @generated from field: uint64 seq = 1;
   */
  seq: bigint;

  /**
   * @generated from field: theboss.v1.GameEvent event = 2;
   */
  event?: GameEvent | undefined;

  /**
   * @generated from field: theboss.v1.GameView view = 3;
   */
  view?: GameView | undefined;

  /**
   * This is the last update of its action that this viewer receives: clients that act on
   * the view (e.g. play when it is their turn) can do so now.
   *
   * @generated from field: bool action_complete = 4;
   */
  actionComplete: boolean;
};

/**
 * Describes the message theboss.v1.GameUpdate.
 * Use `create(GameUpdateSchema)` to create a new message.
 */
export const GameUpdateSchema: GenMessage<GameUpdate> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 16);

/**
 * Sent when nothing else happened for a while, so clients can tell a dead stream.
 *
 * @generated from message theboss.v1.KeepAlive
 */
export type KeepAlive = Message<"theboss.v1.KeepAlive"> & {
  /**
   * The latest sequence number.
   *
   * @generated from field: uint64 seq = 1;
   */
  seq: bigint;

  /**
   * @generated from field: google.protobuf.Timestamp server_time = 2;
   */
  serverTime?: Timestamp | undefined;
};

/**
 * Describes the message theboss.v1.KeepAlive.
 * Use `create(KeepAliveSchema)` to create a new message.
 */
export const KeepAliveSchema: GenMessage<KeepAlive> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 17);

/**
 * @generated from message theboss.v1.SubmitActionRequest
 */
export type SubmitActionRequest = Message<"theboss.v1.SubmitActionRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;

  /**
   * The `seq` of the view the action was chosen from. A stale value fails with ABORTED.
   *
   * @generated from field: uint64 expected_seq = 2;
   */
  expectedSeq: bigint;

  /**
   * Unique per intended action of this player in this game (e.g. a UUID), at most 128
   * bytes. Retrying with the same key returns the first result and does not play the turn
   * twice, even across server restarts; the same key with another action is
   * INVALID_ARGUMENT. Empty: no deduplication.
   *
   * @generated from field: string idempotency_key = 3;
   */
  idempotencyKey: string;

  /**
   * @generated from field: theboss.v1.TurnAction action = 4;
   */
  action?: TurnAction | undefined;

  /**
   * Which of the response's updates carry the view; unspecified means every update.
   *
   * @generated from field: theboss.v1.UpdateViews update_views = 5;
   */
  updateViews: UpdateViews;
};

/**
 * Describes the message theboss.v1.SubmitActionRequest.
 * Use `create(SubmitActionRequestSchema)` to create a new message.
 */
export const SubmitActionRequestSchema: GenMessage<SubmitActionRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 18);

/**
 * @generated from message theboss.v1.SubmitActionResponse
 */
export type SubmitActionResponse = Message<"theboss.v1.SubmitActionResponse"> & {
  /**
   * The events the turn caused, as the caller may see them.
   *
   * @generated from field: repeated theboss.v1.GameUpdate updates = 1;
   */
  updates: GameUpdate[];

  /**
   * The game's sequence number after the turn. It numbers the action's last event, which
   * may be private to another seat (e.g. the hands dealt to the others when the turn ends a
   * round), so the caller's own stream may never carry an update with this seq. A client is
   * caught up with its action once it holds a view (a snapshot, or the view of the update
   * with `action_complete`) whose `seq` is at least this one, or a keep-alive whose `seq`
   * is: views and keep-alives count every event, seen or not.
   *
   * @generated from field: uint64 seq = 2;
   */
  seq: bigint;
};

/**
 * Describes the message theboss.v1.SubmitActionResponse.
 * Use `create(SubmitActionResponseSchema)` to create a new message.
 */
export const SubmitActionResponseSchema: GenMessage<SubmitActionResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 19);

/**
 * @generated from message theboss.v1.GetHistoryRequest
 */
export type GetHistoryRequest = Message<"theboss.v1.GetHistoryRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;
};

/**
 * Describes the message theboss.v1.GetHistoryRequest.
 * Use `create(GetHistoryRequestSchema)` to create a new message.
 */
export const GetHistoryRequestSchema: GenMessage<GetHistoryRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 20);

/**
 * @generated from message theboss.v1.GetHistoryResponse
 */
export type GetHistoryResponse = Message<"theboss.v1.GetHistoryResponse"> & {
  /**
   * Every event the caller may see (all of them once the game is over), in order. For a
   * table of a duplicate set, "over" means every table of the set has ended: until then a
   * finished table's history shows only what its caller saw during play.
   *
   * @generated from field: repeated theboss.v1.HistoryEntry entries = 1;
   */
  entries: HistoryEntry[];

  /**
   * Present once the game is over (for a duplicate set, once every table has ended), so the
   * deal can be audited: the game is fully defined by its settings, this seed and the turns
   * in `entries`.
   *
   * @generated from field: optional uint64 seed = 2;
   */
  seed?: bigint | undefined;

  /**
   * Present once the game is over (for games with a `GameView.seed_commitment`): the salt
   * that, with `seed`, hashes to the commitment every view showed.
   *
   * @generated from field: optional string seed_salt = 3;
   */
  seedSalt?: string | undefined;

  /**
   * The creator chose the seed (as in `GameSummary.seeded`).
   *
   * @generated from field: bool seeded = 4;
   */
  seeded: boolean;
};

/**
 * Describes the message theboss.v1.GetHistoryResponse.
 * Use `create(GetHistoryResponseSchema)` to create a new message.
 */
export const GetHistoryResponseSchema: GenMessage<GetHistoryResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 21);

/**
 * @generated from message theboss.v1.GetOddsRequest
 */
export type GetOddsRequest = Message<"theboss.v1.GetOddsRequest"> & {
  /**
   * @generated from field: string game_id = 1;
   */
  gameId: string;
};

/**
 * Describes the message theboss.v1.GetOddsRequest.
 * Use `create(GetOddsRequestSchema)` to create a new message.
 */
export const GetOddsRequestSchema: GenMessage<GetOddsRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 22);

/**
 * @generated from message theboss.v1.GetOddsResponse
 */
export type GetOddsResponse = Message<"theboss.v1.GetOddsResponse"> & {
  /**
   * The sequence number of the view the odds come from.
   *
   * @generated from field: uint64 seq = 1;
   */
  seq: bigint;

  /**
   * One per city that has a face-down card this round, left to right (empty between
   * rounds and once the game is over).
   *
   * @generated from field: repeated theboss.v1.CityOdds cities = 2;
   */
  cities: CityOdds[];
};

/**
 * Describes the message theboss.v1.GetOddsResponse.
 * Use `create(GetOddsResponseSchema)` to create a new message.
 */
export const GetOddsResponseSchema: GenMessage<GetOddsResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 23);

/**
 * @generated from message theboss.v1.UpdateProfileRequest
 */
export type UpdateProfileRequest = Message<"theboss.v1.UpdateProfileRequest"> & {
  /**
   * The new description, checked as `RegisterRequest.description` (empty clears it).
   *
   * @generated from field: string description = 1;
   */
  description: string;
};

/**
 * Describes the message theboss.v1.UpdateProfileRequest.
 * Use `create(UpdateProfileRequestSchema)` to create a new message.
 */
export const UpdateProfileRequestSchema: GenMessage<UpdateProfileRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 24);

/**
 * @generated from message theboss.v1.UpdateProfileResponse
 */
export type UpdateProfileResponse = Message<"theboss.v1.UpdateProfileResponse"> & {
  /**
   * The description as the server keeps it (trimmed and normalised).
   *
   * @generated from field: string description = 1;
   */
  description: string;
};

/**
 * Describes the message theboss.v1.UpdateProfileResponse.
 * Use `create(UpdateProfileResponseSchema)` to create a new message.
 */
export const UpdateProfileResponseSchema: GenMessage<UpdateProfileResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 25);

/**
 * @generated from message theboss.v1.ExportGamesRequest
 */
export type ExportGamesRequest = Message<"theboss.v1.ExportGamesRequest"> & {
  /**
   * Only games that finished at or after this time (absent: from the first).
   *
   * @generated from field: google.protobuf.Timestamp finished_after = 1;
   */
  finishedAfter?: Timestamp | undefined;

  /**
   * Only games that finished before this time (absent: up to now).
   *
   * @generated from field: google.protobuf.Timestamp finished_before = 2;
   */
  finishedBefore?: Timestamp | undefined;

  /**
   * Records in this call's stream, 1..200; 0 means 50.
   *
   * @generated from field: uint32 page_size = 3;
   */
  pageSize: number;

  /**
   * From the previous call's `next_page_token`, with the same time filters; a token this
   * service did not make is INVALID_ARGUMENT.
   *
   * @generated from field: string page_token = 4;
   */
  pageToken: string;
};

/**
 * Describes the message theboss.v1.ExportGamesRequest.
 * Use `create(ExportGamesRequestSchema)` to create a new message.
 */
export const ExportGamesRequestSchema: GenMessage<ExportGamesRequest> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 26);

/**
 * @generated from message theboss.v1.ExportGamesResponse
 */
export type ExportGamesResponse = Message<"theboss.v1.ExportGamesResponse"> & {
  /**
   * @generated from oneof theboss.v1.ExportGamesResponse.message
   */
  message: {
    /**
     * One finished game: a JSON document on one line, in the format of
     * docs/game-record.schema.json (`"format": "theboss-game-record"`, `"version": 1`): the
     * players, the rules version, the cities, the seed, its salt and commitment, every turn
     * with its time, every event and the final standings. Write one per line to keep NDJSON.
     * A table of a duplicate set comes only once every table of the set has ended (until
     * then its deal is secret); aborted games are not exported. Each record after the first
     * counts against the caller's call quota as a call does: a page streams no faster than
     * the quota allows (it waits, it is not refused).
     *
     * @generated from field: string record = 1;
     */
    value: string;
    case: "record";
  } | {
    /**
     * Sent last when more games remain: call again with it as `page_token`.
     *
     * @generated from field: string next_page_token = 2;
     */
    value: string;
    case: "nextPageToken";
  } | { case: undefined; value?: undefined };
};

/**
 * Describes the message theboss.v1.ExportGamesResponse.
 * Use `create(ExportGamesResponseSchema)` to create a new message.
 */
export const ExportGamesResponseSchema: GenMessage<ExportGamesResponse> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 27);

/**
 * @generated from message theboss.v1.HistoryEntry
 */
export type HistoryEntry = Message<"theboss.v1.HistoryEntry"> & {
  /**
   * @generated from field: uint64 seq = 1;
   */
  seq: bigint;

  /**
   * @generated from field: theboss.v1.GameEvent event = 2;
   */
  event?: GameEvent | undefined;

  /**
   * When the action that caused the event was committed.
   *
   * @generated from field: google.protobuf.Timestamp at = 3;
   */
  at?: Timestamp | undefined;
};

/**
 * Describes the message theboss.v1.HistoryEntry.
 * Use `create(HistoryEntrySchema)` to create a new message.
 */
export const HistoryEntrySchema: GenMessage<HistoryEntry> = /*@__PURE__*/
  messageDesc(file_theboss_v1_game_service, 28);

/**
 * Which of an action's updates carry the view after the action.
 *
 * @generated from enum theboss.v1.UpdateViews
 */
export enum UpdateViews {
  /**
   * As UPDATE_VIEWS_EVERY.
   *
   * @generated from enum value: UPDATE_VIEWS_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * Every update carries the view (the same one for all the updates of one action).
   *
   * @generated from enum value: UPDATE_VIEWS_EVERY = 1;
   */
  EVERY = 1,

  /**
   * Only the action's last update, the one with `action_complete`, carries it: all a client
   * that acts on views needs, and each action's view is sent once instead of once per event.
   *
   * @generated from enum value: UPDATE_VIEWS_ACTION_COMPLETE = 2;
   */
  ACTION_COMPLETE = 2,
}

/**
 * Describes the enum theboss.v1.UpdateViews.
 */
export const UpdateViewsSchema: GenEnum<UpdateViews> = /*@__PURE__*/
  enumDesc(file_theboss_v1_game_service, 0);

/**
 * @generated from service theboss.v1.GameService
 */
export const GameService: GenService<{
  /**
   * Creates a player and returns its secret API token. No authentication needed.
   *
   * @generated from rpc theboss.v1.GameService.Register
   */
  register: {
    methodKind: "unary";
    input: typeof RegisterRequestSchema;
    output: typeof RegisterResponseSchema;
  },
  /**
   * Creates a game; the creator is not seated until it joins.
   *
   * @generated from rpc theboss.v1.GameService.CreateGame
   */
  createGame: {
    methodKind: "unary";
    input: typeof CreateGameRequestSchema;
    output: typeof CreateGameResponseSchema;
  },
  /**
   * Takes a seat in an open game. The game starts when every seat is taken.
   *
   * @generated from rpc theboss.v1.GameService.JoinGame
   */
  joinGame: {
    methodKind: "unary";
    input: typeof JoinGameRequestSchema;
    output: typeof JoinGameResponseSchema;
  },
  /**
   * Gives a seat back before the game starts. In a running game it resigns the caller's
   * seat: the seat is forfeited (`SeatView.forfeited`) and the server plays its turns until
   * the game ends (`TurnTaken.by_timeout`); everyone sees `PlayerLeft` with `resigned`. A game
   * in which every seat but the house bots' has forfeited is aborted at once. Resigning
   * again changes nothing; a finished game is FAILED_PRECONDITION GAME_OVER.
   *
   * @generated from rpc theboss.v1.GameService.LeaveGame
   */
  leaveGame: {
    methodKind: "unary";
    input: typeof LeaveGameRequestSchema;
    output: typeof LeaveGameResponseSchema;
  },
  /**
   * Lists games, newest first: by `created_at`, then by `game_id`, both descending (a
   * total order, so paging never skips or repeats a game, even among games created at
   * once). Public games, and the caller's own: an UNLISTED game is listed to its creator
   * and to its players, never to others.
   *
   * @generated from rpc theboss.v1.GameService.ListGames
   */
  listGames: {
    methodKind: "unary";
    input: typeof ListGamesRequestSchema;
    output: typeof ListGamesResponseSchema;
  },
  /**
   * The caller's current view: its seat's view if seated, a spectator's otherwise.
   *
   * @generated from rpc theboss.v1.GameService.GetView
   */
  getView: {
    methodKind: "unary";
    input: typeof GetViewRequestSchema;
    output: typeof GetViewResponseSchema;
  },
  /**
   * The cards of a game's city set: every card that exists in it, by city, with what each
   * shows (money or a sanction). With it a client needs nothing but this contract to know
   * which cards a face-down card can be, or what is left to be played.
   *
   * @generated from rpc theboss.v1.GameService.GetCatalogue
   */
  getCatalogue: {
    methodKind: "unary";
    input: typeof GetCatalogueRequestSchema;
    output: typeof GetCatalogueResponseSchema;
  },
  /**
   * A snapshot (or, with `after_seq`, the updates missed), then one update per event as the
   * caller may see it, and keep-alives. The stream ends after the game's final update;
   * if the server shuts down it ends with UNAVAILABLE: reconnect with `after_seq`.
   *
   * @generated from rpc theboss.v1.GameService.WatchGame
   */
  watchGame: {
    methodKind: "server_streaming";
    input: typeof WatchGameRequestSchema;
    output: typeof WatchGameResponseSchema;
  },
  /**
   * Plays the caller's turn.
   *
   * @generated from rpc theboss.v1.GameService.SubmitAction
   */
  submitAction: {
    methodKind: "unary";
    input: typeof SubmitActionRequestSchema;
    output: typeof SubmitActionResponseSchema;
  },
  /**
   * The event log as the caller may see it; everything once the game is over.
   *
   * @generated from rpc theboss.v1.GameService.GetHistory
   */
  getHistory: {
    methodKind: "unary";
    input: typeof GetHistoryRequestSchema;
    output: typeof GetHistoryResponseSchema;
  },
  /**
   * What each face-down card can be, with its probability, as the caller can deduce it from
   * its own view (its hand, the cards played, the backs of the hands): the deduction a seat
   * makes, computed by the server so that a client needs no rules code. A spectator gets
   * what a spectator can deduce. Nothing the caller may not know goes into it.
   *
   * @generated from rpc theboss.v1.GameService.GetOdds
   */
  getOdds: {
    methodKind: "unary";
    input: typeof GetOddsRequestSchema;
    output: typeof GetOddsResponseSchema;
  },
  /**
   * Changes what others read of the caller: its description (see RegisterRequest).
   *
   * @generated from rpc theboss.v1.GameService.UpdateProfile
   */
  updateProfile: {
    methodKind: "unary";
    input: typeof UpdateProfileRequestSchema;
    output: typeof UpdateProfileResponseSchema;
  },
  /**
   * The caller's finished games as game records, newest first, one page per call: one
   * record per message (NDJSON-friendly), then, if more remain, a `next_page_token`.
   *
   * @generated from rpc theboss.v1.GameService.ExportGames
   */
  exportGames: {
    methodKind: "server_streaming";
    input: typeof ExportGamesRequestSchema;
    output: typeof ExportGamesResponseSchema;
  },
}> = /*@__PURE__*/
  serviceDesc(file_theboss_v1_game_service, 0);

