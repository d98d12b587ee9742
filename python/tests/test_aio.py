"""The asyncio client (``theboss.aio``): many games at once from one process, the same
errors and retries as the sync client, the feed in order across a restart, and the ladder."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Coroutine, TypeVar

import grpc
import pytest

from conftest import Server
from theboss import engine
from theboss.aio import AsyncClient, AsyncSession, play_ladder
from theboss.client import FeedItem, RetryPolicy
from theboss.errors import BadRequest, RuleRefused, RuleViolation, Unavailable
from theboss.v1 import game_service_pb2 as gs
from theboss.v1 import model_pb2

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T], timeout: float = 180) -> T:
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


def first_turn(view: model_pb2.GameView) -> model_pb2.TurnAction:
    return engine.view_turns(view)[0]


async def thoughtful(view: model_pb2.GameView) -> model_pb2.TurnAction:
    """A strategy that is a coroutine (the others' games go on while it thinks)."""
    await asyncio.sleep(0)
    return engine.view_turns(view)[-1]


def test_one_process_plays_several_games_at_once(server: Server) -> None:
    async def main() -> list[int]:
        async with AsyncClient(server.target) as client:
            me = await client.register("async-many")
            games = []
            for strategy in (first_turn, thoughtful, first_turn):
                game_id = await me.create_game(2, house_bots=[model_pb2.BOT_STRATEGY_RANDOM])
                await me.join(game_id)
                games.append(me.play(game_id, strategy))
            results = await asyncio.gather(*games)
            for result in results:
                assert result.view.status == model_pb2.GAME_STATUS_FINISHED
                assert result.seat == 0 and result.turns_played > 5 and not result.forfeited
            history = await me.history(results[0].game_id)
            assert engine.replay_history(history).outcome() == results[0].outcome
            return [r.money for r in results]

    assert len(run(main())) == 3


def test_refusals_are_the_same_errors_as_the_sync_clients(server: Server) -> None:
    async def main() -> None:
        async with AsyncClient(server.target) as client:
            a, b = await client.register("async-a"), await client.register("async-b")
            game_id = await a.create_game(2)
            with pytest.raises(BadRequest) as seat:
                await a.join(game_id, seat=5)
            assert seat.value.field == "seat"
            await a.join(game_id, 0)
            await b.join(game_id, 1)
            view = await a.view(game_id)
            waiting = a if view.to_move == 1 else b
            seen = await waiting.view(game_id)
            turn = model_pb2.TurnAction(card=seen.hand[0])
            with pytest.raises(RuleViolation) as rule:
                await waiting.submit(game_id, seen.seq, turn)
            assert isinstance(rule.value, RuleRefused) and rule.value.reason == "TURN_ORDER"
            assert rule.value.code == grpc.StatusCode.FAILED_PRECONDITION
            summaries = [g async for g in a.list_games([model_pb2.GAME_STATUS_RUNNING], mine=True)]
            assert [g.game_id for g in summaries] == [game_id]

    run(main())


def test_an_async_feed_delivers_in_order_across_a_server_restart(make_server) -> None:
    server = make_server()

    async def main() -> None:
        async with AsyncClient(server.target) as client:
            a, b = await client.register("p0"), await client.register("p1")
            game_id = await a.create_game(2)
            await a.join(game_id, 0)
            await b.join(game_id, 1)
            items: list[FeedItem] = []
            halfway = asyncio.Event()

            def note(item: FeedItem) -> None:
                items.append(item)
                if item.seq > 20:
                    halfway.set()

            games = [asyncio.ensure_future(a.play(game_id, first_turn, on_item=note)),
                     asyncio.ensure_future(b.play(game_id, first_turn))]
            await asyncio.wait_for(halfway.wait(), 60)
            await asyncio.to_thread(server.restart, False, 1.0)
            results = await asyncio.gather(*games)
            assert all(r.view.status == model_pb2.GAME_STATUS_FINISHED for r in results)
            seqs = [i.seq for i in items]
            assert seqs == sorted(set(seqs)) and isinstance(items[0], model_pb2.GameView)
            assert sum(isinstance(i, model_pb2.GameView) for i in items) == 1
            assert a.stats.unavailable > 0

    run(main())


def test_the_async_ladder(server: Server) -> None:
    async def main() -> None:
        async with AsyncClient(server.target) as client:
            a, b = await client.register("async-ladder-a"), await client.register("async-ladder-b")
            ra, rb = await asyncio.gather(
                play_ladder(a, first_turn, players=2, games=1),
                play_ladder(b, thoughtful, players=2, games=1),
            )
            assert [r.game_id for r in ra] == [r.game_id for r in rb]
            assert ra[0].view.status == model_pb2.GAME_STATUS_FINISHED

    run(main())


def test_an_async_client_gives_up_in_bounded_time(make_server) -> None:
    server = make_server()

    async def main() -> None:
        async with AsyncClient(server.target, policy=RetryPolicy(unavailable_for=1.0)) as client:
            me: AsyncSession = await client.register("async-alone")
            await asyncio.to_thread(server.stop)
            for call in (lambda: me.view("nowhere"), lambda: me.create_game(2)):
                started = time.monotonic()
                with pytest.raises(Unavailable) as away:
                    await call()
                assert 0.9 <= time.monotonic() - started < 10
                assert "1 s" in away.value.message

    run(main())


def test_update_views_every_gives_every_update_a_view(server: Server) -> None:
    async def main() -> None:
        async with AsyncClient(server.target) as client:
            me = await client.register("async-every")
            game_id = await me.create_game(2, house_bots=[model_pb2.BOT_STRATEGY_RANDOM])
            await me.join(game_id)
            play = asyncio.ensure_future(me.play(game_id, first_turn))
            updates = []
            async for item in me.feed(game_id, after_seq=0, update_views=gs.UPDATE_VIEWS_EVERY):
                if isinstance(item, gs.GameUpdate):
                    updates.append(item)
            await play
            assert updates and all(u.HasField("view") for u in updates)

    run(main())
