"""Exports a player's finished games for training, one game record per line (NDJSON), in
the format of docs/game-record.schema.json: players, rules version, cities, seed, salt and
commitment, every turn with its time, every event, the final standings. With `--check`,
each record is replayed offline by the engine first.

    python export_games.py --player-id ID --token TOKEN --out games.ndjson [--check]
"""

import argparse
import json
import os

from theboss import engine
from theboss.client import Client
from theboss.v1 import model_pb2


def replay(record: dict) -> engine.Game:
    """The game a record holds, rebuilt by the engine from its seed and turns."""
    cities = [model_pb2.City.Value("CITY_" + city.upper()) for city in record["cities"]]
    game = engine.Game(record["players"], int(record["seed"]), cities, record["rules_version"])
    for turn in record["turns"]:
        card = turn["card"]
        face = (
            {"money": card["money"]}
            if "money" in card
            else {"sanction": "SANCTION_" + card["sanction"].upper()}
        )
        action = model_pb2.TurnAction(card=model_pb2.Card(city="CITY_" + card["city"].upper(), **face))
        if "placement" in turn:
            place = turn["placement"]
            action.placement.CopyFrom(
                model_pb2.Placement(
                    location="LOCATION_" + place["location"].upper(),
                    experts=place["experts"],
                    occasionals=place["occasionals"],
                )
            )
        game.apply(action, turn["seat"])
    return game


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
            record = json.loads(line)
            if args.check:
                outcome = replay(record).outcome()
                if outcome is None or sorted(outcome.winners) != sorted(record["outcome"]["winners"]):
                    raise SystemExit(f"game {record['game_id']} does not replay to its result")
            out.write(line + "\n")
            count += 1
    print(f"{count} games written to {args.out}")


if __name__ == "__main__":
    main()
