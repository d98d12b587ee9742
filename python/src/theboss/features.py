"""A view as a vector of numbers, for learning: ``encode_view`` lays a ``theboss.v1.GameView``
out as ``OBSERVATION_SIZE`` floats described by ``FEATURES``. Offline and online views give
the same vector, since both are the same message; the PettingZoo environment
(``theboss.env``) and the OpenSpiel game (``theboss.openspiel``) observe through it. Needs
numpy only.
"""

from __future__ import annotations

import numpy as np

from theboss import engine
from theboss.v1 import model_pb2

__all__ = ["FEATURES", "OBSERVATION_SIZE", "encode_view", "zero_sum_returns"]

_MAX_SEATS = 4
_LOCATIONS = 8  # the seven cities and Chicago (Location numbers 1..8)
_DECK = engine.deck()
_CARD_INDEX = {card.SerializeToString(deterministic=True): i for i, card in enumerate(_DECK)}

FEATURES: list[tuple[str, int]] = [
    ("round, turn, last_turn, last_round", 4),
    ("police: silver, gold, remaining", 3),
    ("chicago_value", 1),
    ("per location 1..8: in play, face down, 4×(experts, occasionals), leader one-hot (none + 4 seats), cards played, their money", _LOCATIONS * 17),
    ("per seat 0..3: present, is the viewer, money, money last round, hand size, experts free, occasionals, experts killed, banished cities", _MAX_SEATS * 9),
    ("the viewer's hand: count per card of the deck", len(_DECK)),
    ("expected money of each city's face-down card, cities 1..7", 7),
]
OBSERVATION_SIZE = sum(n for _, n in FEATURES)


def _card_money(card: model_pb2.Card) -> int:
    return card.money if card.WhichOneof("face") == "money" else 0


def encode_view(view: model_pb2.GameView) -> np.ndarray:
    """A view as the flat float32 vector ``FEATURES`` describes (same result offline and
    online, since both give the same ``GameView``)."""
    out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    out[0:4] = (view.round, view.turn, view.last_turn, view.last_round)
    out[4:7] = (view.police.silver, view.police.gold, view.police.remaining)
    out[7] = view.chicago_value
    at = 8
    for location in view.locations:
        base = at + (location.location - 1) * 17
        out[base] = 1
        out[base + 1] = location.face_down
        for i, g in enumerate(location.gangsters[:_MAX_SEATS]):
            out[base + 2 + 2 * i] = g.experts
            out[base + 3 + 2 * i] = g.occasionals
        leader = location.leader + 1 if location.HasField("leader") else 0
        out[base + 10 + leader] = 1
        out[base + 15] = len(location.played)
        out[base + 16] = sum(_card_money(c) for c in location.played)
    at += _LOCATIONS * 17
    for seat in view.seats[:_MAX_SEATS]:
        base = at + seat.seat * 9
        supply = seat.supply
        out[base : base + 9] = (
            1,
            view.HasField("viewer_seat") and view.viewer_seat == seat.seat,
            seat.money,
            seat.money_last_round,
            seat.hand_size,
            supply.experts_free,
            supply.occasionals,
            supply.experts_killed,
            len(seat.banished),
        )
    at += _MAX_SEATS * 9
    for card in view.hand:
        out[at + _CARD_INDEX[card.SerializeToString(deterministic=True)]] += 1
    at += len(_DECK)
    for odds in engine.face_down_odds(view):
        out[at + odds.city - 1] = odds.expected_money()
    return out


def zero_sum_returns(outcome: model_pb2.Outcome, players: int) -> list[float]:
    """Each seat's return at the end of a game, zero-sum: the winners share +1 and the
    others share -1 (a game everyone wins returns 0 to all)."""
    winners = set(outcome.winners)
    losers = players - len(winners)
    return [
        (1.0 / len(winners) if seat in winners else -1.0 / losers) if 0 < len(winners) < players else 0.0
        for seat in range(players)
    ]
