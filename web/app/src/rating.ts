/**
 * A player's rating over time, from `GetPlayer`'s history: one point per rated game in one
 * category (overall, or one player count). The history holds an entry per game *and*
 * category (a rated 4-player game gives one for 4 players and one overall), so a series that
 * mixed them would count every game twice. Pure, so it is unit-tested under Node.
 *
 * @module
 */

import type { RatingChange } from "@theboss/client";

/** One point of the chart: the rating (μ − 3σ) after a game, and when. */
export interface RatingPoint {
  score: number;
  atSeconds: bigint;
  gameId: string;
}

/** The rating after each rated game of one category (`players` 0: overall), oldest first. */
export function ratingSeries(history: RatingChange[], players: number): RatingPoint[] {
  return history
    .filter((c) => c.players === players)
    .map((c) => ({ score: c.mu - 3 * c.sigma, atSeconds: c.at?.seconds ?? 0n, gameId: c.gameId }))
    .sort((a, b) => (a.atSeconds < b.atSeconds ? -1 : a.atSeconds > b.atSeconds ? 1 : 0));
}
