"""A bot as a user writes one, against the installed kit: python_kit.rs type-checks it with
`mypy --strict` outside the source tree, so that it sees only what the wheel ships (its
`py.typed`, the extension's stubs) and the declared stub packages. tests/test_layout.py
runs it too, offline and against a server.

It touches most of what a bot author reaches for: the engine and its errors, the notation,
the board, records, the sync and asyncio clients, their results and the ladder loop.
"""

from __future__ import annotations

import asyncio
import random
from typing import Optional

from theboss import board, engine, record
from theboss.aio import AsyncClient, AsyncSession
from theboss.client import Client, GameResult, RetryPolicy, Session, play_ladder
from theboss.errors import InvalidArgument, RpcError, RuleViolation, Unavailable
from theboss.v1 import model_pb2


def greedy(view: model_pb2.GameView) -> model_pb2.TurnAction:
    """The legal turn that leaves this seat the most money on one sampled world."""
    seat = view.viewer_seat
    world = engine.determinize(view, random.getrandbits(63))

    def money_after(turn: model_pb2.TurnAction) -> int:
        trial = world.copy()
        trial.apply(turn)
        return trial.money()[seat]

    return max(engine.view_turns(view), key=money_after)


def offline(seed: int) -> Optional[model_pb2.Outcome]:
    """One game of the greedy bot against itself, with a wrong turn tried on the way."""
    game = engine.Game(players=3, seed=seed)
    while not game.is_over:
        view = game.view(game.to_move)
        try:
            game.apply(engine.parse_turn("play boston 9", view))
        except (InvalidArgument, RuleViolation) as refused:
            assert refused.message
        game.apply(greedy(view))
    final: model_pb2.GameView = game.view(0)
    print(board.render(final))
    return game.outcome()


def online(target: str) -> list[GameResult]:
    """Three ladder games, the results told as they end."""
    with Client(target, policy=RetryPolicy(unavailable_for=30.0)) as client:
        me: Session = client.login("user-bot")
        try:
            return play_ladder(me, greedy, players=2, games=3, on_result=print)
        except Unavailable as down:
            print(f"the service stayed away: {down.message}")
            return []
        except RpcError as refused:
            print(refused.code, refused.reason)
            return []


async def online_async(target: str) -> int:
    """A game against two house bots, on asyncio."""
    async with AsyncClient(target) as client:
        me: AsyncSession = await client.register("user-bot-async")
        game_id = await me.create_game(
            3, house_bots=[model_pb2.BOT_STRATEGY_RANDOM, model_pb2.BOT_STRATEGY_HEURISTIC]
        )
        await me.join(game_id)
        result = await me.play(game_id, greedy)
        return result.money


def replay_export(path: str) -> int:
    """How many turns the records of an export hold, each replayed by the engine."""
    turns = 0
    for game in record.read_file(path):
        replayed = game.replay()
        assert replayed.game.is_over
        turns += len(game.turns)
        print(game.game_id, [str(turn) for turn in game.turns[:3]])
    return turns


def main(argv: list[str]) -> None:
    """Offline, then, given a server, a game there; with ``--ladder``, three ladder games
    (which need another bot in the queue); given an export, its records replayed."""
    print(offline(7))
    for argument in argv:
        if argument.endswith(".ndjson"):
            print(f"{replay_export(argument)} turns replayed")
        elif argument != "--ladder":
            print(f"money {asyncio.run(online_async(argument))}")
            if "--ladder" in argv:
                print(online(argument))


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
