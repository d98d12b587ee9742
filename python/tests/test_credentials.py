"""Tokens kept where, and as, the Rust clients keep theirs: a bot logs in as the same player
run after run, and an identity saved by the ``boss`` CLI is the one Python logs in as (and
the other way round)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import stat
import subprocess

import pytest

from conftest import Server, cli_binary
from theboss.client import Client
from theboss.credentials import Credentials, config_dir, default_path, server_key
from theboss.errors import InvalidArgument


def test_saved_per_server_in_the_rust_clients_format(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "sub" / "creds.json"
    assert Credentials.load(path, "127.0.0.1:1") is None
    a = Credentials("p1", "tb_1", "A")
    b = Credentials("p2", "tb_2", "B")
    a.save(path, "127.0.0.1:1")
    b.save(path, "https://boss.example")
    assert Credentials.load(path, "127.0.0.1:1") == a
    assert Credentials.load(path, "http://127.0.0.1:1") == a, "a bare target is its http:// URL"
    assert Credentials.load(path, "https://boss.example") == b
    assert json.loads(path.read_text()) == {
        "http://127.0.0.1:1": {"player_id": "p1", "api_token": "tb_1", "display_name": "A"},
        "https://boss.example": {"player_id": "p2", "api_token": "tb_2", "display_name": "B"},
    }
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["creds.json"], "no temporary file left"
    assert server_key("h:1") == "http://h:1" and server_key("https://h") == "https://h"


def test_the_default_files_are_the_rust_clients(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_dir() == tmp_path
    assert default_path() == tmp_path / "theboss" / "bot-credentials.json"
    assert default_path(is_bot=False) == tmp_path / "theboss" / "cli-credentials.json"


def test_a_broken_file_is_a_clear_error(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "creds.json"
    path.write_text("{not json")
    with pytest.raises(InvalidArgument) as broken:
        Credentials.load(path, "h:1")
    assert broken.value.field == "token_file" and str(path) in broken.value.message
    path.write_text(json.dumps({"http://h:1": {"player_id": "p"}}))
    with pytest.raises(InvalidArgument, match="incomplete"):
        Credentials.load(path, "h:1")


def test_login_registers_once_then_comes_back_as_the_same_player(server: Server, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bot.json"
    with Client(server.target) as client:
        first = client.login("returning-bot", token_file=path)
        again = client.login("another-name", token_file=path)
        assert again.player_id == first.player_id and again.token == first.token
        assert again.player().player_id == first.player_id
    with Client(f"http://{server.target}") as client:
        assert client.login("x", token_file=path).player_id == first.player_id


def boss(server: Server, token_file: pathlib.Path, name: str) -> str:
    """The player id `boss register` reports for a token file."""
    done = subprocess.run(
        [str(cli_binary()), "--server", f"http://{server.target}", "--token-file", str(token_file),
         "--name", name, "register"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r"You are .* \(([^)]+)\); your token is saved in", done.stdout)
    assert found, done.stdout
    return found.group(1)


def test_one_identity_shared_with_the_boss_cli(server: Server, tmp_path: pathlib.Path) -> None:
    by_cli = tmp_path / "cli.json"
    player = boss(server, by_cli, "Alice")
    with Client(server.target) as client:
        session = client.login("Someone", is_bot=False, token_file=by_cli)
        assert session.player_id == player
        assert session.player().player_id == player  # the CLI's token works from Python
        by_python = tmp_path / "python.json"
        mine = client.login("py-bot", token_file=by_python)
    assert boss(server, by_python, "Other") == mine.player_id
