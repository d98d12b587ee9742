"""Parity: the Python package plays the server's game exactly. Games stored by the Rust
server (the golden store every version must keep replaying) replay through the package to
the same deals, events, money and winners; and live games, seat by seat and turn by turn,
show the same views offline as the server streams."""

from __future__ import annotations

import json
import pathlib
import random
import shutil

import pytest

from conftest import REPO, seat_players
from theboss import engine
from theboss.client import Client
from theboss.v1 import model_pb2

GOLDEN = REPO / "server" / "tests" / "golden" / "v1"

# What the engine says; the rest of a server's history is the table's (joins, leaves, aborts).
ENGINE_EVENTS = {
    "game_started", "round_started", "hand_dealt", "police_revealed", "turn_taken",
    "last_turn_order", "round_resolved", "decisive_round", "game_ended",
}


def card_fact(card: model_pb2.Card) -> str:
    """A card as golden/facts.rs writes it: `city-number:face`."""
    face = card.WhichOneof("face")
    if face == "money":
        return f"{card.city}:{card.money}"
    return f"{card.city}:{model_pb2.Sanction.Name(card.sanction).removeprefix('SANCTION_').lower()}"


def deals_of(game: engine.Game) -> list[dict]:
    """Every round's hands (by seat) and face-down cards, from the game's own log."""
    deals: list[dict] = []
    for logged in game.events():
        event = logged.event
        kind = event.WhichOneof("kind")
        if kind == "round_started":
            deals.append({"round": event.round_started.round, "hands": [None] * game.players})
        elif kind == "hand_dealt":
            deals[-1]["hands"][event.hand_dealt.seat] = [card_fact(c) for c in event.hand_dealt.cards]
        elif kind == "round_resolved":
            deals[-1]["face_down"] = [card_fact(c) for c in event.round_resolved.face_down]
    return deals


def test_the_golden_store_replays_through_python(make_server, tmp_path: pathlib.Path) -> None:
    facts = json.loads((GOLDEN / "facts.json").read_text())
    copy = tmp_path / "golden.db"
    shutil.copy(GOLDEN / "theboss.db", copy)
    server = make_server(database=copy)
    finished = [f for f in facts if f["status"] == "finished"]
    assert len(finished) >= 6, "the golden store holds finished games of every size"
    with Client(server.target) as client:
        reader = client.register("auditor")
        for fact in finished:
            history = reader.history(fact["game_id"])
            game = engine.replay_history(history)
            assert game.is_over, fact["game_id"]
            assert game.money() == fact["money"], fact["game_id"]
            assert sorted(game.outcome().winners) == sorted(fact["winners"]), fact["game_id"]
            replayed = deals_of(game)
            assert len(replayed) == len(fact["deals"]) > 0, fact["game_id"]
            for deal, expected in zip(replayed, fact["deals"]):
                assert deal["round"] == expected["round"]
                assert deal["hands"] == expected["hands"], (fact["game_id"], deal["round"])
                if "face_down" in deal:
                    assert deal["face_down"] == expected["face_down"]
            # The same events as the server recorded (a timeout's turn is marked only there).
            stored = [e.event for e in history.entries if e.event.WhichOneof("kind") in ENGINE_EVENTS]
            for event in stored:
                if event.HasField("turn_taken"):
                    event.turn_taken.by_timeout = False
            assert [e.event for e in game.events()] == stored, fact["game_id"]


def table_free(view: model_pb2.GameView) -> model_pb2.GameView:
    """A server view without what only the table knows (ids, settings, players, sequence
    numbers, clocks, commitment): the engine's part, comparable offline, where the status
    is the game's too (running, then finished)."""
    view = model_pb2.GameView.FromString(view.SerializeToString())
    for field in ("game_id", "settings", "seq", "seed_commitment", "seeded"):
        view.ClearField(field)
    for seat in view.seats:
        seat.ClearField("player")
        seat.ClearField("timeouts_in_a_row")
        seat.ClearField("forfeited")
    if view.HasField("legal"):
        view.legal.ClearField("deadline")
    return view


@pytest.mark.parametrize(
    "players, cities, rules_version",
    [(2, [], 0), (3, [2, 3, 4, 5, 6], 0), (4, [], 1)],
)
def test_live_views_equal_offline_views_turn_by_turn(
    server, players: int, cities: list[int], rules_version: int
) -> None:
    seed = 1000 + players
    with Client(server.target) as client:
        game_id, sessions = seat_players(
            client, players, seed=seed, cities=cities,
            visibility=model_pb2.VISIBILITY_UNLISTED, rules_version=rules_version,
        )
        offline = engine.Game(players, seed, cities or None, rules_version or None)
        rng = random.Random(seed)
        turns = 0
        while True:
            views = [s.view(game_id) for s in sessions]
            for seat, view in enumerate(views):
                assert table_free(view) == offline.view(seat), (seat, turns)
            if turns % 10 == 0:
                # The server's deduction for a seat is the package's for that seat's view.
                online = sessions[turns % players].odds(game_id)
                offline_odds = engine.face_down_odds(views[turns % players])
                assert [c.city for c in online.cities] == [o.city for o in offline_odds]
                for city, mine in zip(online.cities, offline_odds):
                    assert list(city.cards) == [
                        model_pb2.CardOdds(card=card, probability=p) for card, p in mine.candidates
                    ]
                    assert city.expected_money == pytest.approx(mine.expected_money())
            if offline.is_over:
                break
            mover = offline.to_move
            assert views[0].to_move == mover
            turn = rng.choice(engine.view_turns(views[mover]))
            sessions[mover].submit(game_id, views[mover].seq, turn)
            offline.apply(turn)
            turns += 1
        assert views[0].status == model_pb2.GAME_STATUS_FINISHED
        assert views[0].outcome == offline.outcome()
        assert turns > 20
