"""What a bot must survive: its server crashing mid-game or going away for a while (a
restart, a store failing over), a server slow to complete a connection's handshake, and its
own quota. Every client path rides through a server that is stopped and started again:
calls safe to repeat, turns (with their idempotency keys), feeds, registration, the ladder
and the offers loops; and raises a clear error, in bounded time, when the server stays
away."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Callable, Optional

import grpc
import pytest

from conftest import Server, seat_players
from theboss import engine
from theboss.client import Client, FeedItem, GameResult, RetryPolicy, Session, play_ladder, play_offers
from theboss.errors import StreamLost, Unavailable
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2


def first_turn(view: model_pb2.GameView) -> model_pb2.TurnAction:
    return engine.view_turns(view)[0]


def seqs(items: list[FeedItem]) -> list[int]:
    return [item.seq for item in items]


class Background:
    """A function run on a thread, its result or exception kept."""

    def __init__(self, function: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: Optional[BaseException] = None

        def run() -> None:
            try:
                self.result = function()
            except BaseException as error:  # reported by join, not lost in the thread
                self.error = error

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def join(self, timeout: float) -> Any:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"not done within {timeout:.0f} s"
        if self.error is not None:
            raise self.error
        return self.result


class SlowProxy:
    """A TCP proxy in front of ``upstream`` that holds each new connection for ``delay``
    seconds before it carries a byte: a server slow to complete a handshake, as one busy
    bringing its games back, or a client on a loaded machine, is."""

    def __init__(self, upstream: str, delay: float) -> None:
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.delay = delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.target = "127.0.0.1:%d" % self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                downstream, _ = self.listener.accept()
            except OSError:  # shut down by __exit__
                return
            threading.Thread(target=self._carry, args=(downstream,), daemon=True).start()

    def _carry(self, downstream: socket.socket) -> None:
        time.sleep(self.delay)
        try:
            upstream = socket.create_connection(self.upstream)
        except OSError:  # the server stopped meanwhile: the client sees its connection close
            downstream.close()
            return
        with downstream, upstream:
            pipes = [
                threading.Thread(target=self._pipe, args=(downstream, upstream), daemon=True),
                threading.Thread(target=self._pipe, args=(upstream, downstream), daemon=True),
            ]
            for pipe in pipes:
                pipe.start()
            for pipe in pipes:
                pipe.join()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            # Either side closing ends both directions.
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def __enter__(self) -> "SlowProxy":
        return self

    def __exit__(self, *_: object) -> None:
        # Shut down first: on Linux, closing alone leaves the accepting thread blocked.
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()


def test_a_server_slow_to_answer_a_new_connection_is_still_reached(make_server) -> None:
    """A connection whose handshake takes longer than the kit's longest wait between two
    attempts still opens: each attempt has gRPC's whole connect timeout, so a restarted
    server busy bringing its games back, or a client on a loaded machine, is reached, not
    given up on attempt after attempt."""
    server = make_server()
    # Over the longest wait between two attempts (2 s, 2.4 s jittered), which the channels
    # once gave an attempt to complete; far under gRPC's own 20 s.
    delay = 3.5
    with SlowProxy(server.target, delay) as proxy:
        with Client(proxy.target, policy=RetryPolicy(unavailable_for=15.0)) as client:
            started = time.monotonic()
            session = client.register("over-a-slow-link")
            assert time.monotonic() - started >= delay
            assert session.player_id


def test_a_feed_survives_a_server_crash_mid_game(make_server) -> None:
    server = make_server()
    with Client(server.target) as client:
        game_id, sessions = seat_players(client, 2)
        items: list[list[FeedItem]] = [[], []]
        halfway = threading.Event()

        def player(seat: int) -> Callable[[], GameResult]:
            def note(item: FeedItem) -> None:
                items[seat].append(item)
                if isinstance(item, gs.GameUpdate) and item.seq > 40:
                    halfway.set()

            return lambda: sessions[seat].play(game_id, first_turn, on_item=note)

        players = [Background(player(s)) for s in range(2)]
        assert halfway.wait(120), "the game reached seq 40"
        server.restart(crash=True, pause=1.0)
        finals = [p.join(300).view for p in players]
        for seat in range(2):
            assert finals[seat].status == model_pb2.GAME_STATUS_FINISHED
            # One snapshot, then every update: all in sequence order, none twice.
            assert isinstance(items[seat][0], model_pb2.GameView)
            assert sum(isinstance(i, model_pb2.GameView) for i in items[seat]) == 1
            assert seqs(items[seat]) == sorted(set(seqs(items[seat])))
            assert sessions[seat].stats.unavailable > 0, "the feed was cut off and reopened"
        # The game the server stored, replayed, is the one both seats saw end.
        history = sessions[0].history(game_id)
        assert engine.replay_history(history).outcome() == finals[0].outcome
        turns = [e for e in history.entries if e.event.HasField("turn_taken")]
        assert len({(t.event.turn_taken.round, t.event.turn_taken.turn, t.event.turn_taken.seat) for t in turns}) == len(turns)


def test_a_feed_delivers_the_missed_updates_in_order_after_a_reconnection(make_server) -> None:
    """The server goes away while a spectator's feed is not being read, and the game moves
    on once it is back: the feed reopens after the last update it delivered and yields the
    missed updates in order. (It used to yield the game's fresh view first, then the missed
    updates, older than that view.)"""
    server = make_server()
    with Client(server.target) as client:
        game_id, sessions = seat_players(client, 2)
        watcher = client.register("watcher")
        feed = watcher.feed(game_id)
        stream = iter(feed)
        snapshot = next(stream)
        assert isinstance(snapshot, model_pb2.GameView)
        server.restart(pause=0.5)
        # Four turns while the feed is not read (its stream broke with the server).
        for _ in range(4):
            view = sessions[0].view(game_id)
            mover = sessions[view.to_move]
            mine = mover.view(game_id)
            mover.submit(game_id, mine.seq, first_turn(mine))
        latest = sessions[0].view(game_id).seq
        delivered: list[FeedItem] = [snapshot]
        # Up to the update of the last turn (whatever else comes on the way).
        while not (isinstance(delivered[-1], gs.GameUpdate) and delivered[-1].action_complete and delivered[-1].view.seq >= latest):
            delivered.append(next(stream))
        feed.close()
        assert seqs(delivered) == sorted(set(seqs(delivered))), seqs(delivered)
        assert [type(i) for i in delivered[1:]] == [gs.GameUpdate] * (len(delivered) - 1)
        assert feed.reconnections >= 1
        assert feed.view is not None and feed.view.seq == latest


def test_every_client_path_rides_through_a_server_away_for_a_while(make_server) -> None:
    """A server stopped for several seconds mid-game: the players' feeds and turns, a
    spectator's reads, a registration and a table's creation, all started while it is
    away, finish once it is back."""
    server = make_server()
    with Client(server.target) as client:
        game_id, sessions = seat_players(client, 2)
        started = threading.Event()

        def note(item: FeedItem) -> None:
            if isinstance(item, gs.GameUpdate) and item.seq > 20:
                started.set()

        players = [Background(lambda s=s: sessions[s].play(game_id, first_turn, on_item=note if s == 0 else None)) for s in range(2)]
        assert started.wait(60)
        server.stop()
        # Everything below is asked while no server listens.
        reader = Background(lambda: sessions[0].history(game_id))
        newcomer = Background(lambda: client.register("newcomer"))
        table = Background(lambda: sessions[0].create_game(2))
        time.sleep(4)
        server.start()
        results = [p.join(120) for p in players]
        assert all(r.view.status == model_pb2.GAME_STATUS_FINISHED for r in results)
        assert all(r.stale == 0 and not r.timeouts for r in results)
        assert reader.join(60).entries
        assert newcomer.join(60).view(game_id).status == model_pb2.GAME_STATUS_FINISHED
        created = table.join(60)
        assert sessions[0].view(created).status == model_pb2.GAME_STATUS_OPEN
        assert sum(s.stats.unavailable for s in sessions) > 0
        # Every turn was played once: the server's history has no turn twice.
        history = sessions[1].history(game_id)
        played = [(e.event.turn_taken.round, e.event.turn_taken.turn, e.event.turn_taken.seat)
                  for e in history.entries if e.event.HasField("turn_taken")]
        assert len(played) == len(set(played))


def test_a_bot_started_before_its_server_registers_once_it_serves(make_server) -> None:
    """Registering waits for the server (the bot of a CI run that died before it registered
    had met a server that was not answering yet)."""
    server = make_server(start=False)
    with Client(server.target) as client:
        registering = Background(lambda: client.register("early-bird"))
        time.sleep(2)
        server.start()
        session: Session = registering.join(60)
        assert session.player().player_id == session.player_id


def test_the_ladder_and_the_offers_loops_ride_through_a_restart(make_server) -> None:
    server = make_server(["--ladder-turn-secs", "20"])
    with Client(server.target) as client:
        a, b = client.register("ladder-a"), client.register("ladder-b")
        halfway = threading.Event()
        results: dict[str, list[GameResult]] = {}

        def count(result: GameResult) -> None:
            halfway.set()

        ladders = [
            Background(lambda s=s, name=name: results.setdefault(name, play_ladder(s, first_turn, players=2, games=2, on_result=count)))
            for s, name in ((a, "a"), (b, "b"))
        ]
        assert halfway.wait(120), "a first ladder game ended"
        server.restart(pause=2.0)
        for ladder in ladders:
            ladder.join(180)
        assert [len(results["a"]), len(results["b"])] == [2, 2]
        assert {r.game_id for r in results["a"]} == {r.game_id for r in results["b"]}
        assert all(r.view.status == model_pb2.GAME_STATUS_FINISHED for r in results["a"])

        # The offers: a challenge made after a restart reaches a bot waiting on its stream.
        c, d = client.register("challenger"), client.register("offered")
        offered = Background(lambda: play_offers(d, first_turn, games=1))
        time.sleep(1)
        server.restart(pause=2.0)
        challenge = c.challenge([d.player_id])
        challenger = Background(lambda: _play_challenge(c, challenge.challenge_id))
        [result] = offered.join(120)
        challenger.join(120)
        assert result.view.status == model_pb2.GAME_STATUS_FINISHED
        assert d.stats.unavailable > 0, "the offers stream was reopened"


def _play_challenge(session: Session, challenge_id: str) -> GameResult:
    """The challenger's side: waits for the challenge's game, then plays it."""
    for message in session.offers():
        if message.WhichOneof("message") == "matched":
            return session.play(message.matched.game_id, first_turn)
    raise AssertionError("the offers stream ended without the game")


def test_a_server_that_stays_away_is_a_clear_error_in_bounded_time(make_server) -> None:
    server = make_server()
    policy = RetryPolicy(unavailable_for=1.0)
    with Client(server.target, policy=policy) as client:
        game_id, (me, _) = seat_players(client, 2)
        feed = iter(me.feed(game_id))
        next(feed)
        server.stop()
        for call in (
            lambda: me.view(game_id),
            lambda: me.submit(game_id, 1, model_pb2.TurnAction()),
            lambda: me.create_game(2),
            lambda: client.register("too-late"),
            lambda: me.find_match(2),
            lambda: next(feed),
        ):
            started = time.monotonic()
            with pytest.raises(Unavailable) as away:
                call()
            waited = time.monotonic() - started
            assert 0.9 <= waited < 15, f"{away.value.call}: gave up after {waited:.1f} s"
            assert away.value.code == grpc.StatusCode.UNAVAILABLE
            assert "1 s" in away.value.message, away.value.message
        # The feed's error says it is the stream that was lost.
        assert isinstance(away.value, StreamLost)


def test_a_throttled_client_still_finishes(make_server) -> None:
    server: Server = make_server(quotas={"--quota-calls-per-sec": "4", "--quota-call-burst": "4"})
    with Client(server.target) as client:
        game_id, sessions = seat_players(client, 2)
        started = time.monotonic()
        players = [Background(lambda s=s: sessions[s].play(game_id, first_turn)) for s in range(2)]
        finals = [p.join(300).view for p in players]
        assert all(f.status == model_pb2.GAME_STATUS_FINISHED for f in finals)
        throttled = sum(s.stats.throttled for s in sessions)
        assert throttled > 0, "the quota was reached and waited out"
        # Every answer told what was left: a client can pace itself by it.
        budget = sessions[0].budget
        assert budget is not None and budget.limit == 4 and 0 <= budget.remaining <= 4
        assert budget.policy == '4;w=1;name="calls per player"'
        assert 0 <= budget.reset <= 2
        # Paced by RetryInfo, not hammering: about 4 calls a second per player.
        turns = sum(1 for e in sessions[0].history(game_id).entries if e.event.HasField("turn_taken"))
        assert time.monotonic() - started >= turns / 2 / 4 * 0.5
