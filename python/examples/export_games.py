"""Exports a player's finished games for training, one JSON record per line (NDJSON): the
game's summary, its revealed seed and salt, and every event of its history (protobuf JSON).
Each record replays offline with `engine.replay_history`, as `--check` does.

    python export_games.py --player-id ID --token TOKEN --out games.ndjson [--check]
"""

import argparse
import json
import os

from google.protobuf import json_format

from theboss import engine
from theboss.client import Client
from theboss.v1 import game_service_pb2, model_pb2


def record(summary: model_pb2.GameSummary, history: game_service_pb2.GetHistoryResponse) -> dict:
    return {
        "summary": json_format.MessageToDict(summary),
        "history": json_format.MessageToDict(history),
    }


def replay(line: str) -> engine.Game:
    """The game a record holds, rebuilt by the engine."""
    history = json_format.ParseDict(json.loads(line)["history"], game_service_pb2.GetHistoryResponse())
    return engine.replay_history(history)


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
        for summary in me.list_games([model_pb2.GAME_STATUS_FINISHED], mine=True):
            history = me.history(summary.game_id)
            line = json.dumps(record(summary, history))
            outcome = replay(line).outcome() if args.check else None
            if args.check and (outcome is None or sorted(outcome.winners) != sorted(summary.winners)):
                raise SystemExit(f"game {summary.game_id} does not replay to its result")
            out.write(line + "\n")
            count += 1
    print(f"{count} games written to {args.out}")


if __name__ == "__main__":
    main()
