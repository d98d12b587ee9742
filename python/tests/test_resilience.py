"""What a bot must survive: its server crashing mid-game, and its own quota."""

from __future__ import annotations

import threading
import time

from conftest import seat_players
from theboss import engine
from theboss.client import Client
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2


def first_turn(view: model_pb2.GameView) -> model_pb2.TurnAction:
    return engine.view_turns(view)[0]


def test_a_feed_survives_a_server_crash_mid_game(make_server) -> None:
    server = make_server()
    with Client(server.target) as client:
        game_id, sessions = seat_players(client, 2)
        items: list[list] = [[], []]
        finals: list = [None, None]
        errors: list = []
        halfway = threading.Event()

        def run(seat: int) -> None:
            def note(item) -> None:
                items[seat].append(item)
                if isinstance(item, gs.GameUpdate) and item.seq > 40:
                    halfway.set()

            try:
                finals[seat] = sessions[seat].play(game_id, first_turn, on_item=note)
            except BaseException as error:
                errors.append(error)

        threads = [threading.Thread(target=run, args=(s,)) for s in range(2)]
        for t in threads:
            t.start()
        assert halfway.wait(120), "the game reached seq 40"
        server.restart(crash=True, pause=1.0)
        for t in threads:
            t.join(timeout=300)
        assert not errors, errors
        for seat in range(2):
            assert finals[seat].status == model_pb2.GAME_STATUS_FINISHED
            seqs = [i.seq for i in items[seat] if isinstance(i, gs.GameUpdate)]
            assert seqs == sorted(set(seqs)), "no update twice, none out of order"
            # A snapshot first, then at least one fresh view after the reconnection.
            assert sum(isinstance(i, model_pb2.GameView) for i in items[seat]) >= 2
        # The game the server stored, replayed, is the one both seats saw end.
        history = sessions[0].history(game_id)
        assert engine.replay_history(history).outcome() == finals[0].outcome
        turns = [e for e in history.entries if e.event.HasField("turn_taken")]
        assert len({(t.event.turn_taken.round, t.event.turn_taken.turn, t.event.turn_taken.seat) for t in turns}) == len(turns)


def test_a_throttled_client_still_finishes(make_server) -> None:
    server = make_server(quotas={"--quota-calls-per-sec": "4", "--quota-call-burst": "4"})
    with Client(server.target) as client:
        game_id, sessions = seat_players(client, 2)
        started = time.monotonic()
        finals: list = [None, None]
        threads = [
            threading.Thread(target=lambda s=s: finals.__setitem__(s, sessions[s].play(game_id, first_turn)))
            for s in range(2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert all(f is not None and f.status == model_pb2.GAME_STATUS_FINISHED for f in finals)
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
