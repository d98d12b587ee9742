"""The live service: connect, register, play, watch and climb the ladder.

::

    from theboss.client import Client, play_ladder
    from theboss.engine import view_turns

    with Client("127.0.0.1:50051") as client:
        me = client.login("my-bot")                  # the saved identity, or a new one
        for result in play_ladder(me, lambda view: view_turns(view)[0], games=3):
            print(result)

Modules, each over the ones before it: ``_rpc`` (errors and retries), ``feed`` (a game's
updates, in order, across reconnections), ``play`` (when a seat acts; what a game did to
it), ``session`` (``Client`` and ``Session``: one method per RPC), ``loops`` (the ladder and
the offers, as ``boss-bot`` plays them). This package only re-exports them.
"""

from theboss.client._rpc import Budget, CallStats, RetryPolicy
from theboss.client.feed import FeedItem, GameFeed
from theboss.client.loops import Accept, Choose, play_ladder, play_offers
from theboss.client.play import GameResult
from theboss.client.session import DEFAULT_TARGET, Client, Session
from theboss.engine import view_turns
from theboss.errors import StreamLost

__all__ = [
    "Accept",
    "Budget",
    "CallStats",
    "Choose",
    "Client",
    "DEFAULT_TARGET",
    "FeedItem",
    "GameFeed",
    "GameResult",
    "RetryPolicy",
    "Session",
    "StreamLost",
    "play_ladder",
    "play_offers",
    "view_turns",
]
