"""Playing a seated game (``Session.play``): a turn is chosen only on the newest view, and
what the server did for a seat that was too slow (turns played by the clock, a forfeit) is
reported, never hidden; ``choose`` is not asked again once the seat forfeited."""

from __future__ import annotations

import logging
import threading
import time
from typing import Iterator, Optional

import grpc
import pytest

from conftest import seat_players
from theboss import engine
from theboss.client import Client, FeedItem, GameResult
from theboss.client.play import play_feed
from theboss.errors import Aborted
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2

ME, OTHER = 0, 1


def view(seq: int, to_move: int, *, forfeited: bool = False, over: bool = False) -> model_pb2.GameView:
    seen = model_pb2.GameView(seq=seq, viewer_seat=ME)
    seen.status = model_pb2.GAME_STATUS_FINISHED if over else model_pb2.GAME_STATUS_RUNNING
    for seat in (ME, OTHER):
        seen.seats.add(seat=seat, forfeited=forfeited and seat == ME)
    if not over:
        seen.to_move = to_move
        if to_move == ME:
            seen.legal.cards.add(city=model_pb2.CITY_BOSTON, money=2)
    return seen


def turn(seq: int, seat: int, to_move: int, *, by_timeout: bool = False, forfeited: bool = False, over: bool = False) -> gs.GameUpdate:
    update = gs.GameUpdate(seq=seq, action_complete=True)
    update.event.turn_taken.seat = seat
    update.event.turn_taken.round = 1
    update.event.turn_taken.turn = seq
    update.event.turn_taken.by_timeout = by_timeout
    update.view.CopyFrom(view(seq, to_move, forfeited=forfeited, over=over))
    return update


class ScriptedFeed:
    """A feed whose items, and whether newer ones already wait behind each, are scripted."""

    game_id = "scripted"

    def __init__(self, script: list[tuple[FeedItem, bool]]) -> None:
        self.script = script
        self.view: Optional[model_pb2.GameView] = None
        self._pending = False

    def pending(self) -> bool:
        return self._pending

    def __iter__(self) -> Iterator[FeedItem]:
        for item, pending in self.script:
            self.view = item if isinstance(item, model_pb2.GameView) else item.view
            self._pending = pending
            yield item


def test_only_the_newest_view_is_acted_on_and_nothing_after_a_forfeit(caplog: pytest.LogCaptureFixture) -> None:
    feed = ScriptedFeed([
        # A backlog: the seat's turn at 10, played by the clock (11), the other seat's turn
        # (12), the seat's turn again (13): only 13 is acted on.
        (view(10, ME), True),
        (turn(11, ME, OTHER, by_timeout=True), True),
        (turn(12, OTHER, ME), True),
        (turn(13, OTHER, ME), False),
        (turn(14, ME, OTHER), False),
        (turn(15, OTHER, ME), False),
        # Too slow twice more: the clock plays, and the third time the seat forfeits.
        (turn(16, ME, OTHER, by_timeout=True), False),
        (turn(17, OTHER, ME), False),
        (turn(18, ME, OTHER, by_timeout=True, forfeited=True), False),
        (turn(19, OTHER, ME, forfeited=True), False),
        (turn(20, ME, OTHER, by_timeout=True, forfeited=True), False),
        (turn(21, OTHER, ME, forfeited=True, over=True), False),
    ])
    chosen: list[int] = []
    submitted: list[int] = []

    def choose(seen: model_pb2.GameView) -> model_pb2.TurnAction:
        chosen.append(seen.seq)
        return model_pb2.TurnAction(card=seen.legal.cards[0])

    def submit(seq: int, action: model_pb2.TurnAction) -> None:
        submitted.append(seq)
        if seq == 17:
            raise Aborted("SubmitAction", grpc.StatusCode.ABORTED, "stale", "STALE_SEQ")

    with caplog.at_level(logging.WARNING, logger="theboss.client"):
        result = play_feed(feed, choose, submit, lambda: pytest.fail("the feed gave the final view"))
    assert chosen == [13, 15, 17] == submitted
    assert result.turns_played == 2 and result.stale == 1
    assert result.timeouts == ((1, 11), (1, 16), (1, 18))
    assert result.forfeited and result.seat == ME
    assert result.status == model_pb2.GAME_STATUS_FINISHED
    assert "forfeited" in str(result) and "3 turns played by the clock" in str(result)
    warnings = [r.getMessage() for r in caplog.records]
    assert sum("time ran out" in w for w in warnings) == 3
    assert sum("forfeited" in w for w in warnings) == 1


def test_a_seat_too_slow_forfeits_and_play_says_so_without_asking_again(client: Client) -> None:
    # Two seconds a turn: the fast seat keeps well within it even on a busy machine.
    game_id, (slow, fast) = seat_players(client, 2, turn_time_limit_seconds=2)
    calls: list[float] = []
    forfeited_at: list[float] = []

    def dawdle(seen: model_pb2.GameView) -> model_pb2.TurnAction:
        calls.append(time.monotonic())
        time.sleep(2.6)  # longer than a turn's two seconds
        return engine.view_turns(seen)[0]

    def note(item: FeedItem) -> None:
        if isinstance(item, model_pb2.GameView):
            seen: Optional[model_pb2.GameView] = item
        else:
            seen = item.view if item.HasField("view") else None
        if seen is not None and not forfeited_at and seen.seats and seen.seats[0].forfeited:
            forfeited_at.append(time.monotonic())

    other: dict[str, GameResult] = {}
    opponent = threading.Thread(target=lambda: other.setdefault("r", fast.play(game_id, lambda v: engine.view_turns(v)[0])))
    opponent.start()
    result = slow.play(game_id, dawdle, on_item=note)
    opponent.join(120)
    assert result.view.status == model_pb2.GAME_STATUS_FINISHED
    assert result.forfeited and result.seat == 0
    assert len(result.timeouts) >= 3 and result.turns_played == 0
    assert forfeited_at, "the feed showed the forfeit"
    # Once forfeited, choose was not asked again (it used to be, for every remaining turn,
    # each answer refused as stale).
    assert all(at < forfeited_at[0] for at in calls), (calls, forfeited_at)
    assert len(calls) <= len(result.timeouts)
    assert not other["r"].forfeited and other["r"].turns_played > 10
