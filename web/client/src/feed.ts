/**
 * A game followed through `WatchGame`, resumed with `after_seq` after any drop: the stream
 * failed (a server restart, a lost connection) or went silent for longer than the server's
 * keep-alive period. The caller sees a snapshot first (unless it resumes from a seq it
 * holds), then every update once, in order, whatever happened underneath; the game's end (a
 * finished view, or the stream's end) ends the feed.
 *
 * @module
 */

import type { MessageInitShape } from "@bufbuild/protobuf";

import { backoffMs as defaultBackoff, isFinal } from "./errors.js";
import { UpdateViews, type GameUpdate, type WatchGameRequestSchema, type WatchGameResponse } from "./gen/theboss/v1/game_service_pb.js";
import { GameStatus, type GameView } from "./gen/theboss/v1/model_pb.js";

/** What {@link follow} yields. */
export type FeedItem =
  | { kind: "snapshot"; view: GameView }
  | { kind: "update"; update: GameUpdate }
  /** The stream dropped and is being resumed (the page may say so). */
  | { kind: "reconnecting"; error: unknown };

/** Where a feed opens its streams: a `Session`, or anything that calls `WatchGame`. */
export interface WatchSource {
  watch(request: MessageInitShape<typeof WatchGameRequestSchema>, signal: AbortSignal): AsyncIterable<WatchGameResponse>;
}

/** How to follow a game. */
export interface FollowOptions {
  signal?: AbortSignal;
  /** Resume after this seq instead of starting with a snapshot. */
  afterSeq?: bigint;
  /** A stream silent this long is taken for dead (the server sends keep-alives every 15 s). */
  silenceMs?: number;
  /** Which updates carry views (default: the last one of each action). */
  updateViews?: UpdateViews;
  /** The wait before reconnecting after `failures` failures in a row. */
  backoffMs?: (failures: number) => number;
}

/**
 * Follows one game until it ends, the signal aborts, or an error no retry can mend (thrown).
 */
export async function* follow(source: WatchSource, gameId: string, options: FollowOptions = {}): AsyncGenerator<FeedItem> {
  const silenceMs = options.silenceMs ?? 40_000;
  const backoff = options.backoffMs ?? defaultBackoff;
  let afterSeq = options.afterSeq;
  let failures = 0;
  while (!options.signal?.aborted) {
    const attempt = new AbortController();
    const stop = () => attempt.abort();
    options.signal?.addEventListener("abort", stop);
    let silence: ReturnType<typeof setTimeout> | undefined;
    const quiet = () => {
      clearTimeout(silence);
      silence = setTimeout(() => attempt.abort(new Error("the stream went silent")), silenceMs);
    };
    try {
      quiet();
      const stream = source.watch({ gameId, afterSeq, updateViews: options.updateViews ?? UpdateViews.ACTION_COMPLETE }, attempt.signal);
      for await (const message of stream) {
        quiet();
        failures = 0;
        switch (message.message.case) {
          case "snapshot": {
            const view = message.message.value;
            afterSeq = view.seq;
            yield { kind: "snapshot", view };
            if (isOver(view)) return;
            break;
          }
          case "update": {
            const update = message.message.value;
            // After a resume the server starts after `afterSeq`; anything older is a repeat.
            if (afterSeq !== undefined && update.seq <= afterSeq) break;
            afterSeq = update.seq;
            yield { kind: "update", update };
            if (update.actionComplete && update.view && isOver(update.view)) return;
            break;
          }
          default:
            break;
        }
      }
      // Ended without an error: by the contract, only after the game's final update (a
      // server that stops ends its streams with UNAVAILABLE, handled below). Following
      // again would only be ended again, at once and for ever.
      return;
    } catch (error) {
      if (options.signal?.aborted) return;
      if (isFinal(error)) throw error;
      failures += 1;
      yield { kind: "reconnecting", error };
      await new Promise((resolve) => setTimeout(resolve, backoff(failures)));
    } finally {
      clearTimeout(silence);
      options.signal?.removeEventListener("abort", stop);
    }
  }
}

/** Whether a view is of a game that is over (finished or aborted). */
export function isOver(view: GameView): boolean {
  return view.status === GameStatus.FINISHED || view.status === GameStatus.ABORTED;
}
