"""The ladder bot of ladder_bot.py against itself, offline, on the server's exact rules:
the same `choose(view)`, fed the views the engine gives each seat.

    python offline_selfplay.py --players 3 --games 10
"""

import argparse
import collections
import pathlib
import sys

from theboss import engine

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from ladder_bot import choose  # noqa: E402


def play(players: int, seed: int) -> engine.Game:
    game = engine.Game(players, seed)
    while not game.is_over:
        game.apply(choose(game.view(game.to_move)))
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    wins: collections.Counter = collections.Counter()
    for i in range(args.games):
        game = play(args.players, args.seed + i)
        outcome = game.outcome()
        assert outcome is not None, "a game played to its end has an outcome"
        wins.update(outcome.winners)
        print(f"seed {args.seed + i}: money {game.money()} winners {list(outcome.winners)}")
    print("wins by seat:", dict(sorted(wins.items())))


if __name__ == "__main__":
    main()
