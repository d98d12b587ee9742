"""A game's feed without a server: scripted streams show what it delivers (in sequence
order, none twice, whatever a reopened stream replays) and that it tells a player when newer
updates are already waiting."""

from __future__ import annotations

import threading
import time
from typing import Iterator, Optional

from theboss.client import GameFeed, RetryPolicy
from theboss.client.feed import FeedState
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2


def view(seq: int, status: "model_pb2.GameStatus" = model_pb2.GAME_STATUS_RUNNING) -> model_pb2.GameView:
    return model_pb2.GameView(seq=seq, status=status)


def snapshot(seq: int) -> gs.WatchGameResponse:
    return gs.WatchGameResponse(snapshot=view(seq))


def update(seq: int, status: "model_pb2.GameStatus" = model_pb2.GAME_STATUS_RUNNING) -> gs.WatchGameResponse:
    return gs.WatchGameResponse(update=gs.GameUpdate(seq=seq, view=view(seq, status), action_complete=True))


class Stream:
    """A scripted WatchGame stream: its messages, then (if ``live``) silence until closed."""

    def __init__(self, messages: list[gs.WatchGameResponse], live: bool = True) -> None:
        self.messages = messages
        self.live = live
        self.closed = threading.Event()

    def __iter__(self) -> Iterator[gs.WatchGameResponse]:
        yield from self.messages
        if self.live:
            self.closed.wait(30)

    def cancel(self) -> None:
        self.closed.set()


class Streams:
    """What a feed opens, one scripted stream after another; the requests it made."""

    def __init__(self, *streams: Stream) -> None:
        self.streams = list(streams)
        self.requests: list[gs.WatchGameRequest] = []

    def __call__(self, request: gs.WatchGameRequest) -> Stream:
        self.requests.append(request)
        return self.streams.pop(0)


def test_the_state_delivers_in_order_and_never_twice() -> None:
    state = FeedState("g", None, gs.UPDATE_VIEWS_ACTION_COMPLETE)
    delivered = [state.accept(m) for m in [snapshot(5), update(6), update(6), update(4), snapshot(6), update(8)]]
    assert [d.seq if d is not None else None for d in delivered] == [5, 6, None, None, None, 8]
    assert state.last_seq == 8 and state.view is not None and state.view.seq == 8
    assert state.request().after_seq == 8


def test_a_reopened_stream_resumes_after_the_last_update_and_skips_what_it_repeats() -> None:
    streams = Streams(
        Stream([snapshot(3), update(4)], live=False),  # ends before the game does
        Stream([update(4), update(5), update(6, model_pb2.GAME_STATUS_FINISHED)], live=False),
    )
    feed = GameFeed(streams, "g", policy=RetryPolicy(first_backoff=0.001))
    assert [item.seq for item in feed] == [3, 4, 5, 6]
    assert not streams.requests[0].HasField("after_seq")
    assert streams.requests[1].after_seq == 4
    assert feed.reconnections == 1


def test_a_feed_tells_when_newer_updates_already_wait() -> None:
    stream = Stream([snapshot(10), update(11), update(12), update(13)])
    feed = GameFeed(Streams(stream), "g")
    items = iter(feed)
    first: Optional[object] = next(items)
    assert isinstance(first, model_pb2.GameView) and first.seq == 10
    # The reader thread takes in the rest: acting on seq 10 now would act on a stale view.
    deadline = time.monotonic() + 10
    while not feed.pending():
        assert time.monotonic() < deadline, "the backlog was received"
        time.sleep(0.01)
    assert [next(items).seq for _ in range(3)] == [11, 12, 13]
    assert not feed.pending()
    feed.close()
    assert stream.closed.is_set()
