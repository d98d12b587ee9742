"""The examples do what they say: two ladder bots play full ladder games against a real
server, each under the identity it saved, an offers bot answers a challenge, the same bot
plays offline, and the export writes records that replay. Processes are watched together
(``conftest.Processes``): one that dies fails the test at once with every output."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import threading
import time

import jsonschema
import pytest

from conftest import REPO, Processes
from theboss import engine
from theboss.client import Client
from theboss.credentials import Credentials
from theboss.v1 import model_pb2

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
RESULT = re.compile(r"^game (\S+) seat (\d): (won|lost|aborted).*?, (\d+) M\$", re.M)


def run(script: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True, text=True, timeout=timeout,
    )


def example(script: str, *args: str) -> list[str]:
    return [sys.executable, "-u", str(EXAMPLES / script), *args]


def test_the_ladder_bot_is_under_sixty_lines() -> None:
    assert len((EXAMPLES / "ladder_bot.py").read_text().splitlines()) < 60


def test_a_failing_process_fails_the_watch_at_once_with_everyones_output() -> None:
    """A process that dies ends the wait in seconds, not at the deadline, and the failure
    shows what every process wrote (the ladder test once waited ten minutes on a bot whose
    partner had died at its start, and never showed why)."""
    processes = Processes({
        "patient": [sys.executable, "-u", "-c", "print('waiting'); import time; time.sleep(600)"],
        "doomed": [sys.executable, "-u", "-c", "import sys; print('about to fail'); sys.exit(3)"],
    })
    started = time.monotonic()
    with pytest.raises(pytest.fail.Exception) as failed:
        processes.wait(timeout=600)
    assert time.monotonic() - started < 30
    report = str(failed.value)
    assert "doomed failed" in report and "exit code 3" in report and "about to fail" in report
    assert "patient" in report and "waiting" in report
    assert all(p.poll() is not None for p in processes.processes.values()), "the others were stopped"


def test_two_ladder_bots_play_three_full_ladder_games_under_saved_identities(make_server, tmp_path: pathlib.Path) -> None:
    server = make_server(["--ladder-turn-secs", "20"])
    files = [tmp_path / f"bot{i}.json" for i in range(2)]

    def bots(games: int) -> Processes:
        return Processes(
            {
                f"bot{i}": example(
                    "ladder_bot.py", "--server", server.target, "--name", f"bot{i}",
                    "--token-file", str(files[i]), "--games", str(games), "--players", "2",
                )
                for i in range(2)
            },
            server,
        )

    first = bots(3)
    first.wait(timeout=300)
    games = [RESULT.findall(first.output(f"bot{i}")) for i in range(2)]
    assert [len(g) for g in games] == [3, 3], first.report()
    assert sorted(g[0] for g in games[0]) == sorted(g[0] for g in games[1])
    identities = [Credentials.load(f, server.target) for f in files]
    assert all(c is not None for c in identities)
    with Client(server.target) as client:
        auditor = client.register("auditor")
        for game_id, seat, _, money in games[0]:
            view = auditor.view(game_id)
            assert view.status == model_pb2.GAME_STATUS_FINISHED
            assert view.seats[int(seat)].money == int(money)
            summary = next(g for g in auditor.list_games([model_pb2.GAME_STATUS_FINISHED]) if g.game_id == game_id)
            assert summary.ladder
            # Both seats played their own turns: none by the clock.
            history = auditor.history(game_id)
            assert not any(e.event.turn_taken.by_timeout for e in history.entries if e.event.HasField("turn_taken"))
        # Run again, the bots come back as themselves: one identity, one rating, each.
        again = bots(1)
        again.wait(timeout=300)
        for i, saved in enumerate(identities):
            assert saved is not None
            assert Credentials.load(files[i], server.target) == saved
            ratings = auditor.player(saved.player_id).ratings
            assert any(r.players == 2 and r.games == 4 for r in ratings), ratings
        names = [s.player.display_name for s in auditor.view(games[0][0][0]).seats]
        assert sorted(names) == ["bot0", "bot1"]


def test_the_offers_bot_answers_a_challenge_and_plays_it(make_server, tmp_path: pathlib.Path) -> None:
    server = make_server()
    token_file = tmp_path / "offers.json"
    bot = Processes({"offers": example(
        "offers_bot.py", "--server", server.target, "--token-file", str(token_file), "--games", "1",
    )}, server)
    deadline = time.monotonic() + 60
    while Credentials.load(token_file, server.target) is None:
        assert time.monotonic() < deadline, bot.report()
        time.sleep(0.1)
    saved = Credentials.load(token_file, server.target)
    assert saved is not None
    with Client(server.target) as client:
        me = client.register("challenger")
        challenge = me.challenge([saved.player_id])
        offers = me.offers()
        matched = next(m for m in offers if m.WhichOneof("message") == "matched").matched
        offers.close()
        result = me.play(matched.game_id, lambda view: engine.view_turns(view)[0])
        assert result.view.status == model_pb2.GAME_STATUS_FINISHED
        # The bot accepted the challenge: it sat at the game the challenge made.
        assert challenge.opponents[0].player_id == saved.player_id
        assert saved.player_id in [seat.player.player_id for seat in result.view.seats]
    bot.wait(timeout=120)
    [line] = RESULT.findall(bot.output("offers"))
    assert line[0] == matched.game_id


def test_the_bot_plays_offline_against_itself() -> None:
    result = run("offline_selfplay.py", "--players", "3", "--games", "2", timeout=300)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("seed ")]
    assert len(lines) == 2
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
        assert result.stdout.count("shuffle verified") == 2, result.stdout
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
