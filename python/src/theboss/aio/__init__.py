"""The live service on asyncio (``grpc.aio``), for bots that play many games at once.

::

    import asyncio
    from theboss import engine
    from theboss.aio import AsyncClient, play_ladder

    async def main() -> None:
        async with AsyncClient("127.0.0.1:50051") as client:
            me = await client.login("my-async-bot")
            results = await play_ladder(me, lambda view: engine.view_turns(view)[0],
                                        parallel=4, games=20)

    asyncio.run(main())

The same calls, arguments, errors and retry policy as ``theboss.client``, awaited:
``feed`` (``AsyncGameFeed``, in order across reconnections), ``play`` (a ``GameResult``),
``play_ladder`` and ``play_offers``. This package only re-exports its modules: ``feed``,
``session`` and ``loops``.
"""

from theboss.aio.feed import AsyncGameFeed
from theboss.aio.loops import play_ladder, play_offers
from theboss.aio.session import AsyncChoose, AsyncClient, AsyncSession
from theboss.client import Budget, CallStats, GameResult, RetryPolicy

__all__ = [
    "AsyncChoose",
    "AsyncClient",
    "AsyncGameFeed",
    "AsyncSession",
    "Budget",
    "CallStats",
    "GameResult",
    "RetryPolicy",
    "play_ladder",
    "play_offers",
]
