"""Game records (``theboss.record``): an export read back, replayed by the engine to the
game the server played, its turns in the notation; and what is not a record refused."""

from __future__ import annotations

import json
import pathlib

import pytest

from conftest import Server
from theboss import engine, record
from theboss.client import Client
from theboss.errors import InvalidRecord
from theboss.v1 import model_pb2


@pytest.fixture(scope="module")
def exported(server: Server) -> tuple[list[str], list[model_pb2.GameView]]:
    """Two finished games of one player against house bots, exported."""
    with Client(server.target) as client:
        me = client.register("recorder")
        finals = []
        for players in (2, 4):
            game_id = me.create_game(players, house_bots=[model_pb2.BOT_STRATEGY_RANDOM] * (players - 1))
            me.join(game_id)
            finals.append(me.play(game_id, lambda view: engine.view_turns(view)[-1]).view)
        return list(me.export_games()), finals


def test_an_export_reads_back_and_replays_to_the_games_played(
    exported: tuple[list[str], list[model_pb2.GameView]], tmp_path: pathlib.Path
) -> None:
    lines, finals = exported
    path = tmp_path / "games.ndjson"
    path.write_text("\n".join(lines) + "\n\n")
    games = list(record.read_file(path))
    assert sorted(g.game_id for g in games) == sorted(f.game_id for f in finals)
    for game in games:
        final = next(f for f in finals if f.game_id == game.game_id)
        assert game.players == len(final.seats) and list(game.cities) == list(final.cities)
        assert game.seed_commitment == final.seed_commitment and game.seed_salt
        assert [s.seat for s in game.seats] == list(range(game.players))
        assert game.seats[0].display_name == "recorder"
        replayed = record.read(game.text).replay()
        assert replayed.shuffle == "verified"
        assert replayed.game.money() == [s.money for s in final.seats]
        assert tuple(replayed.game.outcome().winners) == game.winners == tuple(final.outcome.winners)
        # Every turn, in the notation, as the engine writes it; and the log replays them.
        assert [str(t) for t in game.turns] == [engine.turn_text(t.action) for t in game.turns]
        logged = [e.event.turn_taken.action for e in replayed.game.events() if e.event.HasField("turn_taken")]
        assert logged == [t.action for t in game.turns]
        assert all(1 <= t.turn <= engine.TURNS_PER_ROUND and t.seat < game.players for t in game.turns)
        assert max(t.round for t in game.turns) <= engine.MAX_ROUNDS


def test_what_is_not_a_record_or_does_not_replay_is_refused(exported: tuple[list[str], list[model_pb2.GameView]]) -> None:
    line = exported[0][0]
    document = json.loads(line)
    # Another turn than the one played: the replay breaks a rule or ends otherwise.
    tampered = json.loads(line)
    tampered["turns"][0], tampered["turns"][1] = tampered["turns"][1], tampered["turns"][0]
    with pytest.raises(InvalidRecord):
        record.read(json.dumps(tampered)).replay()
    # A salt that does not hash, with the seed, to the commitment the views showed.
    resalted = record.read(json.dumps(dict(document, seed_salt="another salt")))
    with pytest.raises(InvalidRecord, match="commitment"):
        resalted.replay()
    assert resalted.replay(check_shuffle=False).shuffle == "mismatch"
    for text in ("not json", "{}", json.dumps(dict(document, format="other")), json.dumps(dict(document, version=99))):
        with pytest.raises(InvalidRecord):
            record.read(text)
    with pytest.raises(InvalidRecord, match="line 2"):
        list(record.read_lines([line, "{}"]))
