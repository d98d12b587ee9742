"""Complete random games per second: a playout loop written in Python over `theboss.engine`,
beside the Rust engine running the same loop, in the same process on the same machine.

    python benchmarks/playout.py [--games 3000]

The target: Python at least a quarter of Rust's games per second.
"""

import argparse
import random
import time

from theboss import engine
from theboss._engine import bench_random_games


def python_games(players: int, games: int, seed: int) -> float:
    """Seconds for `games` random games, the loop written in Python."""
    started = time.perf_counter()
    for i in range(games):
        game = engine.Game(players, seed + i)
        rng = random.Random(seed + i)
        while not game.is_over:
            game.apply_index(rng.randrange(game.legal_count()))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'players':>7} {'python games/s':>15} {'rust games/s':>13} {'ratio':>6}")
    worst = float("inf")
    for players in (2, 3, 4):
        python_games(players, 50, args.seed)  # warm up
        py = args.games / python_games(players, args.games, args.seed)
        rust = args.games / bench_random_games(players, args.games, args.seed)
        worst = min(worst, py / rust)
        print(f"{players:>7} {py:>15,.0f} {rust:>13,.0f} {py / rust:>6.2f}")
    print(f"lowest ratio {worst:.2f} (target: at least 0.25)")


if __name__ == "__main__":
    main()
