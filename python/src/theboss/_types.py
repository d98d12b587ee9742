"""Small result types the engine module builds (kept in Python so they are plain tuples)."""

from __future__ import annotations

from typing import NamedTuple, Optional

from theboss.v1 import model_pb2


class LoggedEvent(NamedTuple):
    """An event of a game and who may see it: ``private_to`` is the only seat that sees it
    during play (a hand dealt), None for an event everyone sees."""

    private_to: Optional[int]
    event: model_pb2.GameEvent


class CityOdds(NamedTuple):
    """What one city's face-down card can be, from a viewer's knowledge."""

    city: int
    """The city, as a ``theboss.v1.City`` number."""
    candidates: list[tuple[model_pb2.Card, float]]
    """Each card it may be, with its probability."""
    expected: float
    """The card's expected money, as the engine counts it (sanctions count 0)."""

    def expected_money(self) -> float:
        """The card's expected money (the engine's, as ``expected``)."""
        return self.expected
