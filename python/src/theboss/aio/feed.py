"""Following one game through ``WatchGame`` on asyncio: ``AsyncGameFeed`` is
``theboss.client.GameFeed`` for ``grpc.aio``, with the same ``FeedState`` deciding what to
deliver (in sequence order, none twice, across reconnections) and the same retry decisions;
a reader task fills an ``AsyncInbox`` so that silence is noticed and a player can tell
whether newer updates already wait.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any, AsyncIterator, Callable, Optional

import grpc

from theboss.client._rpc import CallStats, RetryPolicy, Retrying, to_error
from theboss.client.feed import REOPEN, FeedItem, FeedState
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2

__all__ = ["AsyncGameFeed", "AsyncInbox"]


class _End:
    """The stream ended without an error."""


class AsyncInbox:
    """What a stream's reader task received and the consumer has not taken yet."""

    def __init__(self) -> None:
        self._items: collections.deque[Any] = collections.deque()
        self._ready = asyncio.Event()

    def put(self, item: Any) -> None:
        """Adds what the reader received."""
        self._items.append(item)
        self._ready.set()

    async def get(self, timeout: float) -> Optional[Any]:
        """The next item, or None after ``timeout`` seconds without one."""
        if not self._items:
            self._ready.clear()
            try:
                await asyncio.wait_for(self._ready.wait(), timeout)
            except asyncio.TimeoutError:
                return None
        return self._items.popleft()

    def snapshot(self) -> list[Any]:
        """What waits now, oldest first, left in place."""
        return list(self._items)


class AsyncGameFeed:
    """One game's updates for one player, across reconnections: ``async for item in
    feed``. See ``theboss.client.GameFeed``, which it mirrors."""

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
        self._reader: Optional["asyncio.Task[None]"] = None
        self._inbox = AsyncInbox()
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
        """Whether updates newer than the last one delivered were already received."""
        return any(
            isinstance(m, gs.WatchGameResponse) and self.state.is_new(m)
            for m in self._inbox.snapshot()
        )

    async def __aiter__(self) -> AsyncIterator[FeedItem]:
        try:
            async for item in self._run():
                yield item
        finally:
            self.close()

    def close(self) -> None:
        """Stops reading (the stream is cancelled)."""
        self._closed = True
        self._stop()

    def _stop(self) -> None:
        if self._call is not None:
            self._call.cancel()
        if self._reader is not None:
            self._reader.cancel()
        self._call = None
        self._reader = None

    def _open(self) -> None:
        call = self._open_stream(self.state.request())
        self._call = call
        self._inbox = inbox = AsyncInbox()

        async def read() -> None:
            try:
                async for message in call:
                    inbox.put(message)
                inbox.put(_End())
            except grpc.RpcError as error:
                inbox.put(error)

        self._reader = asyncio.ensure_future(read())

    async def _run(self) -> AsyncIterator[FeedItem]:
        retrying = Retrying("WatchGame", self.policy, safe=True, stats=self.stats, stream=True)
        while not self._closed:
            if self._call is None:
                self._open()
            message = await self._inbox.get(timeout=self.silence)
            if isinstance(message, gs.WatchGameResponse):
                retrying.succeeded()
                item = self.state.accept(message)
                if item is not None:
                    yield item
                continue
            if isinstance(message, _End):
                if self.state.over:
                    return
                wait = retrying.lost(what="the stream ended before the game did")
            elif isinstance(message, grpc.RpcError):
                error = to_error("WatchGame", message)
                if self._closed:
                    return
                wait = retrying.lost(error) if error.code in REOPEN else retrying.wait_after(error)
            else:
                wait = retrying.lost(what=f"no message for {self.silence:g} s")
            self._stop()
            self.reconnections += 1
            await asyncio.sleep(wait)
