/**
 * Words for the game's values: cities, locations, cards, sanctions, police badges, seats'
 * supplies, events, a round's resolution and the final standings. Only names and the facts
 * the service sends: what is legal and what happens is the server's (the engine's) to say.
 * Pure (no DOM), so it is unit-tested under Node.
 *
 * @module
 */

import {
  BotStrategy,
  City,
  Location,
  PoliceCard,
  Sanction,
  type Award,
  type Card,
  type GameEvent,
  type Outcome,
  type RoundSummary,
  type SeatPlayer,
  type SeatView,
  type Standing,
  type Supply,
} from "@theboss/client";

export const cityName = (c: City): string =>
  ({
    [City.NEW_YORK]: "New York",
    [City.BOSTON]: "Boston",
    [City.DETROIT]: "Detroit",
    [City.KANSAS_CITY]: "Kansas City",
    [City.CINCINNATI]: "Cincinnati",
    [City.MEMPHIS]: "Memphis",
    [City.PHILADELPHIA]: "Philadelphia",
  })[c as number] ?? "?";

export const locationName = (l: Location): string => (l === Location.CHICAGO ? "Chicago" : cityName(l as number));

export const sanctionName = (s: Sanction): string =>
  ({
    [Sanction.REVOLVER]: "Revolver",
    [Sanction.PRISON]: "Prison",
    [Sanction.HOSPITAL]: "Hospital",
    [Sanction.BANISHED]: "Banished",
  })[s as number] ?? "?";

/** Police badges are told by shape and word, never by colour alone. */
export const policeName = (p: PoliceCard): string =>
  ({ [PoliceCard.SILVER]: "◇ silver", [PoliceCard.GOLD]: "★ gold", [PoliceCard.DOUBLE]: "◇★ double" })[p as number] ?? "?";

/** A card's face alone: "$3" or "Prison". */
export function faceText(card: Card | undefined): string {
  if (!card) return "?";
  return card.face.case === "money" ? `$${card.face.value}` : card.face.case === "sanction" ? sanctionName(card.face.value) : "?";
}

/** A card: "Boston $3". */
export function cardText(card: Card | undefined): string {
  if (!card) return "?";
  return `${cityName(card.city)} ${faceText(card)}`;
}

export function playerName(p: SeatPlayer | undefined): string {
  if (!p) return "(empty)";
  const house = p.houseBot !== BotStrategy.UNSPECIFIED ? " (house bot)" : p.isBot ? " (bot)" : "";
  return `${p.displayName}${house}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Where a seat's experts and occasionals are, every one accounted for: free, on the board,
 * in hospital, in prison (and for how long), killed; occasionals left.
 */
export function supplyText(s: Supply | undefined): string {
  if (!s) return "";
  const parts = [`${s.expertsFree} free`];
  if (s.expertsPlaced) parts.push(`${s.expertsPlaced} on the board`);
  if (s.expertsInHospital) parts.push(`${s.expertsInHospital} in hospital`);
  const jailed = s.expertsInPrison.reduce((a, b) => a + b, 0);
  if (jailed) {
    // Index i: experts who miss the current round and i more.
    const longest = s.expertsInPrison.reduce((last, n, i) => (n > 0 ? i : last), 0);
    parts.push(`${jailed} in prison (out ${longest === 0 ? "this round" : `this round and ${plural(longest, "more")}`})`);
  }
  if (s.expertsKilled) parts.push(`${s.expertsKilled} killed`);
  return `experts: ${parts.join(", ")} · occasionals: ${s.occasionals} left`;
}

/** What marks a seat beyond its supply: banishments, a forfeit. */
export function seatMarks(s: SeatView): string[] {
  const marks: string[] = [];
  if (s.banished.length) marks.push(`banished from ${s.banished.map(cityName).join(", ")}`);
  if (s.forfeited) marks.push("resigned or forfeited: the server plays for this seat");
  return marks;
}

/** What one award of a round's resolution did, for one location. */
export function awardText(a: Award, seatName: (seat: number) => string): string {
  const where = locationName(a.location);
  if (a.winner === undefined) return `${where}: nobody was there${a.card ? ` (the face-down card was ${faceText(a.card)})` : ""}`;
  const who = seatName(a.winner);
  if (a.location === Location.CHICAGO) {
    return `Chicago: ${who} led and won $${a.money}${a.chicagoSum !== undefined ? ` (half of $${a.chicagoSum}, the last cards to its left; Alcapo keeps the rest)` : ""}`;
  }
  if (a.sanction !== Sanction.UNSPECIFIED || a.card?.face.case === "sanction") {
    const sanction = a.sanction !== Sanction.UNSPECIFIED ? a.sanction : (a.card?.face.value as Sanction);
    return `${where}: ${who} led and took ${sanctionName(sanction)}: ${sanctionEffect(sanction, who, where, a.sanctionApplied)}`;
  }
  return `${where}: ${who} led and won $${a.money}`;
}

/** What a sanction did to the seat that took it. */
export function sanctionEffect(s: Sanction, who: string, where: string, applied: boolean): string {
  if (!applied && s !== Sanction.BANISHED) return `no effect (${who} had no expert left in play)`;
  switch (s) {
    case Sanction.REVOLVER:
      return `one of ${who}'s experts was killed`;
    case Sanction.PRISON:
      return `one of ${who}'s experts goes to prison for the next two rounds`;
    case Sanction.HOSPITAL:
      return `one of ${who}'s experts goes to hospital for the next round`;
    case Sanction.BANISHED:
      return applied ? `${who} is banished from ${where} for the rest of the game` : `no effect`;
    default:
      return "";
  }
}

/** A round's resolution in words: one line per location, then the money each seat won. */
export function resolutionLines(r: RoundSummary, seatName: (seat: number) => string): string[] {
  const lines = r.awards.map((a) => awardText(a, seatName));
  const won = r.moneyWon.map((m, seat) => `${seatName(seat)} +$${m}`).join(", ");
  if (won) lines.push(`Money won this round: ${won}`);
  return lines;
}

/**
 * Why one standing ranks ahead of the next, by the tie-breaks the outcome's fields show: more
 * money; equal money, more won in the last round; then more gangsters owned; still equal, a
 * decisive round (or a shared win).
 */
export function tieBreak(a: Standing, b: Standing, outcome: Outcome, seatName: (seat: number) => string): string {
  const A = seatName(a.seat);
  const B = seatName(b.seat);
  const contended = outcome.contenders.includes(a.seat) && !outcome.contenders.includes(b.seat);
  if (contended && a.money === b.money) return `${A} ahead of ${B}: ${A} played the decisive round`;
  if (a.money !== b.money) return `${A} ahead of ${B} on money ($${a.money} to $${b.money})`;
  if (a.moneyLastRound !== b.moneyLastRound) {
    return `${A} and ${B} tied on $${a.money}; ${A} won more in the last round ($${a.moneyLastRound} to $${b.moneyLastRound})`;
  }
  if (a.gangstersOwned !== b.gangstersOwned) {
    return `${A} and ${B} tied on money and on the last round's; ${A} owns more gangsters (${a.gangstersOwned} to ${b.gangstersOwned})`;
  }
  if (outcome.winners.includes(a.seat) && outcome.winners.includes(b.seat)) return `${A} and ${B} share the win: tied on every tie-break`;
  return `${A} and ${B} tied on every tie-break`;
}

/** The tie-breaks of a whole outcome: one sentence for each pair of neighbours that tied on money. */
export function tieBreaks(outcome: Outcome, seatName: (seat: number) => string): string[] {
  const lines: string[] = [];
  if (outcome.contenders.length) lines.push(`A decisive round was played between ${outcome.contenders.map(seatName).join(", ")}.`);
  for (let i = 0; i + 1 < outcome.standings.length; i++) {
    const a = outcome.standings[i];
    const b = outcome.standings[i + 1];
    if (a.money === b.money) lines.push(tieBreak(a, b, outcome, seatName) + ".");
  }
  return lines;
}

/** One event in words, as the log shows it; `seatName` names a seat. */
export function eventText(event: GameEvent | undefined, seatName: (seat: number) => string): string {
  const kind = event?.kind;
  switch (kind?.case) {
    case "playerJoined":
      return `${playerName(kind.value.player)} sat at seat ${(kind.value.player?.seat ?? 0) + 1}`;
    case "playerLeft":
      return kind.value.resigned ? `${playerName(kind.value.player)} resigned: the server plays the seat to the end` : `${playerName(kind.value.player)} left`;
    case "gameStarted":
      return `The game started: ${kind.value.players} players, ${kind.value.cities.map(cityName).join(", ")}`;
    case "roundStarted":
      return `Round ${kind.value.round}${kind.value.decisive ? " (decisive)" : ""}: ${seatName(kind.value.startPlayer)} starts`;
    case "handDealt":
      return kind.value.cards.length
        ? `${seatName(kind.value.seat)} was dealt ${kind.value.cards.map(cardText).join(", ")}`
        : `${seatName(kind.value.seat)} was dealt a hand`;
    case "policeRevealed":
      return `Police: ${policeName(kind.value.card)} (silver ${kind.value.silver}, gold ${kind.value.gold})${kind.value.lastRound ? " — last round" : ""}`;
    case "turnTaken":
      return turnText(kind.value, seatName);
    case "lastTurnOrder":
      return `Last turn order: ${kind.value.order.map(seatName).join(", ")}`;
    case "roundResolved": {
      const r = kind.value;
      return `Round ${r.round} resolved. Face down: ${r.faceDown.map(cardText).join(", ")}. ${r.awards.map((a) => awardText(a, seatName)).join("; ")}`;
    }
    case "decisiveRound":
      return `Tie: a decisive round between ${kind.value.contenders.map(seatName).join(", ")}`;
    case "gameEnded":
      return `Game over: ${kind.value.outcome?.winners.map(seatName).join(" and ")} won`;
    case "gameAborted":
      return `Game aborted: ${kind.value.reason}`;
    default:
      return "";
  }
}

/** One turn in words. */
export function turnText(
  t: { seat: number; action?: { placement?: { location: Location; experts: number; occasionals: number }; card?: Card }; byTimeout: boolean },
  seatName: (seat: number) => string,
): string {
  const p = t.action?.placement;
  const gangsters = p ? [p.experts ? plural(p.experts, "expert") : "", p.occasionals ? plural(p.occasionals, "occasional") : ""].filter(Boolean).join(" and ") : "";
  const placed = p ? ` placed ${gangsters} in ${locationName(p.location)},` : "";
  return `${seatName(t.seat)}${placed} played ${cardText(t.action?.card)}${t.byTimeout ? " (played by the server: time ran out or the seat resigned)" : ""}`;
}
