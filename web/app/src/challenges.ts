/**
 * Challenges as the lobby knows them. A challenge reaches the page two ways, the answer to
 * the player's own call (accepting, declining, withdrawing) and the Offers stream, in
 * either order: the matchmaker may seat an accepted challenge, and the stream say so, before
 * the answer to the accept arrives. A challenge only moves forward (its status in the
 * enum's order, its opponents' answers one by one), so whichever state is further along is
 * the newer one, and an older one arriving late must not hide it. Pure, so it is
 * unit-tested under Node.
 *
 * @module
 */

import { ChallengeAnswer, type Challenge } from "@theboss/client";

const answered = (c: Challenge) => c.opponents.filter((o) => o.answer !== ChallengeAnswer.PENDING).length;

/** The newer of what the page knew of a challenge (`known`, if anything) and `next`. */
export function newer(known: Challenge | undefined, next: Challenge): Challenge {
  if (!known) return next;
  if (next.status !== known.status) return next.status > known.status ? next : known;
  return answered(next) >= answered(known) ? next : known;
}
