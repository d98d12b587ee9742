/**
 * Sessions with the service: a player's (every call with its bearer token) or a spectator's
 * (no token: the calls the contract allows anonymously). Every call waits out
 * RESOURCE_EXHAUSTED as the server asks (RetryInfo); calls safe to repeat, turns included
 * (they keep their idempotency key), are retried with backoff for a bounded time while the
 * service is unreachable, so a page rides through a restart or a database failover.
 *
 * @module
 */

import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { backoffMs, isTransient, retryDelayMs } from "./errors.js";
import { follow, type FeedItem, type FollowOptions, type WatchSource } from "./feed.js";
import {
  GameService,
  type CreateGameRequest,
  CreateGameRequestSchema,
  type GetHistoryResponse,
  type GetOddsResponse,
  type JoinGameResponse,
  type SubmitActionResponse,
  UpdateViews,
  type WatchGameRequestSchema,
  type WatchGameResponse,
} from "./gen/theboss/v1/game_service_pb.js";
import {
  LadderService,
  type Challenge,
  type EnqueueResponse,
  type GetPlayerResponse,
  type GetTournamentResponse,
  type LeaderboardResponse,
  type OffersResponse,
  type Tournament,
} from "./gen/theboss/v1/ladder_service_pb.js";
import {
  type CityCards,
  type GameStatus,
  type GameSummary,
  type GameView,
  type TurnAction,
  type TurnActionSchema,
  PlayerKind,
} from "./gen/theboss/v1/model_pb.js";

/** Who a session acts as: keep both to come back as the same player. */
export interface Credentials {
  playerId: string;
  token: string;
}

/** How long and how often calls are tried again. */
export interface RetryPolicy {
  /** The longest a call waits, in all, for RESOURCE_EXHAUSTED answers that say how long. */
  throttleBudgetMs: number;
  /**
   * How long a call safe to repeat keeps being tried while the service is unreachable,
   * counted from its first such failure (a failover takes seconds; a page should not hang
   * on a service that is gone).
   */
  transientBudgetMs: number;
  /** The wait before the next attempt after `attempt` failures in a row (from 1). */
  backoffMs: (attempt: number) => number;
}

/** The policy sessions use unless told otherwise: 30 s for each budget, {@link backoffMs}. */
export const DEFAULT_RETRY: RetryPolicy = { throttleBudgetMs: 30_000, transientBudgetMs: 30_000, backoffMs };

/** A retry about to happen, for a caller that shows it ("reconnecting…"). */
export interface Retrying {
  /** `throttled`: the server asked to wait; `transient`: it could not be reached. */
  kind: "throttled" | "transient";
  error: unknown;
  /** Failures of this call so far, from 1. */
  attempt: number;
  waitMs: number;
}

/** What a caller may add to one call. */
export interface CallSettings {
  signal?: AbortSignal;
  /** Told before each wait for a retry. */
  onRetry?: (retrying: Retrying) => void;
}

/** How a {@link Service} is built: another transport (tests), another retry policy. */
export interface ServiceOptions {
  transport?: Transport;
  retry?: Partial<RetryPolicy>;
}

/** Why a signal aborted, as an Error (a signal may be aborted with any value). */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("The call was aborted", "AbortError");
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const done = () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal?.addEventListener("abort", abort, { once: true });
  });

/** The service at one base URL (the page's own origin, for the reference front end). */
export class Service {
  readonly transport: Transport;
  readonly games: Client<typeof GameService>;
  readonly ladder: Client<typeof LadderService>;
  readonly retry: RetryPolicy;

  constructor(
    readonly baseUrl: string,
    options: ServiceOptions | Transport = {},
  ) {
    // A transport alone was this constructor's second argument before options existed.
    const o: ServiceOptions = "unary" in options ? { transport: options } : options;
    this.transport = o.transport ?? createGrpcWebTransport({ baseUrl, useBinaryFormat: true });
    this.games = createClient(GameService, this.transport);
    this.ladder = createClient(LadderService, this.transport);
    this.retry = { ...DEFAULT_RETRY, ...o.retry };
  }

  /**
   * A new player. Registration is not retried: a lost answer would leave an account nobody
   * holds the token of.
   */
  async register(displayName: string, isBot = false, description = ""): Promise<Session> {
    const r = await this.games.register({ displayName, isBot, description });
    return this.session({ playerId: r.playerId, token: r.apiToken });
  }

  /** A session with known credentials (kept by the page, say). */
  session(credentials: Credentials): Session {
    return new Session(this, credentials);
  }

  /**
   * A session without an account: a spectator's. It may list public games, watch them, read
   * their views, odds, catalogues and histories, and the ladder; anything else is refused
   * (UNAUTHENTICATED). Its calls count against the caller's address.
   */
  spectator(): Session {
    return new Session(this, undefined);
  }
}

/** Calls to the service as one player, or as an anonymous spectator. */
export class Session implements WatchSource {
  constructor(
    readonly service: Service,
    readonly credentials: Credentials | undefined,
  ) {}

  /** The player's id; empty for a spectator's session. */
  get playerId(): string {
    return this.credentials?.playerId ?? "";
  }

  /** Whether this session has no account (a spectator's). */
  get anonymous(): boolean {
    return this.credentials === undefined;
  }

  /** Call options with the bearer token (none for a spectator). */
  options(extra: CallOptions = {}): CallOptions {
    if (!this.credentials) return extra;
    return { ...extra, headers: { ...(extra.headers as Record<string, string>), authorization: `Bearer ${this.credentials.token}` } };
  }

  /**
   * Runs `call`, waiting when the service says to (RESOURCE_EXHAUSTED with RetryInfo, within
   * the policy's throttle budget), and, for calls safe to repeat, retrying with backoff while
   * the service is unreachable (`isTransient`), for the policy's transient budget.
   */
  async call<T>(call: (options: CallOptions) => Promise<T>, safe: boolean, settings: CallSettings = {}): Promise<T> {
    const policy = this.service.retry;
    let waited = 0;
    let attempt = 0;
    let unreachableSince: number | undefined;
    for (;;) {
      try {
        return await call(this.options({ signal: settings.signal }));
      } catch (error) {
        if (settings.signal?.aborted) throw error;
        attempt += 1;
        const delay = retryDelayMs(error);
        if (delay !== undefined && waited + delay <= policy.throttleBudgetMs) {
          waited += delay;
          settings.onRetry?.({ kind: "throttled", error, attempt, waitMs: delay });
          await sleep(delay, settings.signal);
          continue;
        }
        if (safe && isTransient(error)) {
          unreachableSince ??= Date.now();
          const wait = policy.backoffMs(attempt);
          if (Date.now() + wait - unreachableSince <= policy.transientBudgetMs) {
            settings.onRetry?.({ kind: "transient", error, attempt, waitMs: wait });
            await sleep(wait, settings.signal);
            continue;
          }
        }
        throw error;
      }
    }
  }

  /** Creates a table (seated by nobody but its house bots: `join` it); returns its id. */
  async createGame(request: MessageInitShape<typeof CreateGameRequestSchema>): Promise<string> {
    const message: CreateGameRequest = create(CreateGameRequestSchema, request);
    const r = await this.call((o) => this.service.games.createGame(message, o), false);
    return r.gameId;
  }

  /** Takes a seat (the first free one unless `seat` is given). Not retried: a seat is not idempotent. */
  join(gameId: string, seat?: number): Promise<JoinGameResponse> {
    return this.call((o) => this.service.games.joinGame({ gameId, seat }, o), false);
  }

  /**
   * Gives the seat back before the game starts; in a running game, resigns it: the seat is
   * forfeited and the server plays its turns to the end.
   */
  async leave(gameId: string): Promise<void> {
    await this.call((o) => this.service.games.leaveGame({ gameId }, o), false);
  }

  /** Games by status, newest first: public ones and the caller's own (`mine`: only those it sits in). */
  async listGames(statuses: GameStatus[], mine = false, pageSize = 50): Promise<GameSummary[]> {
    const r = await this.call((o) => this.service.games.listGames({ statuses, mine, pageSize }, o), true);
    return r.games;
  }

  /** The caller's view of a game: its seat's if seated, a spectator's otherwise. */
  async view(gameId: string, settings?: CallSettings): Promise<GameView> {
    const r = await this.call((o) => this.service.games.getView({ gameId }, o), true, settings);
    if (!r.view) throw new Error("the service answered GetView without a view");
    return r.view;
  }

  /** What each face-down card can be, as the caller can deduce it (the server computes it). */
  odds(gameId: string): Promise<GetOddsResponse> {
    return this.call((o) => this.service.games.getOdds({ gameId }, o), true);
  }

  /** The cards of each city the game plays with (what a page needs to name them). */
  async catalogue(gameId: string, settings?: CallSettings): Promise<CityCards[]> {
    const r = await this.call((o) => this.service.games.getCatalogue({ gameId }, o), true, settings);
    return r.cities;
  }

  /** The events the caller may see, in order; all of them, with the seed, once the game is over. */
  history(gameId: string, settings?: CallSettings): Promise<GetHistoryResponse> {
    return this.call((o) => this.service.games.getHistory({ gameId }, o), true, settings);
  }

  /**
   * Submits a turn. `key` names the intended turn: the same key is sent on every retry (the
   * service unreachable for up to the policy's transient budget), so a turn whose answer was
   * lost is not played twice. A stale `expectedSeq` is ABORTED.
   */
  submit(
    gameId: string,
    expectedSeq: bigint,
    action: MessageInitShape<typeof TurnActionSchema> | TurnAction,
    key: string = crypto.randomUUID(),
    settings: CallSettings = {},
  ): Promise<SubmitActionResponse> {
    return this.call(
      (o) =>
        this.service.games.submitAction(
          { gameId, expectedSeq, idempotencyKey: key, action, updateViews: UpdateViews.ACTION_COMPLETE },
          o,
        ),
      true,
      settings,
    );
  }

  /** Established players by rating, best first (`players` 0: overall). */
  leaderboard(players = 0, kind = PlayerKind.UNSPECIFIED, pageSize = 50): Promise<LeaderboardResponse> {
    return this.call((o) => this.service.ladder.leaderboard({ players, kind, pageSize }, o), true);
  }

  /** A player's ratings and rating history. */
  player(playerId: string): Promise<GetPlayerResponse> {
    return this.call((o) => this.service.ladder.getPlayer({ playerId }, o), true);
  }

  /**
   * Asks for one rated ladder game of `players` (0: any): the stream says how many wait, then
   * the game it was matched to, and ends. Closing it (the signal) withdraws the request.
   */
  enqueue(players: number, signal?: AbortSignal): AsyncIterable<EnqueueResponse> {
    return this.service.ladder.enqueue({ players }, this.options({ signal }));
  }

  /** Leaves the ladder's queue; whether the caller was waiting. */
  async cancelQueue(): Promise<boolean> {
    const r = await this.call((o) => this.service.ladder.cancel({}, o), true);
    return r.wasQueued;
  }

  /** Challenges players to one game of `players` seats (every seat named unless `rated`). */
  async challenge(opponents: string[], players: number, rated: boolean): Promise<Challenge> {
    const r = await this.call((o) => this.service.ladder.challenge({ opponents, players, rated }, o), false);
    if (!r.challenge) throw new Error("the service answered Challenge without a challenge");
    return r.challenge;
  }

  /** Accepts or declines a challenge (the challenger declining withdraws it). */
  async answerChallenge(challengeId: string, accept: boolean): Promise<Challenge> {
    const r = await this.call((o) => this.service.ladder.answerChallenge({ challengeId, accept }, o), true);
    if (!r.challenge) throw new Error("the service answered AnswerChallenge without a challenge");
    return r.challenge;
  }

  /** What is offered to the caller as it happens: challenges and the games they seated it in. */
  offers(signal?: AbortSignal): AsyncIterable<OffersResponse> {
    return this.service.ladder.offers({}, this.options({ signal }));
  }

  /** Tournaments, newest first. */
  async tournaments(): Promise<Tournament[]> {
    const r = await this.call((o) => this.service.ladder.listTournaments({}, o), true);
    return r.tournaments;
  }

  /** A tournament with its standings and crosstable. */
  tournament(tournamentId: string): Promise<GetTournamentResponse> {
    return this.call((o) => this.service.ladder.getTournament({ tournamentId }, o), true);
  }

  /** One `WatchGame` stream, as {@link follow} opens it (after each drop). */
  watch(request: MessageInitShape<typeof WatchGameRequestSchema>, signal: AbortSignal): AsyncIterable<WatchGameResponse> {
    return this.service.games.watchGame(request, this.options({ signal }));
  }

  /** Follows a game: a snapshot, then every update once and in order, resumed after drops. */
  follow(gameId: string, options: FollowOptions = {}): AsyncGenerator<FeedItem> {
    return follow(this, gameId, { backoffMs: this.service.retry.backoffMs, ...options });
  }
}
