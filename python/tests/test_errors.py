"""One error model, offline and online: the same mistake is the same class with the same
attribute wherever it is made, and no bad argument surfaces as a Python built-in exception
(the kit's own ValueError and TypeError subclasses only)."""

from __future__ import annotations

import pickle
from typing import Any, Callable

import grpc
import pytest

from conftest import seat_players
from theboss import engine
from theboss.client import Client
from theboss.errors import (
    Aborted,
    BadRequest,
    FailedPrecondition,
    InvalidArgument,
    InvalidConfig,
    RpcError,
    RuleRefused,
    RuleViolation,
    TheBossError,
    WrongType,
)
from theboss.v1 import model_pb2


def refusal(call: Callable[[], Any]) -> TheBossError:
    """The error ``call`` raises, checked to be one of the kit's, and a ValueError or a
    TypeError when it is about an argument."""
    with pytest.raises(Exception) as raised:
        call()
    error = raised.value
    assert isinstance(error, TheBossError), f"{type(error).__name__} leaked: {error}"
    return error


def test_a_broken_rule_is_a_rule_violation_with_its_reason_offline_and_online(client: Client) -> None:
    game_id, sessions = seat_players(client, 2, seed=99, visibility=model_pb2.VISIBILITY_UNLISTED)
    offline = engine.Game(2, 99)
    waiting = 1 - offline.to_move
    turn = offline.legal_turns()[0]
    refused_offline = refusal(lambda: offline.apply(turn, waiting))
    view = sessions[waiting].view(game_id)
    refused_online = refusal(lambda: sessions[waiting].submit(game_id, view.seq, turn))
    for error in (refused_offline, refused_online):
        assert isinstance(error, RuleViolation) and error.reason == "TURN_ORDER"
    # Online it is the server's FAILED_PRECONDITION too, with its code.
    assert isinstance(refused_online, RuleRefused) and isinstance(refused_online, FailedPrecondition)
    assert isinstance(refused_online, RpcError)
    assert refused_online.code == grpc.StatusCode.FAILED_PRECONDITION
    # A rule of the table is no rule of the game: a FailedPrecondition, not a RuleViolation.
    outsider = client.register("outsider")
    table = refusal(lambda: outsider.join(game_id))
    assert isinstance(table, FailedPrecondition) and not isinstance(table, RuleViolation)
    assert table.reason in ("GAME_NOT_OPEN", "TABLE_FULL")
    # And a stale sequence number is neither.
    stale = refusal(lambda: sessions[1 - waiting].submit(game_id, view.seq + 3, turn))
    assert isinstance(stale, Aborted) and not isinstance(stale, RuleViolation)


def test_a_seat_out_of_range_is_an_invalid_argument_named_seat_offline_and_online(client: Client) -> None:
    me = client.register("seat-chooser")
    game_id = me.create_game(2)
    online = refusal(lambda: me.join(game_id, seat=7))
    assert isinstance(online, BadRequest) and online.code == grpc.StatusCode.INVALID_ARGUMENT
    game = engine.Game(3, 1)
    turn = game.legal_turns()[0]
    for error in [
        online,
        refusal(lambda: game.apply(turn, 7)),
        refusal(lambda: game.apply(turn, -1)),
        refusal(lambda: game.apply(turn, 2**70)),
        refusal(lambda: game.view(5)),
        refusal(lambda: game.view(-1)),
        refusal(lambda: game.hand(9)),
    ]:
        assert isinstance(error, InvalidArgument) and isinstance(error, ValueError), error
        assert error.field == "seat", error
        assert not isinstance(error, RuleViolation)


# Every call of the engine with a value out of range or of the wrong type: (call, class,
# field). Before the one error model, these raised OverflowError, IndexError, ValueError,
# TypeError or RuleViolation, each its own way.
game = engine.Game(2, 5)
view = game.view(game.to_move)
BAD_CALLS: list[tuple[str, Callable[[], Any], type, str]] = [
    ("apply_index(-1)", lambda: game.copy().apply_index(-1), InvalidArgument, "index"),
    ("apply_index(10**6)", lambda: game.copy().apply_index(10**6), InvalidArgument, "index"),
    ("apply_index(10**30)", lambda: game.copy().apply_index(10**30), InvalidArgument, "index"),
    ("apply_index('0')", lambda: game.copy().apply_index("0"), WrongType, "index"),
    ("apply_action_id(-1)", lambda: game.copy().apply_action_id(-1), InvalidArgument, "id"),
    ("apply_action_id(10**9)", lambda: game.copy().apply_action_id(10**9), InvalidArgument, "id"),
    ("action_of_id(-5)", lambda: engine.action_of_id(-5), InvalidArgument, "id"),
    ("action_of_id(ACTION_COUNT)", lambda: engine.action_of_id(engine.ACTION_COUNT), InvalidArgument, "id"),
    ("action_of_id(1.5)", lambda: engine.action_of_id(1.5), WrongType, "id"),
    ("Game(2, -1)", lambda: engine.Game(2, -1), InvalidConfig, "seed"),
    ("Game(2, 2**64)", lambda: engine.Game(2, 2**64), InvalidConfig, "seed"),
    ("Game(300, 1)", lambda: engine.Game(300, 1), InvalidConfig, "players"),
    ("Game(-2, 1)", lambda: engine.Game(-2, 1), InvalidConfig, "players"),
    ("Game(5, 1)", lambda: engine.Game(5, 1), InvalidConfig, "players"),
    ("Game('2', 1)", lambda: engine.Game("2", 1), WrongType, "players"),
    ("Game(2, 1, cities=[-1])", lambda: engine.Game(2, 1, cities=[-1]), InvalidConfig, "cities"),
    ("Game(2, 1, cities=3)", lambda: engine.Game(2, 1, cities=3), WrongType, "cities"),
    ("Game(2, 1, rules_version=-1)", lambda: engine.Game(2, 1, rules_version=-1), InvalidConfig, "rules_version"),
    ("events(-1)", lambda: game.events(-1), InvalidArgument, "start"),
    ("determinize(view, -1)", lambda: engine.determinize(view, -1), InvalidArgument, "seed"),
    ("determinize(turn, 1)", lambda: engine.determinize(game.legal_turns()[0], 1), WrongType, "view"),
    ("seed_commitment(-1, 's')", lambda: engine.seed_commitment(-1, "s"), InvalidArgument, "seed"),
    ("seed_commitment(1, 2)", lambda: engine.seed_commitment(1, 2), WrongType, "salt"),
    ("city_sets(-1)", lambda: engine.city_sets(-1), InvalidConfig, "players"),
    ("city_sets(9)", lambda: engine.city_sets(9), InvalidConfig, "players"),
    ("apply(Card)", lambda: game.copy().apply(model_pb2.Card()), WrongType, "turn"),
    ("apply(b'garbage')", lambda: game.copy().apply(b"\xff\xff"), InvalidArgument, "turn"),
    ("parse_turn('dance')", lambda: engine.parse_turn("dance"), InvalidArgument, "text"),
    ("parse_turn(3)", lambda: engine.parse_turn(3), WrongType, "text"),
    ("location_name(99)", lambda: engine.location_name(99), InvalidArgument, "location"),
]


@pytest.mark.parametrize("name, call, expected, field", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_a_bad_argument_raises_the_kits_own_exception(
    name: str, call: Callable[[], Any], expected: type, field: str
) -> None:
    error = refusal(call)
    assert isinstance(error, expected), f"{name}: {type(error).__name__}: {error}"
    assert isinstance(error, (ValueError, TypeError))
    assert not isinstance(error, (OverflowError, IndexError))
    assert error.field == field, f"{name}: field {error.field!r}: {error}"
    assert error.message and str(error)


def test_the_game_is_unchanged_after_each_refusal() -> None:
    before = [game.view(s) for s in range(2)]
    for _, call, _, _ in BAD_CALLS:
        with pytest.raises(TheBossError):
            call()
    assert [game.view(s) for s in range(2)] == before


def test_bad_arguments_to_the_client_are_refused_before_anything_is_sent(client: Client) -> None:
    me = client.register("careless")
    for call, expected in [
        (lambda: me.create_game(-1), InvalidArgument),
        (lambda: me.create_game("two"), WrongType),
        (lambda: me.join("some-game", seat=-3), InvalidArgument),
        (lambda: me.submit("some-game", -1, model_pb2.TurnAction()), InvalidArgument),
        (lambda: me.submit("some-game", 3, model_pb2.Card()), WrongType),
        (lambda: me.leaderboard(players=-2), InvalidArgument),
    ]:
        error = refusal(call)
        assert isinstance(error, expected), error
        assert not isinstance(error, RpcError), "refused before the call"
    assert me.stats.unavailable == 0


def test_errors_pickle_with_their_attributes(client: Client) -> None:
    me = client.register("pickler")
    online = refusal(lambda: me.join(me.create_game(2), seat=9))
    offline = refusal(lambda: engine.Game(2, 3).apply(engine.Game(2, 3).legal_turns()[0], 1 - engine.Game(2, 3).to_move))
    for error in (online, offline, refusal(lambda: engine.Game(7, 1))):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error)
        assert (again.message, again.reason, again.field, str(again)) == (
            error.message, error.reason, error.field, str(error)
        )
        if isinstance(error, RpcError):
            assert isinstance(again, RpcError) and again.code == error.code and again.call == error.call
