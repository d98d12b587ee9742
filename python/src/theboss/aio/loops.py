"""The ladder and the offers on asyncio: ``theboss.client.play_ladder`` and ``play_offers``
for an ``AsyncSession``, every game a task of its own, so one process can keep many games
going. The same decisions (which challenges to accept, how often a failed game is taken up
again, when to stop retrying) as the sync loops.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from typing import Any, Callable, Optional

import grpc

from theboss.aio.feed import AsyncInbox
from theboss.aio.session import AsyncChoose, AsyncSession
from theboss.client._rpc import Retrying, backoff, to_error
from theboss.client.feed import REOPEN
from theboss.client.loops import GAME_TRIES, TOURNAMENT_CHECK, Accept, decide
from theboss.client.play import GameResult
from theboss.errors import RpcError, Unavailable
from theboss.v1 import ladder_service_pb2 as ls

__all__ = ["play_ladder", "play_offers"]

log = logging.getLogger("theboss.client")


class _Games:
    """Games being played as tasks, and the results of those done."""

    def __init__(
        self, session: AsyncSession, choose: AsyncChoose, on_result: Optional[Callable[[GameResult], None]]
    ) -> None:
        self.session = session
        self.choose = choose
        self.on_result = on_result
        self.running: dict["asyncio.Task[GameResult]", str] = {}
        self.results: list[GameResult] = []
        self.failures: collections.Counter[str] = collections.Counter()
        self.taken: set[str] = set()

    def start(self, game_id: str) -> None:
        if game_id in self.taken:
            return
        self.taken.add(game_id)
        task = asyncio.ensure_future(self.session.play(game_id, self.choose))
        self.running[task] = game_id

    async def collect(self, wait: bool = False) -> None:
        """Takes in the games done (every running one with ``wait``); see the sync loops."""
        if wait and self.running:
            await asyncio.wait(list(self.running))
        for task in list(self.running):
            if not task.done():
                continue
            game_id = self.running.pop(task)
            try:
                result = task.result()
            except Unavailable:
                raise
            except RpcError as error:
                self.failures[game_id] += 1
                log.error("game %s failed (try %d): %s", game_id, self.failures[game_id], error)
                if self.failures[game_id] < GAME_TRIES:
                    self.taken.discard(game_id)
                continue
            self.results.append(result)
            log.info("%s", result)
            if self.on_result is not None:
                self.on_result(result)

    def cancel(self) -> None:
        for task in self.running:
            task.cancel()


async def play_ladder(
    session: AsyncSession,
    choose: AsyncChoose,
    *,
    players: int = 2,
    duplicate: bool = False,
    parallel: int = 0,
    games: Optional[int] = None,
    on_result: Optional[Callable[[GameResult], None]] = None,
) -> list[GameResult]:
    """Plays ladder games until ``games`` are done (see ``theboss.client.play_ladder``)."""
    playing = _Games(session, choose, on_result)
    empty = 0
    try:
        while games is None or len(playing.results) < games:
            matches = await session.find_match(players, duplicate=duplicate, parallel=parallel)
            fresh = [m for m in matches if m.game_id not in playing.taken]
            for match in fresh:
                playing.start(match.game_id)
            await playing.collect(wait=True)
            if fresh:
                empty = 0
            else:
                empty += 1
                await asyncio.sleep(backoff(empty, session.client.policy))
        return playing.results
    finally:
        playing.cancel()


class _End:
    """An offers stream ended without an error."""


async def play_offers(
    session: AsyncSession,
    choose: AsyncChoose,
    *,
    accept: Accept = "all",
    tournament: Optional[str] = None,
    games: Optional[int] = None,
    on_result: Optional[Callable[[GameResult], None]] = None,
) -> list[GameResult]:
    """Answers challenges and plays what is offered (see ``theboss.client.play_offers``)."""
    if tournament is not None:
        await session.enter_tournament(tournament)
    playing = _Games(session, choose, on_result)
    retrying = Retrying("Offers", session.client.policy, safe=True, stats=session.stats, stream=True)
    call: Optional[Any] = None
    reader: Optional["asyncio.Task[None]"] = None
    inbox = AsyncInbox()
    checked = time.monotonic()

    def open_stream() -> tuple[Any, "asyncio.Task[None]", AsyncInbox]:
        stream = session._ladder.Offers(ls.OffersRequest(), metadata=session._metadata)
        received = AsyncInbox()

        async def read() -> None:
            try:
                async for message in stream:
                    received.put(message)
                received.put(_End())
            except grpc.RpcError as error:
                received.put(error)

        return stream, asyncio.ensure_future(read()), received

    try:
        while games is None or len(playing.results) < games:
            if call is None:
                call, reader, inbox = open_stream()
            message = await inbox.get(timeout=0.5)
            await playing.collect()
            if isinstance(message, ls.OffersResponse):
                retrying.succeeded()
                kind = message.WhichOneof("message")
                if kind == "challenge":
                    yes = decide(session.player_id, message.challenge, accept)
                    if yes is not None:
                        try:
                            await session.answer_challenge(message.challenge.challenge_id, yes)
                        except RpcError as refused:
                            log.warning("cannot answer challenge %s: %s", message.challenge.challenge_id, refused)
                elif kind == "matched":
                    playing.start(message.matched.game_id)
            elif message is not None:
                if isinstance(message, grpc.RpcError):
                    error = to_error("Offers", message)
                    wait = retrying.lost(error) if error.code in REOPEN else retrying.wait_after(error)
                else:
                    wait = retrying.lost(what="the offers stream ended")
                call.cancel()
                if reader is not None:
                    reader.cancel()
                call = None
                await asyncio.sleep(wait)
            if tournament is not None and not playing.running and time.monotonic() - checked >= TOURNAMENT_CHECK:
                checked = time.monotonic()
                status = (await session.tournament(tournament)).tournament.status
                if status == ls.TOURNAMENT_STATUS_FINISHED:
                    log.info("tournament %s finished", tournament)
                    break
        await playing.collect(wait=True)
        return playing.results
    finally:
        if call is not None:
            call.cancel()
        if reader is not None:
            reader.cancel()
        playing.cancel()
