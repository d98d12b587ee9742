"""The examples do what they say: the ladder bot plays full ladder games against a real
server, the same bot plays offline, and the export writes records that replay."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import threading

import jsonschema

from conftest import REPO
from theboss import engine
from theboss.client import Client
from theboss.v1 import model_pb2

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def run(script: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True, text=True, timeout=timeout,
    )


def test_the_ladder_bot_is_under_sixty_lines() -> None:
    assert len((EXAMPLES / "ladder_bot.py").read_text().splitlines()) < 60


def test_two_ladder_bots_play_three_full_ladder_games(make_server) -> None:
    server = make_server(["--ladder-turn-secs", "20"])
    bots = [
        subprocess.Popen(
            [sys.executable, str(EXAMPLES / "ladder_bot.py"), "--server", server.target,
             "--name", f"bot{i}", "--games", "3", "--players", "2"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i in range(2)
    ]
    outputs = [bot.communicate(timeout=600) for bot in bots]
    for bot, (out, err) in zip(bots, outputs):
        assert bot.returncode == 0, err
    games = [re.findall(r"^game (\S+) seat (\d) money (\d+) winners", out, re.M) for out, _ in outputs]
    assert [len(g) for g in games] == [3, 3]
    assert sorted(g[0] for g in games[0]) == sorted(g[0] for g in games[1])
    with Client(server.target) as client:
        auditor = client.register("auditor")
        for game_id, seat, money in games[0]:
            view = auditor.view(game_id)
            assert view.status == model_pb2.GAME_STATUS_FINISHED
            assert view.seats[int(seat)].money == int(money)
            summary = next(g for g in auditor.list_games([model_pb2.GAME_STATUS_FINISHED]) if g.game_id == game_id)
            assert summary.ladder
            # Both seats played their own turns: none by the clock.
            history = auditor.history(game_id)
            assert not any(e.event.turn_taken.by_timeout for e in history.entries if e.event.HasField("turn_taken"))


def test_the_bot_plays_offline_against_itself() -> None:
    result = run("offline_selfplay.py", "--players", "3", "--games", "2", timeout=300)
    assert result.returncode == 0, result.stderr
    lines = [l for l in result.stdout.splitlines() if l.startswith("seed ")]
    assert len(lines) == 2
    # Deterministic but for the bot's own sampling: the deal of seed 1 is the engine's.
    assert "wins by seat" in result.stdout


def test_the_export_writes_records_that_replay(server, tmp_path: pathlib.Path) -> None:
    with Client(server.target) as client:
        me = client.register("exporter")
        game_ids = []
        for players in (2, 3):
            sessions = [me] + [client.register(f"o{players}{i}") for i in range(players - 1)]
            game_id = me.create_game(players)
            for seat, session in enumerate(sessions):
                session.join(game_id, seat)
            threads = [
                threading.Thread(target=s.play, args=(game_id, lambda v: engine.view_turns(v)[-1]))
                for s in sessions
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=300)
            game_ids.append(game_id)
        out = tmp_path / "games.ndjson"
        result = run(
            "export_games.py", "--server", server.target, "--player-id", me.player_id,
            "--token", me.token, "--out", str(out), "--check",
        )
        assert result.returncode == 0, result.stderr
        records = [json.loads(line) for line in out.read_text().splitlines()]
        assert sorted(r["game_id"] for r in records) == sorted(game_ids)
        # Each record is of the documented format.
        schema = json.loads((REPO / "docs" / "game-record.schema.json").read_text())
        validator = jsonschema.Draft202012Validator(
            schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )
        for record in records:
            validator.validate(record)
            assert record["format"] == "theboss-game-record" and record["version"] == 1
            assert engine.shuffle_verified(record["seed_commitment"], int(record["seed"]), record["seed_salt"])
        # The schema is not a rubber stamp.
        broken = dict(records[0], seed=12)
        assert not validator.is_valid(broken)
