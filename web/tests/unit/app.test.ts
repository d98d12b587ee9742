// Unit tests of the front end's pure modules (no DOM): the words for sanctions, supplies and
// standings, errors in a player's words, the rating chart's series, recovery codes, the
// replay's table at each step, and which of two states of a challenge is the newer.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";

import { create } from "@bufbuild/protobuf";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";

import {
  ChallengeAnswer,
  ChallengeSchema,
  ChallengeStatus,
  City,
  GameEventSchema,
  Location,
  OutcomeSchema,
  RatingChangeSchema,
  RoundSummarySchema,
  Sanction,
  SeatViewSchema,
  SupplySchema,
  type HistoryEntry,
} from "@theboss/client";

import { newer } from "../../app/src/challenges.js";
import { say } from "../../app/src/messages.js";
import { eventText, resolutionLines, seatMarks, supplyText, tieBreaks } from "../../app/src/names.js";
import { ratingSeries } from "../../app/src/rating.js";
import { decodeRecovery, encodeRecovery } from "../../app/src/recovery.js";
import { replayStates, roundStarts } from "../../app/src/replaymodel.js";

const names = ["Ann", "Bob", "Cy", "Di"];
const seatName = (s: number) => names[s] ?? `seat ${s}`;

const card = (city: City, face: { case: "money"; value: number } | { case: "sanction"; value: Sanction }) => ({ city, face });

describe("sanctions and supplies in words", () => {
  const summary = create(RoundSummarySchema, {
    round: 2,
    faceDown: [card(City.DETROIT, { case: "sanction", value: Sanction.REVOLVER }), card(City.BOSTON, { case: "sanction", value: Sanction.PRISON })],
    awards: [
      { location: Location.DETROIT, winner: 1, card: card(City.DETROIT, { case: "sanction", value: Sanction.REVOLVER }), money: 0, sanction: Sanction.REVOLVER, sanctionApplied: true },
      { location: Location.BOSTON, winner: 0, card: card(City.BOSTON, { case: "sanction", value: Sanction.PRISON }), money: 0, sanction: Sanction.PRISON, sanctionApplied: true },
      { location: Location.MEMPHIS, winner: 2, card: card(City.MEMPHIS, { case: "sanction", value: Sanction.HOSPITAL }), money: 0, sanction: Sanction.HOSPITAL, sanctionApplied: false },
      { location: Location.CINCINNATI, winner: 3, card: card(City.CINCINNATI, { case: "sanction", value: Sanction.BANISHED }), money: 0, sanction: Sanction.BANISHED, sanctionApplied: true },
      { location: Location.NEW_YORK, winner: 2, card: card(City.NEW_YORK, { case: "money", value: 3 }), money: 3 },
      { location: Location.CHICAGO, winner: 3, money: 2, chicagoSum: 5 },
      { location: Location.KANSAS_CITY },
    ],
    moneyWon: [0, 0, 3, 2],
  });

  it("says what each sanction did, never a gain of $0", () => {
    const lines = resolutionLines(summary, seatName);
    assert.ok(!lines.some((l) => l.includes("+$0") && !l.startsWith("Money")), lines.join("\n"));
    assert.match(lines[0], /Detroit: Bob led and took Revolver: one of Bob's experts was killed/);
    assert.match(lines[1], /Boston: Ann led and took Prison: one of Ann's experts goes to prison for the next two rounds/);
    assert.match(lines[2], /Memphis: Cy led and took Hospital: no effect \(Cy had no expert left in play\)/);
    assert.match(lines[3], /Cincinnati: Di led and took Banished: Di is banished from Cincinnati for the rest of the game/);
    assert.match(lines[4], /New York: Cy led and won \$3/);
    assert.match(lines[5], /Chicago: Di led and won \$2 \(half of \$5/);
    assert.match(lines[6], /Kansas City: nobody was there/);
    assert.equal(lines[7], "Money won this round: Ann +$0, Bob +$0, Cy +$3, Di +$2");
    const logged = eventText(create(GameEventSchema, { kind: { case: "roundResolved", value: summary } }), seatName);
    assert.match(logged, /Revolver: one of Bob's experts was killed/);
    assert.doesNotMatch(logged, /Bob \+\$0/);
  });

  it("accounts for every expert of a seat: in prison, in hospital, killed; and banishments", () => {
    const supply = create(SupplySchema, { expertsFree: 2, expertsPlaced: 1, expertsInHospital: 1, expertsInPrison: [0, 1], expertsKilled: 1, occasionals: 2 });
    assert.equal(supplyText(supply), "experts: 2 free, 1 on the board, 1 in hospital, 1 in prison (out this round and 1 more), 1 killed · occasionals: 2 left");
    const seat = create(SeatViewSchema, { seat: 1, banished: [City.BOSTON, City.MEMPHIS], forfeited: true });
    assert.deepEqual(seatMarks(seat), ["banished from Boston, Memphis", "resigned or forfeited: the server plays for this seat"]);
    assert.equal(supplyText(create(SupplySchema, { expertsFree: 6, occasionals: 3 })), "experts: 6 free · occasionals: 3 left");
  });

  it("explains the tie-breaks of the final standings", () => {
    const outcome = create(OutcomeSchema, {
      winners: [2],
      rounds: 4,
      standings: [
        { seat: 2, money: 9, moneyLastRound: 4, gangstersOwned: 7 },
        { seat: 0, money: 9, moneyLastRound: 1, gangstersOwned: 8 },
        { seat: 1, money: 5, moneyLastRound: 2, gangstersOwned: 6 },
        { seat: 3, money: 5, moneyLastRound: 2, gangstersOwned: 4 },
      ],
    });
    assert.deepEqual(tieBreaks(outcome, seatName), [
      "Cy and Ann tied on $9; Cy won more in the last round ($4 to $1).",
      "Bob and Di tied on money and on the last round's; Bob owns more gangsters (6 to 4).",
    ]);
  });
});

describe("errors in a player's words", () => {
  const info = (reason: string) => new BinaryWriter().tag(1, 2).string(reason).finish();
  it("says what a refused join means, and never the service's raw words alone", () => {
    const full = new ConnectError("the game has already started", Code.FailedPrecondition);
    full.details.push({ type: "google.rpc.ErrorInfo", value: info("GAME_NOT_OPEN"), debug: undefined });
    assert.match(say(full).text, /already started.*watch/);
    const badId = new ConnectError("game_id: not an id this service made (a UUID)", Code.InvalidArgument);
    assert.equal(say(badId).text, "That is not a game this service knows: check the link.");
    assert.match(say(badId).detail, /game_id/);
    assert.match(say(new ConnectError("no", Code.NotFound)).text, /no such game/);
    assert.match(say(new ConnectError("no", Code.NotFound), "player").text, /no such player/);
    assert.match(say(new ConnectError("fetch", Code.Unknown, undefined, undefined, new TypeError("Failed to fetch"))).text, /cannot be reached/);
  });
  it("passes a name's refusal on, as it is meant for whoever typed it", () => {
    const e = new ConnectError("display_name: U+202E is not allowed", Code.InvalidArgument);
    assert.equal(say(e, "name").text, "U+202E is not allowed");
  });
});

describe("the rating chart", () => {
  it("draws one point per rated game of one category, not one per game and category", () => {
    // Twelve rated 4-player games: each has an entry for 4 players and one overall.
    const history = Array.from({ length: 12 }, (_, i) => [
      create(RatingChangeSchema, { gameId: `g${i}`, players: 4, mu: 25 + i, sigma: 8 - i * 0.2, at: { seconds: BigInt(1000 + i) } }),
      create(RatingChangeSchema, { gameId: `g${i}`, players: 0, mu: 24 + i, sigma: 8 - i * 0.2, at: { seconds: BigInt(1000 + i) } }),
    ]).flat().reverse();
    const overall = ratingSeries(history, 0);
    assert.equal(overall.length, 12);
    assert.deepEqual(overall.map((p) => p.gameId), Array.from({ length: 12 }, (_, i) => `g${i}`));
    assert.equal(ratingSeries(history, 4).length, 12);
    assert.equal(ratingSeries(history, 2).length, 0);
    assert.ok(Math.abs(overall[0].score - (24 - 24)) < 1e-9);
  });
});

describe("recovery codes", () => {
  it("carry a player whole, and say what is wrong with a bad one", () => {
    const p = { playerId: "3f1c", token: "tok.en/+=", name: "Zoë 🂡" };
    const code = encodeRecovery(p);
    assert.match(code, /^boss1-[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeRecovery(code), p);
    assert.deepEqual(decodeRecovery(`  ${code.slice(0, 10)}\n${code.slice(10)} `), p);
    assert.match((decodeRecovery("hello") as Error).message, /starts with/);
    assert.match((decodeRecovery(code.slice(0, -4)) as Error).message, /damaged/);
    assert.match((decodeRecovery("boss1-" + btoa('{"i":1}')) as Error).message, /damaged/);
  });
});

describe("the replay's table", () => {
  const entry = (seq: number, kind: Parameters<typeof create<typeof GameEventSchema>>[1]): HistoryEntry =>
    ({ seq: BigInt(seq), event: create(GameEventSchema, kind) }) as HistoryEntry;
  const entries = [
    entry(1, { kind: { case: "roundStarted", value: { round: 1, startPlayer: 0, row: [Location.NEW_YORK, Location.CHICAGO, Location.BOSTON] } } }),
    entry(2, { kind: { case: "handDealt", value: { seat: 0, cards: [card(City.NEW_YORK, { case: "money", value: 2 }), card(City.BOSTON, { case: "money", value: 3 })] } } }),
    entry(3, { kind: { case: "handDealt", value: { seat: 1, cards: [card(City.NEW_YORK, { case: "money", value: 1 })] } } }),
    entry(4, { kind: { case: "turnTaken", value: { seat: 0, round: 1, turn: 1, action: { placement: { location: Location.BOSTON, experts: 2, occasionals: 1 }, card: card(City.NEW_YORK, { case: "money", value: 2 }) } } } }),
    entry(5, { kind: { case: "turnTaken", value: { seat: 1, round: 1, turn: 1, action: { card: card(City.NEW_YORK, { case: "money", value: 1 }) } } } }),
    entry(6, {
      kind: {
        case: "roundResolved",
        value: { round: 1, awards: [{ location: Location.BOSTON, winner: 0, card: card(City.BOSTON, { case: "money", value: 4 }), money: 4 }], moneyWon: [4, 0] },
      },
    }),
    entry(7, { kind: { case: "roundStarted", value: { round: 2, startPlayer: 1, row: [Location.NEW_YORK, Location.BOSTON, Location.CHICAGO] } } }),
  ];

  it("shows where each turn put its gangsters and card, the hands left and the money won", () => {
    const states = replayStates(entries, 2);
    assert.equal(states.length, entries.length + 1);
    assert.equal(states[0].row.length, 0);
    const afterFirstTurn = states[4];
    const boston = afterFirstTurn.row.find((l) => l.location === Location.BOSTON);
    assert.deepEqual([boston?.experts, boston?.occasionals], [[2, 0], [1, 0]]);
    assert.equal(afterFirstTurn.row.find((l) => l.location === Location.NEW_YORK)?.played.length, 1);
    assert.equal(afterFirstTurn.hands[0].length, 1);
    assert.equal(afterFirstTurn.lastSeat, 0);
    assert.equal(afterFirstTurn.lastPlacement, Location.BOSTON);
    // Earlier states are not changed by later steps.
    assert.equal(states[3].hands[0].length, 2);
    const resolved = states[6];
    assert.deepEqual(resolved.money, [4, 0]);
    assert.equal(resolved.row.find((l) => l.location === Location.BOSTON)?.revealed?.face.value, 4);
    const next = states[7];
    assert.equal(next.round, 2);
    assert.deepEqual(next.row.map((l) => l.played.length + l.experts[0]), [0, 0, 0]);
    assert.deepEqual(next.money, [4, 0]);
    assert.deepEqual([...roundStarts(entries)], [[1, 1], [2, 7]]);
  });
});

describe("a challenge's newer state", () => {
  const state = (status: ChallengeStatus, answers: ChallengeAnswer[], gameIds: string[] = []) =>
    create(ChallengeSchema, {
      challengeId: "c1",
      status,
      opponents: answers.map((answer, i) => ({ playerId: `p${i}`, answer })),
      gameIds,
    });
  const pending = state(ChallengeStatus.PENDING, [ChallengeAnswer.PENDING, ChallengeAnswer.PENDING]);
  const oneAnswered = state(ChallengeStatus.PENDING, [ChallengeAnswer.ACCEPTED, ChallengeAnswer.PENDING]);
  const seating = state(ChallengeStatus.SEATING, [ChallengeAnswer.ACCEPTED, ChallengeAnswer.ACCEPTED]);
  const started = state(ChallengeStatus.STARTED, [ChallengeAnswer.ACCEPTED, ChallengeAnswer.ACCEPTED], ["g1"]);

  it("keeps the game of a seated challenge when the answer to the accept arrives after the stream's news", () => {
    assert.equal(newer(started, seating), started);
    assert.equal(newer(seating, started), started);
  });

  it("takes answers as they come, and never goes back to fewer", () => {
    assert.equal(newer(undefined, pending), pending);
    assert.equal(newer(pending, oneAnswered), oneAnswered);
    assert.equal(newer(oneAnswered, pending), oneAnswered);
    const withdrawn = state(ChallengeStatus.WITHDRAWN, [ChallengeAnswer.PENDING, ChallengeAnswer.PENDING]);
    assert.equal(newer(oneAnswered, withdrawn), withdrawn);
  });
});
