"""A ladder bot: plays the ladder forever (or --games N) under one identity, kept from run to
run where boss-bot keeps its own. Each turn it looks one ply ahead: every legal turn tried
on one world consistent with its view, the best kept."""

import argparse
import random

from theboss import engine
from theboss.client import Client, play_ladder
from theboss.v1 import model_pb2


def evaluate(view: model_pb2.GameView, me: int) -> float:
    """My money, plus what the places I lead would pay now, plus gangsters kept in hand."""
    odds = {o.city: o.expected_money() for o in engine.face_down_odds(view)}
    value = float(view.seats[me].money)
    for place in view.locations:
        if place.HasField("leader") and place.leader == me:
            chicago = place.location == model_pb2.LOCATION_CHICAGO
            value += view.chicago_value if chicago else odds.get(place.location, 0.0)
    supply = view.seats[me].supply
    return value + 0.4 * supply.experts_free + 0.2 * supply.occasionals


def choose(view: model_pb2.GameView) -> model_pb2.TurnAction:
    world = engine.determinize(view, random.getrandbits(63))

    def score(turn: model_pb2.TurnAction) -> float:
        trial = world.copy()
        trial.apply(turn)
        return evaluate(trial.view(view.viewer_seat), view.viewer_seat)

    return max(engine.view_turns(view), key=score)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--server", default="127.0.0.1:50051")
    parser.add_argument("--name", default="py-one-ply")
    parser.add_argument("--token-file", help="where the identity is kept (default: boss-bot's)")
    parser.add_argument("--players", type=int, default=2, help="2, 3, 4 or 0 (any)")
    parser.add_argument("--games", type=int, default=0, help="stop after this many (0: never)")
    args = parser.parse_args()
    with Client(args.server) as client:
        me = client.login(args.name, token_file=args.token_file, description="one-ply, v2")
        play_ladder(me, choose, players=args.players, games=args.games or None,
                    on_result=lambda result: print(result, flush=True))


if __name__ == "__main__":
    main()
