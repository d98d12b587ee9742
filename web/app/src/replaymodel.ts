/**
 * What a finished game's table looked like after each event of its history: the facts the
 * events state, gathered step by step (where each turn put gangsters and its card, the hands
 * dealt less the cards played, the police badges, the face-down cards as each round's
 * resolution revealed them, the money each seat won). It decides nothing: who led, what a
 * sanction did and who won are read from the resolution and outcome events the server sent.
 * Pure, so it is unit-tested under Node.
 *
 * @module
 */

import { Location, type Award, type Card, type HistoryEntry, type Outcome, type PoliceCard } from "@theboss/client";

/** One location of the row. */
export interface ReplayLocation {
  location: Location;
  /** Gangsters by seat. */
  experts: number[];
  occasionals: number[];
  /** Cards played in its column this round, oldest first. */
  played: Card[];
  /** Its face-down card, once the round's resolution revealed it. */
  revealed?: Card;
  /** The resolution's award, once resolved. */
  award?: Award;
}

/** The table after one step. */
export interface ReplayState {
  /** The index of the event this state follows (-1: before the first). */
  step: number;
  round: number;
  decisive: boolean;
  row: ReplayLocation[];
  hands: Card[][];
  money: number[];
  police: PoliceCard[];
  /** The seat whose turn was this step's event, if it was a turn. */
  lastSeat?: number;
  lastCard?: Card;
  lastPlacement?: Location;
  outcome?: Outcome;
}

const sameCard = (a: Card, b: Card) => a.city === b.city && a.face.case === b.face.case && a.face.value === b.face.value;

function copy(s: ReplayState): ReplayState {
  return {
    ...s,
    row: s.row.map((l) => ({ ...l, experts: [...l.experts], occasionals: [...l.occasionals], played: [...l.played] })),
    hands: s.hands.map((h) => [...h]),
    money: [...s.money],
    police: [...s.police],
    lastSeat: undefined,
    lastCard: undefined,
    lastPlacement: undefined,
  };
}

/** The state after each entry (index i: after `entries[i]`), and the one before them all first. */
export function replayStates(entries: HistoryEntry[], seats: number): ReplayState[] {
  let state: ReplayState = { step: -1, round: 0, decisive: false, row: [], hands: Array.from({ length: seats }, () => []), money: new Array<number>(seats).fill(0), police: [] };
  const states = [state];
  entries.forEach((entry, index) => {
    state = copy(state);
    state.step = index;
    const kind = entry.event?.kind;
    switch (kind?.case) {
      case "roundStarted":
        state.round = kind.value.round;
        state.decisive = kind.value.decisive;
        state.row = kind.value.row.map((location) => ({ location, experts: new Array<number>(seats).fill(0), occasionals: new Array<number>(seats).fill(0), played: [] }));
        break;
      case "handDealt":
        if (kind.value.seat < seats) state.hands[kind.value.seat] = [...kind.value.cards];
        break;
      case "policeRevealed":
        state.police.push(kind.value.card);
        break;
      case "turnTaken": {
        const t = kind.value;
        state.lastSeat = t.seat;
        const p = t.action?.placement;
        if (p) {
          const at = state.row.find((l) => l.location === p.location);
          if (at) {
            at.experts[t.seat] += p.experts;
            at.occasionals[t.seat] += p.occasionals;
          }
          state.lastPlacement = p.location;
        }
        const card = t.action?.card;
        if (card) {
          state.lastCard = card;
          const column = state.row.find((l) => (l.location as number) === (card.city as number));
          column?.played.push(card);
          const hand = state.hands[t.seat] ?? [];
          const i = hand.findIndex((c) => sameCard(c, card));
          if (i >= 0) hand.splice(i, 1);
        }
        break;
      }
      case "roundResolved":
        for (const award of kind.value.awards) {
          const at = state.row.find((l) => l.location === award.location);
          if (at) {
            at.award = award;
            if (award.location !== Location.CHICAGO) at.revealed = award.card;
          }
        }
        kind.value.moneyWon.forEach((m, seat) => {
          if (seat < seats) state.money[seat] += m;
        });
        break;
      case "gameEnded":
        state.outcome = kind.value.outcome;
        break;
      default:
        break;
    }
    states.push(state);
  });
  return states;
}

/** The index of each round's first state (its RoundStarted event), by round number. */
export function roundStarts(entries: HistoryEntry[]): Map<number, number> {
  const starts = new Map<number, number>();
  entries.forEach((e, i) => {
    if (e.event?.kind.case === "roundStarted") starts.set(e.event.kind.value.round, i + 1);
  });
  return starts;
}
