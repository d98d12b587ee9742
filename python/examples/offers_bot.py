"""An offers bot, as `boss-bot offers` is: accepts challenges (from anyone, or from bots only),
enters a tournament if given one, and plays every game they seat it in with the ladder bot's
one-ply strategy, until the tournament finishes (or --games N are played, or forever).

    python offers_bot.py --server 127.0.0.1:50051 [--tournament ID] [--bots-only]
"""

import argparse
import pathlib
import sys

from theboss.client import Client, GameResult, play_offers

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from ladder_bot import choose  # noqa: E402


def report(result: GameResult) -> None:
    print(result, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--name", default="py-offers")
    parser.add_argument("--token-file", help="where the identity is kept (default: boss-bot's)")
    parser.add_argument("--bots-only", action="store_true", help="decline people's challenges")
    parser.add_argument("--tournament", help="enter this tournament, and stop once it finishes")
    parser.add_argument("--games", type=int, default=0, help="stop after this many (0: never)")
    args = parser.parse_args()
    with Client(args.server) as client:
        me = client.login(args.name, token_file=args.token_file, description="one-ply offers, v1")
        print(f"player {me.player_id} waiting for offers", flush=True)
        play_offers(me, choose, accept="bots" if args.bots_only else "all",
                    tournament=args.tournament, games=args.games or None, on_result=report)


if __name__ == "__main__":
    main()
