"""The rules of The Boss offline: the server's own engine (Rust, through PyO3), so the same
seed and the same turns give the same game, the same views and the same scores as the
service.

Every observation is the protobuf message the server streams (``theboss.v1.GameView``), and
every turn the one it accepts (``theboss.v1.TurnAction``), so one bot reads and writes one
type offline and online::

    from theboss.engine import Game

    game = Game(players=3, seed=7)
    while not game.is_over:
        view = game.view(game.to_move)          # a theboss.v1.GameView
        game.apply(game.legal_turns()[0])       # a theboss.v1.TurnAction
    print(game.money(), game.outcome().winners)

For fast playouts, ``legal_count()`` and ``apply_index(i)`` (or the fixed action space of
``legal_action_ids()`` / ``apply_action_id(id)``) build no message at all.

Turns read and write as the CLI's notation, ``place boston 2e 1o; play detroit 3``
(``turn_text``, ``parse_turn``, the engine's own grammar); ``theboss.board.render(view)``
prints a view as a table.

A broken rule raises ``theboss.errors.RuleViolation`` (``reason``: the rule, one of
``RULE_NAMES``); a bad argument ``theboss.errors.InvalidArgument`` (``field``: which) or
``WrongType``.
"""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

from theboss._engine import (
    ACTION_COUNT,
    EXPERTS_PER_PLAYER,
    MAX_ROUNDS,
    NOTATION,
    OCCASIONALS_PER_PLAYER,
    RULE_NAMES,
    RULES_VERSION,
    TURNS_PER_ROUND,
    Game,
    action_id,
    action_of_id,
    card_text,
    city_sets,
    deck,
    determinize,
    face_down_odds,
    location_name,
    parse_turn,
    rules_versions,
    seed_commitment,
    turn_text,
    view_turns,
)
from theboss._types import CityOdds, LoggedEvent
from theboss.errors import (
    InconsistentView,
    InvalidArgument,
    InvalidConfig,
    InvalidMessage,
    InvalidNotation,
    RuleViolation,
    WrongType,
)
from theboss.v1 import game_service_pb2, model_pb2

__all__ = [
    "ACTION_COUNT",
    "EXPERTS_PER_PLAYER",
    "MAX_ROUNDS",
    "NOTATION",
    "OCCASIONALS_PER_PLAYER",
    "RULE_NAMES",
    "RULES_VERSION",
    "TURNS_PER_ROUND",
    "CityOdds",
    "Game",
    "InconsistentView",
    "InvalidArgument",
    "InvalidConfig",
    "InvalidMessage",
    "InvalidNotation",
    "LoggedEvent",
    "RuleViolation",
    "WrongType",
    "action_id",
    "action_of_id",
    "card_text",
    "city_sets",
    "deck",
    "determinize",
    "face_down_odds",
    "location_name",
    "parse_turn",
    "replay",
    "replay_history",
    "rules_versions",
    "seed_commitment",
    "shuffle_verified",
    "turn_text",
    "view_turns",
]


def replay(
    players: int,
    seed: int,
    turns: Iterable[Tuple[int, model_pb2.TurnAction]],
    cities: Optional[list[int]] = None,
    rules_version: Optional[int] = None,
) -> Game:
    """A game rebuilt from its configuration and its turns, as ``(seat, TurnAction)``."""
    game = Game(players, seed, cities, rules_version)
    for seat, turn in turns:
        game.apply(turn, seat)
    return game


def replay_history(history: game_service_pb2.GetHistoryResponse) -> Game:
    """A finished game rebuilt from its ``GetHistory`` answer: the settings of its
    ``game_started`` event, the revealed seed and every ``turn_taken`` (turns the server
    played on a timeout included, as they were played)."""
    if not history.HasField("seed"):
        raise InvalidMessage(
            "the history reveals no seed: the game (or its set) is not over", field="seed"
        )
    started = next(
        (e.event.game_started for e in history.entries if e.event.HasField("game_started")),
        None,
    )
    if started is None:
        raise InvalidMessage(
            "the history has no game_started event: the game never started", field="entries"
        )
    turns = [
        (e.event.turn_taken.seat, e.event.turn_taken.action)
        for e in history.entries
        if e.event.HasField("turn_taken")
    ]
    return replay(
        started.players,
        history.seed,
        turns,
        list(started.cities),
        started.rules_version,
    )


def shuffle_verified(commitment: str, seed: int, salt: str) -> bool:
    """Whether a revealed seed and salt hash to the commitment the views showed."""
    return seed_commitment(seed, salt) == commitment
