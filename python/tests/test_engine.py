"""The rules offline: the engine's API, its errors, and hidden information."""

from __future__ import annotations

import copy
import hashlib
import random

import pytest

from theboss import engine
from theboss.engine import Game, RuleViolation
from theboss.errors import InconsistentView, InvalidArgument, InvalidConfig, InvalidMessage, WrongType
from theboss.v1 import model_pb2


def random_game(players: int, seed: int, turns: int | None = None) -> Game:
    game = Game(players, seed)
    rng = random.Random(seed)
    played = 0
    while not game.is_over and (turns is None or played < turns):
        game.apply_index(rng.randrange(game.legal_count()))
        played += 1
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_is_played_to_its_end(players: int) -> None:
    game = random_game(players, 11)
    assert game.is_over and game.to_move is None
    assert game.status == model_pb2.GAME_STATUS_FINISHED
    assert all(game.view(s).status == model_pb2.GAME_STATUS_FINISHED for s in [None, *range(players)])
    outcome = game.outcome()
    assert outcome is not None and outcome.winners
    assert [s.money for s in sorted(outcome.standings, key=lambda s: s.seat)] == game.money()
    assert game.legal_turns() == [] and game.legal_count() == 0
    with pytest.raises(RuleViolation) as error:
        game.apply_index(0)
    assert error.value.reason == "GAME_OVER"


def test_the_status_is_running_until_the_game_ends() -> None:
    game = random_game(2, 4, turns=3)
    assert game.status == model_pb2.GAME_STATUS_RUNNING
    assert game.view(0).status == game.view().status == model_pb2.GAME_STATUS_RUNNING


def test_the_three_ways_to_list_legal_turns_agree() -> None:
    game = random_game(3, 5, turns=7)
    turns = game.legal_turns()
    assert len(turns) == game.legal_count() > 0
    assert sorted(engine.action_id(t) for t in turns) == game.legal_action_ids()
    from_view = engine.view_turns(game.view(game.to_move))
    assert sorted(engine.action_id(t) for t in from_view) == game.legal_action_ids()
    assert engine.view_turns(game.view((game.to_move + 1) % 3)) == []


def test_every_action_id_names_one_turn() -> None:
    assert engine.ACTION_COUNT == len(engine.deck()) * 225
    for action in range(engine.ACTION_COUNT):
        assert engine.action_id(engine.action_of_id(action)) == action
    with pytest.raises(InvalidArgument) as error:
        engine.action_of_id(engine.ACTION_COUNT)
    assert error.value.field == "id"


def test_the_same_seed_and_turns_give_the_same_game() -> None:
    a, b = random_game(4, 99), random_game(4, 99)
    assert a.money() == b.money() and a.outcome() == b.outcome()
    assert [e.event for e in a.events()] == [e.event for e in b.events()]
    assert random_game(4, 100).events() != a.events()


def test_replay_rebuilds_a_game_from_its_turns() -> None:
    game = random_game(3, 8)
    turns = [
        (e.event.turn_taken.seat, e.event.turn_taken.action)
        for e in game.events()
        if e.event.HasField("turn_taken")
    ]
    again = engine.replay(3, 8, turns, game.cities, game.rules_version)
    assert again.outcome() == game.outcome() and again.view(0) == game.view(0)


def test_a_broken_rule_is_named_and_changes_nothing() -> None:
    game = random_game(3, 21, turns=4)
    before = [game.view(s) for s in range(3)] + [game.view()]
    seat = game.to_move
    other = (seat + 1) % 3
    legal = game.legal_turns()[0]
    cases = {
        "TURN_ORDER": (legal, other),
        "CARD_IN_HAND": (model_pb2.TurnAction(card=game.hand(other)[0]), seat),
    }
    too_many = model_pb2.TurnAction(card=legal.card)
    too_many.placement.location = model_pb2.LOCATION_NEW_YORK
    too_many.placement.experts = 6
    too_many.placement.occasionals = 3
    empty = model_pb2.TurnAction(card=legal.card)
    empty.placement.location = model_pb2.LOCATION_NEW_YORK
    cases["PLACEMENT_NOT_EMPTY"] = (empty, seat)
    for rule, (turn, by) in cases.items():
        with pytest.raises(RuleViolation) as error:
            game.apply(turn, by)
        assert error.value.reason == rule and rule in engine.RULE_NAMES, error.value
        assert [game.view(s) for s in range(3)] + [game.view()] == before
    with pytest.raises(RuleViolation) as error:
        game.apply(too_many, seat)
    assert error.value.reason == "EXPERTS_AVAILABLE"
    # A seat out of range is a bad argument, not a rule: as the server answers it.
    with pytest.raises(InvalidArgument) as bad:
        game.apply(legal, 7)
    assert bad.value.field == "seat" and bad.value.reason is None
    assert game.view(seat) == before[seat]


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(InvalidConfig, match="2 to 4 players"):
        Game(5, 1)
    with pytest.raises(InvalidConfig):
        Game(2, 1, cities=[1, 2])
    with pytest.raises(InvalidConfig, match="rules_version"):
        Game(2, 1, rules_version=99)
    with pytest.raises(InvalidConfig, match="cities"):
        Game(2, 1, cities=[0, 1, 2])
    with pytest.raises(InvalidConfig) as config:
        Game(2, -1)
    assert config.value.field == "seed"
    game = Game(2, 1)
    with pytest.raises(InvalidMessage, match="TurnAction"):
        game.apply(b"\xff\xff\xff")
    with pytest.raises(InvalidMessage, match="card"):
        game.apply(model_pb2.TurnAction())
    with pytest.raises(WrongType, match="theboss.v1.TurnAction"):
        game.apply(model_pb2.Card())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="no seat 2") as seat:
        game.view(2)
    assert seat.value.field == "seat"
    with pytest.raises(InvalidArgument):
        game.hand(9)
    with pytest.raises(InvalidArgument) as index:
        game.apply_index(game.legal_count())
    assert index.value.field == "index"
    with pytest.raises(InvalidMessage):
        engine.face_down_odds(model_pb2.GameView())


def test_city_sets_and_rules_versions_are_the_engines() -> None:
    for players in (2, 3, 4):
        for cities in engine.city_sets(players):
            assert sorted(Game(players, 3, cities).cities) == sorted(cities)
    assert engine.city_sets(2)[0] == Game(2, 3).cities
    versions = engine.rules_versions()
    assert versions[-1] == engine.RULES_VERSION == Game(2, 1).rules_version
    assert Game(2, 1, rules_version=versions[0]).rules_version == versions[0]


def test_hands_are_private_events() -> None:
    game = Game(3, 4)
    dealt = [e for e in game.events() if e.event.HasField("hand_dealt")]
    assert sorted(e.private_to for e in dealt) == [0, 1, 2]
    for e in dealt:
        assert e.event.hand_dealt.seat == e.private_to
        assert list(e.event.hand_dealt.cards) == game.hand(e.private_to)
    assert all(e.private_to is None for e in game.events() if not e.event.HasField("hand_dealt"))


def test_a_seats_view_is_the_same_whatever_it_cannot_see() -> None:
    """Hidden information: games that differ only in what seat 0 cannot know (other hands,
    face-down cards, the police order, the seed: determinizations of its view) show seat 0
    the same view, while their hidden parts differ."""
    game = random_game(4, 31, turns=9)
    view = game.view(0)
    worlds = [engine.determinize(view, seed) for seed in range(6)]
    assert len({tuple(c.SerializeToString() for c in w.hand(1)) for w in worlds}) > 1
    assert len({w.seed for w in worlds}) == 6
    for world in worlds:
        assert world.view(0) == view
    assert engine.face_down_odds(view) == engine.face_down_odds(worlds[0].view(0))
    # Nor does a spectator's, which knows less.
    for world in worlds:
        assert world.view() == game.view()


def test_determinize_refuses_an_impossible_view() -> None:
    view = Game(3, 2).view(0)
    view.seats[1].hand_size = 40
    for seat in view.seats:
        del seat.hand_backs[:]
    with pytest.raises((InconsistentView, InvalidMessage)):
        engine.determinize(view, 1)


def test_odds_are_probabilities_over_unseen_cards() -> None:
    game = random_game(3, 13, turns=3)
    view = game.view(game.to_move)
    odds = engine.face_down_odds(view)
    assert [o.city for o in odds] == [l.location for l in view.locations if l.face_down]
    mine = {c.SerializeToString() for c in view.hand}
    for city in odds:
        assert sum(p for _, p in city.candidates) == pytest.approx(1.0)
        assert all(c.city == city.city for c, _ in city.candidates)
        assert not mine & {c.SerializeToString() for c, _ in city.candidates}
        assert 0 <= city.expected_money() <= 4


def test_copies_are_independent() -> None:
    game = random_game(2, 3, turns=2)
    for twin in (game.copy(), copy.copy(game), copy.deepcopy(game)):
        twin.apply_index(0)
        assert twin.event_count() > game.event_count()
    assert game.view(0) == random_game(2, 3, turns=2).view(0)


def test_the_seed_commitment_is_the_one_the_proto_documents() -> None:
    # GameView.seed_commitment: SHA-256 of "theboss-seed-v1:" + salt + ":" + seed, in hex.
    commitment = engine.seed_commitment(42, "salt")
    assert commitment == hashlib.sha256(b"theboss-seed-v1:salt:42").hexdigest()
    assert engine.shuffle_verified(commitment, 42, "salt")
    assert not engine.shuffle_verified(commitment, 43, "salt")
