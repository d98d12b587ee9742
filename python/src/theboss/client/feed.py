"""Following one game through ``WatchGame``: a ``GameFeed`` reopens a dropped or silent
stream with ``after_seq`` set to the last sequence number it delivered, so nothing is missed,
nothing is delivered twice and everything comes in sequence order, across network drops and
server restarts.

``FeedState`` is the part that decides what to deliver (shared with the asyncio feed of
``theboss.aio``); ``GameFeed`` reads the stream in a background thread into an ``Inbox``, so
that a silent stream (no message, not even a keep-alive, for ``silence`` seconds) is noticed
and reopened, and so that a player can tell whether newer updates are already waiting.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import Any, Callable, Iterator, Optional, Union

import grpc

from theboss.client._rpc import CallStats, RetryPolicy, Retrying, to_error
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2

FeedItem = Union[model_pb2.GameView, gs.GameUpdate]
"""What a feed yields: the ``GameView`` snapshot a feed that starts without ``after_seq``
begins with, then ``GameUpdate``s."""

OVER = (model_pb2.GAME_STATUS_FINISHED, model_pb2.GAME_STATUS_ABORTED)
"""The statuses after which a game's stream ends."""

# Codes after which a stream is opened again: the server going away (UNAVAILABLE; a
# connection reset shows as INTERNAL or UNKNOWN; a server's shutdown may cancel the stream).
REOPEN = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
)


class FeedState:
    """What a feed has delivered: every item it yields comes after the last one in sequence
    order (a snapshot of seq ``s`` stands for everything up to ``s``), and none twice."""

    def __init__(self, game_id: str, after_seq: Optional[int], update_views: "gs.UpdateViews") -> None:
        self.game_id = game_id
        self.last_seq = after_seq
        """The highest sequence number delivered (or resumed after); None before any."""
        self.update_views = update_views
        self.view: Optional[model_pb2.GameView] = None
        """The newest view delivered."""

    def request(self) -> gs.WatchGameRequest:
        """The request that opens (or reopens) the stream where the feed stands."""
        request = gs.WatchGameRequest(game_id=self.game_id, update_views=self.update_views)
        if self.last_seq is not None:
            request.after_seq = self.last_seq
        return request

    def is_new(self, message: gs.WatchGameResponse) -> bool:
        """Whether ``message`` would deliver something not delivered yet."""
        kind = message.WhichOneof("message")
        if kind == "snapshot":
            seq = message.snapshot.seq
        elif kind == "update":
            seq = message.update.seq
        else:
            return False
        return self.last_seq is None or seq > self.last_seq

    def accept(self, message: gs.WatchGameResponse) -> Optional[FeedItem]:
        """The item ``message`` delivers, if any, in order."""
        if not self.is_new(message):
            return None
        if message.WhichOneof("message") == "snapshot":
            self.last_seq = message.snapshot.seq
            self.view = message.snapshot
            return message.snapshot
        update = message.update
        self.last_seq = update.seq
        if update.HasField("view"):
            self.view = update.view
        return update

    @property
    def over(self) -> bool:
        """Whether the game's final update was delivered."""
        return self.view is not None and self.view.status in OVER


class _End:
    """The stream ended without an error."""


_END = _End()


class Inbox:
    """What a stream's reader thread received and the consumer has not taken yet."""

    def __init__(self) -> None:
        self._items: collections.deque[Any] = collections.deque()
        self._ready = threading.Condition()

    def put(self, item: Any) -> None:
        """Adds what the reader received."""
        with self._ready:
            self._items.append(item)
            self._ready.notify()

    def get(self, timeout: float) -> Optional[Any]:
        """The next item, or None after ``timeout`` seconds without one."""
        with self._ready:
            if not self._ready.wait_for(lambda: bool(self._items), timeout):
                return None
            return self._items.popleft()

    def snapshot(self) -> list[Any]:
        """What waits now, oldest first, left in place."""
        with self._ready:
            return list(self._items)


class GameFeed:
    """One game's updates for one player, across reconnections. Iterate over it: it yields
    a ``GameView`` snapshot (when started without ``after_seq``), then every ``GameUpdate``,
    all in sequence order, and ends after the game's final update. ``view`` is the newest
    view delivered so far.

    A dropped, ended or silent stream is reopened after the last update delivered, with
    back-off and jitter; after ``policy.unavailable_for`` seconds without a stream it raises
    ``theboss.errors.StreamLost``. Other refusals raise their ``RpcError``."""

    def __init__(
        self,
        open_stream: Callable[[gs.WatchGameRequest], Any],
        game_id: str,
        after_seq: Optional[int] = None,
        update_views: "gs.UpdateViews" = gs.UPDATE_VIEWS_ACTION_COMPLETE,
        silence: float = 45.0,
        policy: RetryPolicy = RetryPolicy(),
        stats: Optional[CallStats] = None,
    ) -> None:
        self._open_stream = open_stream
        self.state = FeedState(game_id, after_seq, update_views)
        self.silence = silence
        self.policy = policy
        self.stats = stats if stats is not None else CallStats()
        self.reconnections = 0
        """How many times the stream was opened again."""
        self._call: Optional[Any] = None
        self._inbox = Inbox()
        self._closed = False

    @property
    def game_id(self) -> str:
        """The game followed."""
        return self.state.game_id

    @property
    def view(self) -> Optional[model_pb2.GameView]:
        """The newest view delivered so far (None before the first)."""
        return self.state.view

    @property
    def last_seq(self) -> Optional[int]:
        """The highest sequence number delivered so far."""
        return self.state.last_seq

    def pending(self) -> bool:
        """Whether updates newer than the last one delivered were already received: a player
        acting on ``view`` now would act on a view that is already stale."""
        return any(
            isinstance(m, gs.WatchGameResponse) and self.state.is_new(m)
            for m in self._inbox.snapshot()
        )

    def __iter__(self) -> Iterator[FeedItem]:
        try:
            yield from self._run()
        finally:
            self.close()

    def close(self) -> None:
        """Stops reading (the stream is cancelled)."""
        self._closed = True
        if self._call is not None:
            self._call.cancel()

    def _open(self) -> None:
        stream = self._open_stream(self.state.request())
        self._call = stream
        self._inbox = inbox = Inbox()

        def read() -> None:
            try:
                for message in stream:
                    inbox.put(message)
                inbox.put(_END)
            except grpc.RpcError as error:
                inbox.put(error)

        threading.Thread(target=read, name=f"feed-{self.game_id}", daemon=True).start()

    def _run(self) -> Iterator[FeedItem]:
        retrying = Retrying("WatchGame", self.policy, safe=True, stats=self.stats, stream=True)
        while not self._closed:
            if self._call is None:
                self._open()
            message = self._inbox.get(timeout=self.silence)
            if isinstance(message, gs.WatchGameResponse):
                retrying.succeeded()
                item = self.state.accept(message)
                if item is not None:
                    yield item
                continue
            if message is _END:
                # The server ends the stream after the game's final update; a stream that
                # ends before that (a server going away) is reopened.
                if self.state.over:
                    return
                wait = retrying.lost(what="the stream ended before the game did")
            elif isinstance(message, grpc.RpcError):
                error = to_error("WatchGame", message)
                if self._closed:
                    return
                if error.code in REOPEN:
                    wait = retrying.lost(error)
                else:
                    wait = retrying.wait_after(error)  # throttled: wait as asked; else raise
            else:
                wait = retrying.lost(what=f"no message for {self.silence:g} s")
            # Dropped, ended early, throttled or silent: reopen after the last item delivered.
            if self._call is not None:
                self._call.cancel()
            self._call = None
            self.reconnections += 1
            time.sleep(wait)
