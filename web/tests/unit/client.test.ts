// Unit tests of @theboss/client without a browser or a server: an in-process router plays the
// service (connect's router transport), so retries, backoff, error classification and the
// feed's resumption and ordering are checked exactly, in milliseconds.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";

import { create } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { Code, ConnectError, createRouterTransport, type ConnectRouter } from "@connectrpc/connect";

import {
  GameService,
  GameStatus,
  GameUpdateSchema,
  GameViewSchema,
  Service,
  backoffMs,
  errorKind,
  follow,
  isFinal,
  isTransient,
  reasonOf,
  retryDelayMs,
  type FeedItem,
  type WatchGameResponse,
} from "@theboss/client";

/** A RESOURCE_EXHAUSTED error whose RetryInfo asks for `ms`. */
function throttled(ms: number): ConnectError {
  const duration = new BinaryWriter().tag(1, 0).int64(Math.floor(ms / 1000)).tag(2, 0).int32((ms % 1000) * 1e6).finish();
  const retryInfo = new BinaryWriter().tag(1, 2).bytes(duration).finish();
  return withDetail(new ConnectError("slow down", Code.ResourceExhausted), "google.rpc.RetryInfo", retryInfo);
}

function withReason(code: Code, reason: string): ConnectError {
  const info = new BinaryWriter().tag(1, 2).string(reason).tag(2, 2).string("theboss.v1").finish();
  return withDetail(new ConnectError(reason.toLowerCase(), code), "google.rpc.ErrorInfo", info);
}

/** An error with a status detail as the service sends them (type URL and bytes). */
function withDetail(error: ConnectError, type: string, value: Uint8Array): ConnectError {
  error.details.push({ type, value, debug: undefined });
  return error;
}

/** A Service over an in-process router, with quick retries unless told otherwise. */
function serviceOf(routes: (router: ConnectRouter) => void, transientBudgetMs = 2000): Service {
  return new Service("http://in-process", {
    transport: createRouterTransport(routes),
    retry: { transientBudgetMs, throttleBudgetMs: 2000, backoffMs: () => 5 },
  });
}

const player = { playerId: "p1", token: "t0ken" };
const action = { card: { city: 1, face: { case: "money" as const, value: 2 } } };

describe("errors", () => {
  it("sorts errors into what to do about them", () => {
    assert.equal(errorKind(new ConnectError("down", Code.Unavailable)), "transient");
    assert.equal(errorKind(new ConnectError("fetch failed", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch"))), "transient");
    assert.equal(errorKind(new ConnectError("a bug", Code.Unknown)), "refused");
    assert.equal(errorKind(new ConnectError("no such game", Code.NotFound)), "final");
    assert.equal(errorKind(new ConnectError("bad id", Code.InvalidArgument)), "final");
    assert.equal(errorKind(new ConnectError("who?", Code.Unauthenticated)), "final");
    assert.equal(errorKind(withReason(Code.FailedPrecondition, "GAME_NOT_OPEN")), "refused");
    assert.equal(errorKind(withReason(Code.Aborted, "STALE_SEQ")), "refused");
    assert.equal(errorKind(throttled(1500)), "throttled");
    assert.equal(errorKind(withReason(Code.ResourceExhausted, "TOO_MANY_HOUSE_GAMES")), "refused");
    assert.equal(errorKind(new Error("not from the service")), "final");
    assert.equal(isFinal(new ConnectError("x", Code.PermissionDenied)), true);
    assert.equal(isTransient(new ConnectError("x", Code.FailedPrecondition)), false);
  });

  it("reads RetryInfo and ErrorInfo from the status details", () => {
    assert.equal(retryDelayMs(throttled(1500)), 1500);
    assert.equal(retryDelayMs(throttled(20)), 20);
    assert.equal(retryDelayMs(new ConnectError("x", Code.Unavailable)), undefined);
    assert.equal(reasonOf(withReason(Code.FailedPrecondition, "TABLE_FULL")), "TABLE_FULL");
    assert.equal(reasonOf(new ConnectError("x", Code.FailedPrecondition)), undefined);
  });

  it("backs off doubling from 200 ms to at most 3 s", () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 20].map(backoffMs), [200, 400, 800, 1600, 3000, 3000, 3000]);
    assert.equal(backoffMs(0), 200);
  });
});

describe("Session calls", () => {
  it("sends the bearer token for a player and none for a spectator", async () => {
    const seen: (string | null)[] = [];
    const service = serviceOf((router) =>
      router.service(GameService, {
        getView(_request, context) {
          seen.push(context.requestHeader.get("authorization"));
          return { view: { gameId: "g" } };
        },
      }),
    );
    await service.session(player).view("g");
    await service.spectator().view("g");
    assert.deepEqual(seen, ["Bearer t0ken", null]);
    assert.equal(service.spectator().anonymous, true);
    assert.equal(service.spectator().playerId, "");
  });

  it("retries a turn while the service is unavailable, always with the same idempotency key", async () => {
    const keys: string[] = [];
    const service = serviceOf((router) =>
      router.service(GameService, {
        submitAction(request) {
          keys.push(request.idempotencyKey);
          if (keys.length <= 3) throw new ConnectError("failing over", Code.Unavailable);
          return { seq: request.expectedSeq + 1n };
        },
      }),
    );
    const retries: string[] = [];
    const r = await service.session(player).submit("g", 7n, action, "g:7", { onRetry: (x) => retries.push(`${x.kind} ${x.attempt}`) });
    assert.equal(r.seq, 8n);
    assert.deepEqual(keys, ["g:7", "g:7", "g:7", "g:7"]);
    assert.deepEqual(retries, ["transient 1", "transient 2", "transient 3"]);
  });

  it("gives a turn up once the service has been unreachable for the whole budget", async () => {
    let attempts = 0;
    const service = serviceOf((router) =>
      router.service(GameService, {
        submitAction() {
          attempts += 1;
          throw new ConnectError("down", Code.Unavailable);
        },
      }),
      60,
    );
    const started = Date.now();
    await assert.rejects(service.session(player).submit("g", 1n, action, "k"), (e: unknown) => e instanceof ConnectError && e.code === Code.Unavailable);
    const elapsed = Date.now() - started;
    assert.ok(attempts >= 3, `${attempts} attempts`);
    assert.ok(elapsed < 1000, `${elapsed} ms`);
  });

  it("does not repeat a call that is not safe to repeat, nor one that was refused", async () => {
    let joins = 0;
    let turns = 0;
    const service = serviceOf((router) =>
      router.service(GameService, {
        joinGame() {
          joins += 1;
          throw new ConnectError("down", Code.Unavailable);
        },
        submitAction() {
          turns += 1;
          throw withReason(Code.Aborted, "STALE_SEQ");
        },
      }),
    );
    await assert.rejects(service.session(player).join("g"));
    await assert.rejects(service.session(player).submit("g", 1n, action, "k"));
    assert.equal(joins, 1);
    assert.equal(turns, 1);
  });

  it("waits as RetryInfo asks, even for a call that is not safe to repeat (a throttled call did nothing)", async () => {
    let calls = 0;
    const service = serviceOf((router) =>
      router.service(GameService, {
        createGame() {
          calls += 1;
          if (calls === 1) throw throttled(30);
          return { gameId: "new" };
        },
      }),
    );
    const started = Date.now();
    assert.equal(await service.session(player).createGame({ settings: { players: 2 } }), "new");
    assert.equal(calls, 2);
    assert.ok(Date.now() - started >= 25);
  });

  it("stops retrying when its signal aborts", async () => {
    const service = serviceOf((router) =>
      router.service(GameService, {
        getView() {
          throw new ConnectError("down", Code.Unavailable);
        },
      }),
      60_000,
    );
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error("left the page")), 30);
    await assert.rejects(service.session(player).view("g", { signal: stop.signal }));
  });
});

const view = (seq: bigint, status = GameStatus.RUNNING) => create(GameViewSchema, { gameId: "g", seq, status });
const update = (seq: bigint, finished = false): WatchGameResponse["message"] => ({
  case: "update",
  value: create(GameUpdateSchema, { seq, actionComplete: true, view: finished ? view(seq, GameStatus.FINISHED) : view(seq) }),
});

async function collect(feed: AsyncGenerator<FeedItem>): Promise<string[]> {
  const seen: string[] = [];
  for await (const item of feed) {
    seen.push(item.kind === "snapshot" ? `snapshot ${item.view.seq}` : item.kind === "update" ? `update ${item.update.seq}` : "reconnecting");
  }
  return seen;
}

describe("follow", () => {
  it("resumes after a drop from the last seq seen, skips repeats and keeps the order", async () => {
    const asked: (bigint | undefined)[] = [];
    const service = serviceOf((router) =>
      router.service(GameService, {
        async *watchGame(request) {
          asked.push(request.afterSeq);
          if (asked.length === 1) {
            yield { message: { case: "snapshot", value: view(5n) } };
            yield { message: update(6n) };
            yield { message: update(7n) };
            throw new ConnectError("server stopping", Code.Unavailable);
          }
          // The server sends from after_seq; a repeat of 7 must not reach the caller twice.
          yield { message: update(7n) };
          yield { message: { case: "keepAlive", value: { seq: 7n } } };
          yield { message: update(8n) };
          yield { message: update(9n, true) };
          // Nothing after the final update is read: the feed ends there.
          yield { message: update(10n) };
        },
      }),
    );
    const seen = await collect(service.session(player).follow("g"));
    assert.deepEqual(seen, ["snapshot 5", "update 6", "update 7", "reconnecting", "update 8", "update 9"]);
    assert.deepEqual(asked, [undefined, 7n]);
  });

  it("starts after a given seq without a snapshot", async () => {
    const asked: (bigint | undefined)[] = [];
    const service = serviceOf((router) =>
      router.service(GameService, {
        async *watchGame(request) {
          asked.push(request.afterSeq);
          yield { message: update(4n) };
          yield { message: update(5n, true) };
        },
      }),
    );
    assert.deepEqual(await collect(service.session(player).follow("g", { afterSeq: 3n })), ["update 4", "update 5"]);
    assert.deepEqual(asked, [3n]);
  });

  it("takes a stream that ends without an error for the game's end, and does not open another", async () => {
    let opened = 0;
    const service = serviceOf((router) =>
      router.service(GameService, {
        async *watchGame() {
          opened += 1;
          yield { message: { case: "snapshot", value: view(3n) } };
        },
      }),
    );
    assert.deepEqual(await collect(service.session(player).follow("g")), ["snapshot 3"]);
    assert.equal(opened, 1);
  });

  it("throws an error no retry can mend", async () => {
    const service = serviceOf((router) =>
      router.service(GameService, {
        async *watchGame(request) {
          if (request.gameId === "g") throw new ConnectError("no such game", Code.NotFound);
          yield { message: { case: "snapshot", value: view(1n) } };
        },
      }),
    );
    await assert.rejects(collect(service.session(player).follow("g")), (e: unknown) => e instanceof ConnectError && e.code === Code.NotFound);
  });

  it("takes a silent stream for dead and resumes it", async () => {
    const asked: (bigint | undefined)[] = [];
    const session = serviceOf((router) =>
      router.service(GameService, {
        async *watchGame(request, context) {
          asked.push(request.afterSeq);
          if (asked.length === 1) {
            yield { message: { case: "snapshot", value: view(2n) } };
            // Silent until the client gives up on it.
            await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
            return;
          }
          yield { message: update(3n, true) };
        },
      }),
    ).session(player);
    const seen = await collect(follow(session, "g", { silenceMs: 40, backoffMs: () => 1 }));
    assert.deepEqual(seen, ["snapshot 2", "reconnecting", "update 3"]);
    assert.deepEqual(asked, [undefined, 2n]);
  });
});
