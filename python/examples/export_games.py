"""Exports a player's finished games for training, one game record per line (NDJSON), in
the format of docs/game-record.schema.json: players, rules version, cities, seed, salt and
commitment, every turn with its time, every event, the final standings. With `--check`,
each record is read back with `theboss.record` and replayed offline by the engine first.

    python export_games.py --player-id ID --token TOKEN --out games.ndjson [--check]
"""

import argparse
import os

from theboss import record
from theboss.client import Client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--player-id", required=True)
    parser.add_argument("--token", default=os.environ.get("THEBOSS_TOKEN"), help="or $THEBOSS_TOKEN")
    parser.add_argument("--out", required=True)
    parser.add_argument("--check", action="store_true", help="replay every record offline")
    args = parser.parse_args()
    if not args.token:
        parser.error("--token or $THEBOSS_TOKEN is needed")
    with Client(args.server) as client, open(args.out, "w") as out:
        me = client.session(args.player_id, args.token)
        count = 0
        for line in me.export_games():
            if args.check:
                game = record.read(line)
                replayed = game.replay()  # raises InvalidRecord unless it ends as recorded
                print(f"game {game.game_id}: {len(game.turns)} turns replayed, shuffle {replayed.shuffle}")
            out.write(line + "\n")
            count += 1
    print(f"{count} games written to {args.out}")


if __name__ == "__main__":
    main()
