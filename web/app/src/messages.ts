/**
 * Errors in words a player understands: what went wrong and what to do, from the error's
 * reason (ErrorInfo) or code, never the service's raw message alone. The service's own words
 * follow in a detail line for whoever reports a problem. Pure, so it is unit-tested under
 * Node.
 *
 * @module
 */

import { Code, codeOf, describeError, reasonOf } from "@theboss/client";

/** What the page tells a person about an error: a sentence, and the technical detail. */
export interface Said {
  text: string;
  detail: string;
}

/** What each ErrorInfo reason means to a player. */
const REASONS: Record<string, string> = {
  GAME_NOT_OPEN: "This table has already started (or ended): you can watch it instead.",
  TABLE_FULL: "This table has just filled up: you can watch it instead.",
  SEAT_TAKEN: "Someone has just taken that seat.",
  ALREADY_SEATED: "You already sit at this table.",
  NOT_SEATED: "You do not sit at this table.",
  GAME_NOT_RUNNING: "This game is not being played now.",
  GAME_OVER: "This game is over.",
  STALE_SEQ: "The table moved on before your turn arrived; here it is as it stands now.",
  CONCURRENT_WRITE: "The table moved on before your turn arrived; here it is as it stands now.",
  TURN_ORDER: "It is not your turn.",
  CARD_IN_HAND: "That card is not in your hand.",
  STRICT_LEAD: "You must place more gangsters there than anyone else has.",
  OCCASIONALS_NEED_EXPERT: "Occasionals need an expert with them.",
  BANISHED: "You are banished from that city.",
  CHICAGO_AFTER_ANOTHER_CITY: "You can place in Chicago only once you have gangsters in another city this round.",
  RATE_LIMITED: "Too many requests at once; wait a moment and try again.",
  TOO_MANY_HOUSE_GAMES: "You already have the most unfinished games against house bots: finish or resign one first.",
  TOO_MANY_OPEN_GAMES: "You already have the most tables waiting for players: start or leave one first.",
  TOO_MANY_STREAMS: "This page is open in too many tabs: close some of them.",
  TOO_MANY_SPECTATORS: "This table has as many spectators as it can take; try again later.",
  TOO_MANY_CHALLENGES: "You already have the most challenges waiting for answers.",
  ALREADY_QUEUED: "You are already waiting for a ladder game (or playing as many as you may).",
  CHALLENGES_REFUSED: "This player does not take challenges (or only from bots).",
  CHALLENGE_CLOSED: "This challenge is over (declined, withdrawn, expired or started).",
  TOO_MANY_UNAUTHENTICATED_CALLS: "Too many people watch from your address without an account; register, or try again later.",
  SET_IN_PROGRESS: "This table belongs to a duplicate set still being played: it can be watched once every table of the set has ended.",
};

/** What each code means when there is no reason to go by. */
function byCode(code: Code, what: string): string {
  switch (code) {
    case Code.NotFound:
      return `There is no such ${what} here: the link may be mistyped, or it was made by another server.`;
    case Code.InvalidArgument:
      return `That is not a ${what} this service knows: check the link.`;
    case Code.Unauthenticated:
      return "This browser's key is not known here. Sign in again with your recovery code, or register.";
    case Code.PermissionDenied:
      return "You may not do that here.";
    case Code.Unavailable:
      return "The server cannot be reached just now; the page keeps trying.";
    case Code.ResourceExhausted:
      return "The server is busy with your requests; wait a moment and try again.";
    case Code.DeadlineExceeded:
      return "The server took too long to answer; try again.";
    default:
      return "Something went wrong on the server.";
  }
}

/**
 * An error in a player's words. `what` names what the call was about ("game", "player"), for
 * the messages that say it does not exist.
 */
export function say(error: unknown, what = "game"): Said {
  const detail = describeError(error);
  const reason = reasonOf(error);
  if (reason && REASONS[reason]) return { text: REASONS[reason], detail };
  if (!(error instanceof Error) || (codeOf(error) === Code.Unknown && error.cause instanceof TypeError)) {
    return { text: "The server cannot be reached just now; the page keeps trying.", detail };
  }
  if (error.name !== "ConnectError") return { text: error.message, detail };
  // A register request's own words (a name too long, a character not allowed) are already
  // meant for the person who typed it.
  if (codeOf(error) === Code.InvalidArgument && /display_name|description/.test(detail)) {
    return { text: detail.replace(/^[a-z_]+: /, "").replace(/ \(InvalidArgument\)$/, ""), detail };
  }
  return { text: byCode(codeOf(error), what), detail };
}
