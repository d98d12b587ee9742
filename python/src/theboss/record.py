"""Game records: reading the documented JSON format of a finished game
(``docs/game-record.schema.json``, what ``Session.export_games`` and ``boss export`` write,
one per line) and replaying it offline.

::

    from theboss import record

    for game in record.read_file("games.ndjson"):
        replayed = game.replay()            # the engine, checked against the record
        print(game.game_id, replayed.game.money(), replayed.shuffle)
        for turn in game.turns:
            print(turn.seat, turn)           # place boston 2e 1o; play detroit 3

The format is parsed by the workspace's own reader (the Rust ``theboss::record``, through
the extension), so names of cities and cards, seeds and versions are read one way
everywhere; a document that is not a record of this format raises ``InvalidRecord``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Literal, Optional, Union

from theboss._engine import Game, record_turns, replay_record, turn_text
from theboss.errors import InvalidRecord
from theboss.v1 import model_pb2

__all__ = ["GameRecord", "Replayed", "SeatRecord", "TurnRecord", "read", "read_file", "read_lines"]

Shuffle = Literal["verified", "unavailable", "mismatch"]


@dataclass(frozen=True)
class SeatRecord:
    """Who sat at one seat."""

    seat: int
    player_id: str
    display_name: str
    is_bot: bool


@dataclass(frozen=True)
class TurnRecord:
    """One turn of a record; ``str()`` writes it in the turn notation."""

    seq: int
    """The sequence number of the turn's event."""
    at: str
    """When it was committed (RFC 3339, UTC)."""
    seat: int
    round: int
    turn: int
    """1 to 5 within the round."""
    action: model_pb2.TurnAction
    by_timeout: bool
    """The server played it because the seat's time ran out."""

    def __str__(self) -> str:
        return turn_text(self.action)


@dataclass(frozen=True)
class Replayed:
    """A record replayed by the engine."""

    game: Game
    """The game rebuilt from the record's seed and turns, over, every event in its log."""
    shuffle: Shuffle
    """What the revealed seed says of the deal: ``"verified"`` (it hashes to the
    commitment every view showed), ``"unavailable"`` (a game from before commitments)."""


@dataclass(frozen=True)
class GameRecord:
    """One finished game, as a record holds it."""

    game_id: str
    players: int
    rules_version: int
    cities: tuple[int, ...]
    """The cities in play, as ``theboss.v1.City`` numbers."""
    seed: int
    seed_salt: Optional[str]
    seed_commitment: Optional[str]
    turn_time_limit_seconds: int
    ladder: bool
    seeded: bool
    seats: tuple[SeatRecord, ...]
    created_at: str
    finished_at: str
    turns: tuple[TurnRecord, ...]
    winners: tuple[int, ...]
    document: dict[str, Any] = field(repr=False, compare=False)
    """The whole JSON document, for what the fields above leave out (events, standings,
    the duplicate set's series)."""
    text: str = field(repr=False, compare=False)
    """The record as it was read."""

    @classmethod
    def from_json(cls, text: str) -> "GameRecord":
        """A record from its JSON (one line of an NDJSON export)."""
        parsed = record_turns(text)  # checks the format and reads names as the Rust reader
        document = json.loads(text)
        turns = tuple(
            TurnRecord(seq, at, seat, round_, turn, action, by_timeout)
            for seq, at, seat, round_, turn, action, by_timeout in parsed["turns"]
        )
        try:
            return cls(
                game_id=str(document["game_id"]),
                players=int(parsed["players"]),
                rules_version=int(parsed["rules_version"]),
                cities=tuple(parsed["cities"]),
                seed=int(parsed["seed"]),
                seed_salt=document.get("seed_salt"),
                seed_commitment=document.get("seed_commitment"),
                turn_time_limit_seconds=int(document["turn_time_limit_seconds"]),
                ladder=bool(document["ladder"]),
                seeded=bool(document["seeded"]),
                seats=tuple(
                    SeatRecord(int(s["seat"]), str(s["player_id"]), str(s["display_name"]), bool(s["is_bot"]))
                    for s in document["seats"]
                ),
                created_at=str(document["created_at"]),
                finished_at=str(document["finished_at"]),
                turns=turns,
                winners=tuple(int(w) for w in document["outcome"]["winners"]),
                document=document,
                text=text,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidRecord(f"not a game record: {error!r} is missing or malformed") from None

    def replay(self, *, check_shuffle: bool = True) -> Replayed:
        """Rebuilds the game with the engine from the seed and the turns, and checks that it
        ends as recorded (``InvalidRecord`` if not) and, with ``check_shuffle``, that the
        revealed seed is the one the game committed to."""
        game, shuffle = replay_record(self.text)
        if check_shuffle and shuffle == "mismatch":
            raise InvalidRecord(
                f"game {self.game_id}: the revealed seed and salt do not hash to the commitment its views showed"
            )
        verdict: Shuffle = "verified" if shuffle == "verified" else "unavailable" if shuffle == "unavailable" else "mismatch"
        return Replayed(game, verdict)


def read(text: str) -> GameRecord:
    """One record from its JSON."""
    return GameRecord.from_json(text)


def read_lines(lines: Iterable[str]) -> Iterator[GameRecord]:
    """Every record of NDJSON lines (blank lines skipped)."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield GameRecord.from_json(line)
        except InvalidRecord as error:
            raise InvalidRecord(f"line {number}: {error.message}") from None


def read_file(path: Union[str, "os.PathLike[str]"]) -> Iterator[GameRecord]:
    """Every record of an NDJSON file (an export)."""
    with open(path, encoding="utf-8") as lines:
        yield from read_lines(lines)
