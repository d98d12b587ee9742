"""Following one game through ``WatchGame``: a ``GameFeed`` reopens a dropped or silent
stream with ``after_seq`` set to the last sequence number it delivered, so nothing is missed
or delivered twice, across network drops and server restarts.

The stream is read by a background thread into a queue, so a silent stream (no message, not
even a keep-alive, for ``silence`` seconds) is noticed and reopened.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TYPE_CHECKING, Iterator, Optional, Union

import grpc

from theboss.client import _rpc
from theboss.errors import RpcError, TheBossError
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2

if TYPE_CHECKING:
    from theboss.client import Session

FeedItem = Union[model_pb2.GameView, gs.GameUpdate]
"""What a feed yields: a whole ``GameView`` (the first item of a feed that starts from a
snapshot, or a fresh read after a reconnection) or a ``GameUpdate``."""

_END = object()

_OVER = (model_pb2.GAME_STATUS_FINISHED, model_pb2.GAME_STATUS_ABORTED)


class StreamLost(TheBossError):
    """A feed could not reopen its stream for longer than its ``reconnect_for``."""


class GameFeed:
    """One game's updates for one player, across reconnections. Iterate over it; it ends
    after the game's final update. ``view`` is the newest view delivered so far."""

    def __init__(
        self,
        session: "Session",
        game_id: str,
        after_seq: Optional[int] = None,
        update_views: "gs.UpdateViews" = gs.UPDATE_VIEWS_ACTION_COMPLETE,
        silence: float = 45.0,
        reconnect_for: float = 60.0,
    ) -> None:
        self.session = session
        self.game_id = game_id
        self.last_seq = after_seq
        self.update_views = update_views
        self.silence = silence
        self.reconnect_for = reconnect_for
        self.view: Optional[model_pb2.GameView] = None
        self.reconnections = 0
        self._call: Optional[grpc.Future] = None
        self._queue: "queue.Queue[object]" = queue.Queue()
        self._closed = False

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
        request = gs.WatchGameRequest(game_id=self.game_id, update_views=self.update_views)
        if self.last_seq is not None:
            request.after_seq = self.last_seq
        stream = self.session._game.WatchGame(request, metadata=self.session._metadata)
        self._call = stream
        self._queue = queue.Queue()
        target = self._queue

        def read() -> None:
            try:
                for message in stream:
                    target.put(message)
                target.put(_END)
            except grpc.RpcError as error:
                target.put(error)

        threading.Thread(target=read, name=f"feed-{self.game_id}", daemon=True).start()

    def _note(self, view: model_pb2.GameView) -> None:
        if self.view is None or view.seq >= self.view.seq:
            self.view = view

    def _run(self) -> Iterator[FeedItem]:
        lost_since: Optional[float] = None
        attempt = 0
        reopened = False
        while not self._closed:
            if self._call is None:
                self._open()
                if reopened:
                    # The missed updates may be none at all (what we waited for never came):
                    # the current view says where the game is.
                    try:
                        fresh = self.session.view(self.game_id)
                    except RpcError as failed:
                        if failed.code != grpc.StatusCode.UNAVAILABLE:
                            raise
                    else:
                        self._note(fresh)
                        yield fresh
            try:
                message = self._queue.get(timeout=self.silence)
            except queue.Empty:
                message = None  # silent: reopen
            if isinstance(message, gs.WatchGameResponse):
                lost_since, attempt = None, 0
                kind = message.WhichOneof("message")
                if kind == "snapshot":
                    self.last_seq = max(self.last_seq or 0, message.snapshot.seq)
                    self._note(message.snapshot)
                    yield message.snapshot
                elif kind == "update":
                    self.last_seq = message.update.seq
                    if message.update.HasField("view"):
                        self._note(message.update.view)
                    yield message.update
                continue
            if message is _END:
                # The server ends the stream after the game's final update; a stream that
                # ends before that (a server going away) is reopened.
                if self.view is not None and self.view.status in _OVER:
                    return
            elif isinstance(message, grpc.RpcError):
                error = _rpc.to_error("WatchGame", message)
                if error.retry_after is not None and not self._closed:
                    # Over the quota: opening the stream did nothing; wait as asked.
                    self.session.stats.throttled += 1
                    self.session.stats.throttled_seconds += error.retry_after
                    self._call = None
                    time.sleep(error.retry_after)
                    continue
                if error.code not in (
                    grpc.StatusCode.UNAVAILABLE,
                    grpc.StatusCode.INTERNAL,
                    grpc.StatusCode.UNKNOWN,
                    grpc.StatusCode.CANCELLED,
                ) or self._closed:
                    raise error
            # Dropped, ended early or silent: reopen after a pause.
            if self._call is not None:
                self._call.cancel()
            self._call = None
            reopened = True
            self.reconnections += 1
            now = time.monotonic()
            lost_since = lost_since if lost_since is not None else now
            if now - lost_since > self.reconnect_for:
                raise StreamLost(f"game {self.game_id}: no stream for {self.reconnect_for:.0f} s")
            attempt += 1
            time.sleep(_rpc.backoff(attempt, self.session._policy))
