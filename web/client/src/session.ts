// A player's session: every RPC of GameService and LadderService that a front end uses, with
// the player's bearer token, RESOURCE_EXHAUSTED waited out as the server asks (RetryInfo),
// and turns submitted with an idempotency key kept across retries.

import { create } from "@bufbuild/protobuf";
import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { backoffMs, isTransient, retryDelayMs } from "./errors.js";
import { follow, type FeedItem, type FollowOptions } from "./feed.js";
import {
  GameService,
  type CreateGameRequest,
  CreateGameRequestSchema,
  type GetHistoryResponse,
  type GetOddsResponse,
  type JoinGameResponse,
  type SubmitActionResponse,
  UpdateViews,
} from "./gen/theboss/v1/game_service_pb.js";
import { LadderService, type GetPlayerResponse, type LeaderboardResponse } from "./gen/theboss/v1/ladder_service_pb.js";
import {
  type CityCards,
  type GameStatus,
  type GameSummary,
  type GameView,
  type TurnAction,
  TurnActionSchema,
  PlayerKind,
} from "./gen/theboss/v1/model_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";

/// Who a session acts as: keep both to come back as the same player.
export interface Credentials {
  playerId: string;
  token: string;
}

/// Waits at most this long for a RESOURCE_EXHAUSTED call, in all, before giving up.
const THROTTLE_BUDGET_MS = 30_000;
/// Attempts of a call that may be repeated safely when the service is UNAVAILABLE or the
/// connection failed.
const TRANSIENT_ATTEMPTS = 20;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/// The service at one base URL (the page's own origin, for the reference front end).
export class Service {
  readonly transport: Transport;
  readonly games: Client<typeof GameService>;
  readonly ladder: Client<typeof LadderService>;

  constructor(readonly baseUrl: string, transport?: Transport) {
    this.transport = transport ?? createGrpcWebTransport({ baseUrl, useBinaryFormat: true });
    this.games = createClient(GameService, this.transport);
    this.ladder = createClient(LadderService, this.transport);
  }

  /// A new player. Registration is not retried: a lost answer would leave an account nobody
  /// holds the token of.
  async register(displayName: string, isBot = false, description = ""): Promise<Session> {
    const r = await this.games.register({ displayName, isBot, description });
    return this.session({ playerId: r.playerId, token: r.apiToken });
  }

  /// A session with known credentials (kept by the page, say).
  session(credentials: Credentials): Session {
    return new Session(this, credentials);
  }
}

export class Session {
  constructor(readonly service: Service, readonly credentials: Credentials) {}

  get playerId(): string {
    return this.credentials.playerId;
  }

  /// Call options with the bearer token.
  options(extra: CallOptions = {}): CallOptions {
    return { ...extra, headers: { ...(extra.headers as Record<string, string>), authorization: `Bearer ${this.credentials.token}` } };
  }

  /// Runs `call`, waiting when the service says to (RESOURCE_EXHAUSTED with RetryInfo), and,
  /// for calls safe to repeat, retrying with backoff when the service is UNAVAILABLE or the
  /// connection failed (`isTransient`).
  async call<T>(call: (options: CallOptions) => Promise<T>, safe: boolean, extra: CallOptions = {}): Promise<T> {
    let waited = 0;
    let transient = 0;
    for (;;) {
      try {
        return await call(this.options(extra));
      } catch (error) {
        const delay = retryDelayMs(error);
        if (delay !== undefined && waited + delay <= THROTTLE_BUDGET_MS) {
          waited += delay;
          await sleep(delay, extra.signal);
          continue;
        }
        if (safe && isTransient(error) && transient < TRANSIENT_ATTEMPTS) {
          transient += 1;
          await sleep(backoffMs(transient), extra.signal);
          continue;
        }
        throw error;
      }
    }
  }

  /// Creates a table (seated by nobody but its house bots: `join` it); returns its id.
  async createGame(request: MessageInitShape<typeof CreateGameRequestSchema>): Promise<string> {
    const message: CreateGameRequest = create(CreateGameRequestSchema, request);
    const r = await this.call((o) => this.service.games.createGame(message, o), false);
    return r.gameId;
  }

  join(gameId: string, seat?: number): Promise<JoinGameResponse> {
    return this.call((o) => this.service.games.joinGame({ gameId, seat }, o), false);
  }

  async leave(gameId: string): Promise<void> {
    await this.call((o) => this.service.games.leaveGame({ gameId }, o), false);
  }

  async listGames(statuses: GameStatus[], mine = false, pageSize = 50): Promise<GameSummary[]> {
    const r = await this.call((o) => this.service.games.listGames({ statuses, mine, pageSize }, o), true);
    return r.games;
  }

  async view(gameId: string): Promise<GameView> {
    const r = await this.call((o) => this.service.games.getView({ gameId }, o), true);
    if (!r.view) throw new Error("the service answered GetView without a view");
    return r.view;
  }

  odds(gameId: string): Promise<GetOddsResponse> {
    return this.call((o) => this.service.games.getOdds({ gameId }, o), true);
  }

  /// The cards of each city the game plays with (what a page needs to name them).
  async catalogue(gameId: string): Promise<CityCards[]> {
    const r = await this.call((o) => this.service.games.getCatalogue({ gameId }, o), true);
    return r.cities;
  }

  history(gameId: string): Promise<GetHistoryResponse> {
    return this.call((o) => this.service.games.getHistory({ gameId }, o), true);
  }

  /// Submits a turn. `key` names the intended turn: the same key is sent on every retry, so
  /// a turn whose answer was lost is not played twice. A stale `expectedSeq` is ABORTED.
  submit(
    gameId: string,
    expectedSeq: bigint,
    action: MessageInitShape<typeof TurnActionSchema> | TurnAction,
    key: string = crypto.randomUUID(),
  ): Promise<SubmitActionResponse> {
    return this.call(
      (o) =>
        this.service.games.submitAction(
          { gameId, expectedSeq, idempotencyKey: key, action, updateViews: UpdateViews.ACTION_COMPLETE },
          o,
        ),
      true,
    );
  }

  leaderboard(players = 0, kind = PlayerKind.UNSPECIFIED, pageSize = 50): Promise<LeaderboardResponse> {
    return this.call((o) => this.service.ladder.leaderboard({ players, kind, pageSize }, o), true);
  }

  player(playerId: string): Promise<GetPlayerResponse> {
    return this.call((o) => this.service.ladder.getPlayer({ playerId }, o), true);
  }

  /// Follows a game: a snapshot, then every update once and in order, resumed after drops.
  follow(gameId: string, options: FollowOptions = {}): AsyncGenerator<FeedItem> {
    return follow(this, gameId, options);
  }
}
