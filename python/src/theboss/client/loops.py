"""A bot's whole life on the service, as ``boss-bot`` lives it: the ladder (ask the
matchmaker for a game, play every game it seats the bot in, again) and the offers (answer
challenges, enter a tournament, play every game they seat the bot in).

Both ride through a server restart or a store failover: a request or a stream cut off is
made again after the games already seated (which the server hands back), with back-off and
jitter, for up to ``RetryPolicy.unavailable_for`` seconds; then ``Unavailable`` (or
``StreamLost``) says for how long the service could not be reached. Several games at once
(``parallel``, duplicate sets, tournaments) are played on threads of their own.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Literal, Optional

import grpc

from theboss.client._rpc import Retrying, backoff, to_error
from theboss.client.feed import REOPEN, Inbox
from theboss.client.play import GameResult
from theboss.client.session import Session
from theboss.errors import RpcError, Unavailable
from theboss.v1 import ladder_service_pb2 as ls
from theboss.v1 import model_pb2

__all__ = ["Accept", "Choose", "GAME_TRIES", "answer", "decide", "play_ladder", "play_offers"]

log = logging.getLogger("theboss.client")

Choose = Callable[[model_pb2.GameView], model_pb2.TurnAction]
"""A bot's strategy: the turn to play from a view in which it is the bot's turn."""

Accept = Literal["all", "bots", "none"]
"""Which challenges a bot accepts: all, those of bots only, or none (they expire)."""

GAME_TRIES = 3
"""How often a game that failed is taken up again before the bot gives up on it."""

TOURNAMENT_CHECK = 2.0
"""Seconds between two looks at whether the bot's tournament finished."""


class _Games:
    """Games being played on threads, and the results of those done."""

    def __init__(self, session: Session, choose: Choose, on_result: Optional[Callable[[GameResult], None]]) -> None:
        self.session = session
        self.choose = choose
        self.on_result = on_result
        self.pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="theboss-game")
        self.running: dict[Future[GameResult], str] = {}
        self.results: list[GameResult] = []
        self.failures: collections.Counter[str] = collections.Counter()
        self.taken: set[str] = set()

    def start(self, game_id: str) -> None:
        """Plays a game, unless it was played (or given up on) already."""
        if game_id in self.taken:
            return
        self.taken.add(game_id)
        future = self.pool.submit(self.session.play, game_id, self.choose)
        self.running[future] = game_id

    def collect(self, wait: bool = False) -> None:
        """Takes in the games done (every running one with ``wait``). The service being
        unreachable for longer than the policy allows, and a bot's own exceptions, stop the
        bot; another failure of a game is logged, and the game taken up again if the
        server hands it back, a few times."""
        for future in list(self.running):
            if not wait and not future.done():
                continue
            game_id = self.running.pop(future)
            try:
                result = future.result()
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

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def play_ladder(
    session: Session,
    choose: Choose,
    *,
    players: int = 2,
    duplicate: bool = False,
    parallel: int = 0,
    games: Optional[int] = None,
    on_result: Optional[Callable[[GameResult], None]] = None,
) -> list[GameResult]:
    """Plays ladder games, ``choose`` choosing every turn, until ``games`` are done (None:
    forever); returns their results (``on_result`` is also called with each as it ends).
    ``players``: 2, 3, 4 or 0 (any); ``duplicate``: duplicate sets; ``parallel``: games at
    once (0: the server's default). Games already started when enough are done are played
    to their end too."""
    playing = _Games(session, choose, on_result)
    empty = 0
    try:
        while games is None or len(playing.results) < games:
            matches = session.find_match(players, duplicate=duplicate, parallel=parallel)
            fresh = [m for m in matches if m.game_id not in playing.taken]
            for match in fresh:
                playing.start(match.game_id)
            playing.collect(wait=True)
            if fresh:
                empty = 0
            else:
                # Nothing new (a request the server dropped as it restarted): ask again soon,
                # not in a tight loop.
                empty += 1
                time.sleep(backoff(empty, session.client.policy))
        return playing.results
    finally:
        playing.close()


def decide(player_id: str, challenge: ls.Challenge, accept: Accept) -> Optional[bool]:
    """How a player answers a challenge, as ``accept`` says: True to accept, False to
    decline, None to leave it (not waiting for this player's answer, or ``"none"``)."""
    mine = next((o for o in challenge.opponents if o.player_id == player_id), None)
    waiting = (
        challenge.status == ls.CHALLENGE_STATUS_PENDING
        and mine is not None
        and mine.answer == ls.CHALLENGE_ANSWER_PENDING
    )
    if not waiting or accept == "none":
        return None
    return accept == "all" or challenge.challenger_is_bot


def answer(session: Session, challenge: ls.Challenge, accept: Accept) -> None:
    """Answers a challenge that waits for this player's answer, as ``accept`` says."""
    yes = decide(session.player_id, challenge, accept)
    if yes is None:
        return
    try:
        session.answer_challenge(challenge.challenge_id, yes)
    except RpcError as error:  # withdrawn or expired meanwhile: nothing to play
        log.warning("cannot answer challenge %s: %s", challenge.challenge_id, error)
        return
    log.info("challenge %s from %s %s", challenge.challenge_id, challenge.challenger_name,
             "accepted" if yes else "declined")


class _End:
    """An offers stream ended without an error."""


def play_offers(
    session: Session,
    choose: Choose,
    *,
    accept: Accept = "all",
    tournament: Optional[str] = None,
    games: Optional[int] = None,
    on_result: Optional[Callable[[GameResult], None]] = None,
) -> list[GameResult]:
    """Answers challenges (``accept``), enters ``tournament`` if given, and plays every
    game a challenge or the tournament seats this player in, as its ``Offers`` stream tells,
    ``choose`` choosing every turn, until the tournament finishes or ``games`` are done
    (None: forever); returns their results. A dropped stream is opened again, and tells the
    games the player sits in anew (each is played once)."""
    if tournament is not None:
        session.enter_tournament(tournament)
    playing = _Games(session, choose, on_result)
    retrying = Retrying("Offers", session.client.policy, safe=True, stats=session.stats, stream=True)
    stream: Optional[Any] = None
    inbox = Inbox()
    checked = time.monotonic()

    def open_stream() -> tuple[Any, Inbox]:
        call = session._ladder.Offers(ls.OffersRequest(), metadata=session._metadata)
        received = Inbox()

        def read() -> None:
            try:
                for message in call:
                    received.put(message)
                received.put(_End())
            except grpc.RpcError as error:
                received.put(error)

        threading.Thread(target=read, name="theboss-offers", daemon=True).start()
        return call, received

    try:
        while games is None or len(playing.results) < games:
            if stream is None:
                stream, inbox = open_stream()
            message = inbox.get(timeout=0.5)
            playing.collect()
            if isinstance(message, ls.OffersResponse):
                retrying.succeeded()
                kind = message.WhichOneof("message")
                if kind == "challenge":
                    answer(session, message.challenge, accept)
                elif kind == "matched":
                    playing.start(message.matched.game_id)
            elif message is not None:
                if isinstance(message, grpc.RpcError):
                    error = to_error("Offers", message)
                    wait = retrying.lost(error) if error.code in REOPEN else retrying.wait_after(error)
                else:
                    wait = retrying.lost(what="the offers stream ended")
                stream.cancel()
                stream = None
                time.sleep(wait)
            if tournament is not None and not playing.running and time.monotonic() - checked >= TOURNAMENT_CHECK:
                checked = time.monotonic()
                status = session.tournament(tournament).tournament.status
                if status == ls.TOURNAMENT_STATUS_FINISHED:
                    log.info("tournament %s finished", tournament)
                    break
        playing.collect(wait=True)
        return playing.results
    finally:
        if stream is not None:
            stream.cancel()
        playing.close()
