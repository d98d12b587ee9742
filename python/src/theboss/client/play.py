"""Playing a seated game: when to act on a feed, and what the game did to the player.

``Player`` watches a game's feed for one seat and says when to choose a turn: only on the
newest view (never on one that newer updates already waiting have made stale), once per
view, and never after the seat forfeited. It notes what the server did meanwhile: turns it
played for the seat when its time ran out, and the forfeit that follows too many of them.
``GameResult`` reports it. Shared by ``Session.play`` and the asyncio client's.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Protocol

from theboss.client.feed import OVER, FeedItem
from theboss.errors import Aborted
from theboss.v1 import model_pb2

log = logging.getLogger("theboss.client")


@dataclass(frozen=True)
class GameResult:
    """How a game went for the player that played it (``Session.play``)."""

    game_id: str
    seat: Optional[int]
    """The player's seat (None if it never had one)."""
    view: model_pb2.GameView
    """The game's final view, as the player sees it (its ``outcome`` says who won)."""
    turns_played: int
    """Turns the player chose and the server accepted."""
    timeouts: tuple[tuple[int, int], ...]
    """``(round, turn)`` of each turn the server played for the seat because its time ran
    out (before a forfeit; after one, the server plays every turn of the seat)."""
    forfeited: bool
    """The seat forfeited (too many turns in a row played by the clock, or a resignation):
    the server played its turns to the end, and ``choose`` was no longer asked."""
    stale: int
    """Turns refused as stale (ABORTED ``STALE_SEQ``): the game had moved on, usually
    because the clock played the turn first."""

    @property
    def status(self) -> "model_pb2.GameStatus":
        """The game's final status (``GAME_STATUS_FINISHED`` or ``GAME_STATUS_ABORTED``)."""
        return self.view.status

    @property
    def outcome(self) -> Optional[model_pb2.Outcome]:
        """Winners and standings, if the game finished."""
        return self.view.outcome if self.view.HasField("outcome") else None

    @property
    def won(self) -> bool:
        """Whether the player's seat is among the winners."""
        return self.outcome is not None and self.seat in self.outcome.winners

    @property
    def money(self) -> int:
        """The player's money at the end (0 without a seat)."""
        if self.seat is None or self.seat >= len(self.view.seats):
            return 0
        return self.view.seats[self.seat].money

    def __str__(self) -> str:
        if self.status == model_pb2.GAME_STATUS_ABORTED:
            verdict = "aborted"
        elif self.won:
            verdict = "won"
        else:
            winners = list(self.outcome.winners) if self.outcome is not None else []
            verdict = f"lost (winners: {winners})"
        text = f"game {self.game_id} seat {self.seat}: {verdict}, {self.money} M$, {self.turns_played} turns"
        notes = []
        if self.timeouts:
            notes.append(f"{len(self.timeouts)} turns played by the clock")
        if self.forfeited:
            notes.append("forfeited")
        if self.stale:
            notes.append(f"{self.stale} stale turns refused")
        return f"{text} ({'; '.join(notes)})" if notes else text


class Player:
    """One seat's side of a game, fed every item of the game's feed (see the module)."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.seat: Optional[int] = None
        self.acted_at = -1
        self.turns_played = 0
        self.timeouts: list[tuple[int, int]] = []
        self.forfeited = False
        self.stale = 0

    def observe(self, item: FeedItem, view: Optional[model_pb2.GameView]) -> None:
        """Notes what an item of the feed says of this seat (``view``: the feed's newest)."""
        if view is not None and view.HasField("viewer_seat"):
            self.seat = view.viewer_seat
        if isinstance(item, model_pb2.GameView) or not item.event.HasField("turn_taken"):
            pass
        else:
            taken = item.event.turn_taken
            if taken.by_timeout and taken.seat == self.seat and not self.forfeited:
                self.timeouts.append((taken.round, taken.turn))
                log.warning(
                    "game %s: the server played seat %d's turn %d of round %d: its time ran out",
                    self.game_id, taken.seat, taken.turn, taken.round,
                )
        if (
            view is not None
            and self.seat is not None
            and self.seat < len(view.seats)
            and view.seats[self.seat].forfeited
            and not self.forfeited
        ):
            self.forfeited = True
            log.warning(
                "game %s: seat %d forfeited (%d turns played by the clock); the server plays "
                "its turns to the end", self.game_id, self.seat, len(self.timeouts),
            )

    def should_act(self, item: FeedItem, view: Optional[model_pb2.GameView], pending: bool) -> bool:
        """Whether to choose a turn now, on ``view``: it is complete, the newest (no newer
        update is ``pending``), not acted on yet, and says it is this seat's turn."""
        if view is None or pending or self.forfeited or view.seq == self.acted_at:
            return False
        if not isinstance(item, model_pb2.GameView) and not item.action_complete:
            return False
        if view.status in OVER or not view.HasField("legal"):
            return False
        return view.HasField("to_move") and view.HasField("viewer_seat") and view.to_move == view.viewer_seat

    def acted(self, seq: int) -> None:
        """The turn chosen on the view of ``seq`` was accepted."""
        self.acted_at = seq
        self.turns_played += 1

    def refused_as_stale(self, seq: int) -> None:
        """The turn chosen on the view of ``seq`` came too late: the game had moved on."""
        self.acted_at = seq
        self.stale += 1
        log.warning("game %s: a turn chosen on the view of seq %d was refused as stale", self.game_id, seq)

    def result(self, final: model_pb2.GameView) -> GameResult:
        """The result, once the game is over (``final``: its last view)."""
        if final.HasField("viewer_seat"):
            self.seat = final.viewer_seat
        return GameResult(
            game_id=self.game_id,
            seat=self.seat,
            view=final,
            turns_played=self.turns_played,
            timeouts=tuple(self.timeouts),
            forfeited=self.forfeited or (
                self.seat is not None and self.seat < len(final.seats) and final.seats[self.seat].forfeited
            ),
            stale=self.stale,
        )


class Feed(Protocol):
    """What ``play_feed`` follows: a ``GameFeed``, or anything that iterates the same way."""

    @property
    def game_id(self) -> str:
        """The game followed."""

    @property
    def view(self) -> Optional[model_pb2.GameView]:
        """The newest view delivered."""

    def pending(self) -> bool:
        """Whether newer updates than the last delivered already wait."""

    def __iter__(self) -> Iterator[FeedItem]:
        """The game's snapshot and updates, in order."""


def play_feed(
    feed: Feed,
    choose: Callable[[model_pb2.GameView], model_pb2.TurnAction],
    submit: Callable[[int, model_pb2.TurnAction], object],
    final: Callable[[], model_pb2.GameView],
    *,
    on_item: Optional[Callable[[FeedItem], None]] = None,
) -> GameResult:
    """Plays a game as ``Session.play`` does: follows ``feed``, and each time its newest
    view is this seat's turn, sends ``choose(view)`` with ``submit(view.seq, turn)``;
    ``final()`` is the last view when the feed delivered none."""
    player = Player(feed.game_id)
    for item in feed:
        if on_item is not None:
            on_item(item)
        view = feed.view
        player.observe(item, view)
        if view is None or not player.should_act(item, view, feed.pending()):
            continue
        try:
            submit(view.seq, choose(view))
        except Aborted:
            # The game moved on (the clock played the turn): the feed says how.
            player.refused_as_stale(view.seq)
        else:
            player.acted(view.seq)
    return player.result(feed.view if feed.view is not None else final())
