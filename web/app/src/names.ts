// Words for the game's values: cities, locations, cards, sanctions, police badges, events.
// Only names: what is legal and what happens is the server's (the engine's) to say.

import {
  City,
  Location,
  PoliceCard,
  Sanction,
  type Card,
  type GameEvent,
  type SeatPlayer,
  BotStrategy,
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

export const locationName = (l: Location): string => (l === Location.CHICAGO ? "Chicago" : cityName(l as number as City));

export const sanctionName = (s: Sanction): string =>
  ({
    [Sanction.REVOLVER]: "Revolver",
    [Sanction.PRISON]: "Prison",
    [Sanction.HOSPITAL]: "Hospital",
    [Sanction.BANISHED]: "Banished",
  })[s as number] ?? "?";

/// Police badges are told by shape and word, never by colour alone.
export const policeName = (p: PoliceCard): string =>
  ({ [PoliceCard.SILVER]: "◇ silver", [PoliceCard.GOLD]: "★ gold", [PoliceCard.DOUBLE]: "◇★ double" })[p as number] ?? "?";

export function cardText(card: Card | undefined): string {
  if (!card) return "?";
  const face = card.face.case === "money" ? `$${card.face.value}` : card.face.case === "sanction" ? sanctionName(card.face.value) : "?";
  return `${cityName(card.city)} ${face}`;
}

export function playerName(p: SeatPlayer | undefined): string {
  if (!p) return "(empty)";
  const house = p.houseBot !== BotStrategy.UNSPECIFIED ? " (house bot)" : p.isBot ? " (bot)" : "";
  return `${p.displayName}${house}`;
}

/// One event in words, as the log shows it; `seatName` names a seat.
export function eventText(event: GameEvent | undefined, seatName: (seat: number) => string): string {
  const kind = event?.kind;
  switch (kind?.case) {
    case "playerJoined":
      return `${playerName(kind.value.player)} sat at seat ${kind.value.player?.seat}`;
    case "playerLeft":
      return `${playerName(kind.value.player)} left`;
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
    case "turnTaken": {
      const t = kind.value;
      const p = t.action?.placement;
      const placed = p ? ` placed ${p.experts} expert(s) and ${p.occasionals} occasional(s) in ${locationName(p.location)},` : "";
      return `${seatName(t.seat)}${placed} played ${cardText(t.action?.card)}${t.byTimeout ? " (time ran out)" : ""}`;
    }
    case "lastTurnOrder":
      return `Last turn order: ${kind.value.order.map(seatName).join(", ")}`;
    case "roundResolved": {
      const r = kind.value;
      const awards = r.awards
        .map((a) => `${locationName(a.location)}: ${a.winner === undefined ? "nobody" : `${seatName(a.winner)} +$${a.money}`}`)
        .join("; ");
      return `Round ${r.round} resolved. Face down: ${r.faceDown.map(cardText).join(", ")}. ${awards}`;
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
