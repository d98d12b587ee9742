"""A real server for the client tests: the workspace's `theboss-server` binary on a fresh
SQLite file and a free port, started (and restarted, or crashed) by the test.

The binary is ``$THEBOSS_SERVER`` if set, else the workspace's debug build, brought up to
date with ``cargo build -p theboss-server`` first (so the tests never run a stale server). A
server that cannot be built or started fails the tests: they never skip.
"""

from __future__ import annotations

import functools
import os
import pathlib
import signal
import socket
import subprocess
import time
from typing import Iterator, Optional

import grpc
import pytest

from theboss.client import Client, Session

REPO = pathlib.Path(__file__).resolve().parents[2]

# Generous quotas: the tests register many players from one address and call fast.
TEST_QUOTAS = {
    "--quota-registrations-per-min": "100000",
    "--quota-registration-burst": "10000",
    "--quota-calls-per-sec": "100000",
    "--quota-call-burst": "100000",
}


def server_args(quotas: Optional[dict] = None, args: Optional[list[str]] = None) -> list[str]:
    merged = {**TEST_QUOTAS, **(quotas or {})}
    return [part for flag in merged.items() for part in flag] + (args or [])


@functools.cache
def server_binary() -> pathlib.Path:
    configured = os.environ.get("THEBOSS_SERVER")
    if configured:
        return pathlib.Path(configured)
    subprocess.run(["cargo", "build", "--quiet", "-p", "theboss-server"], cwd=REPO, check=True)
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "debug" / "theboss-server"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One server process on one SQLite file; restartable on the same file and port."""

    def __init__(self, directory: pathlib.Path, args: list[str], database: Optional[pathlib.Path] = None):
        self.database = database or directory / "theboss.db"
        self.port = free_port()
        self.args = args
        self.log = directory / "server.log"
        self.process: Optional[subprocess.Popen] = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [
            str(server_binary()),
            "--listen", self.target,
            "--database-url", f"sqlite://{self.database}",
            "--log", "warn",
            *self.args,
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=open(self.log, "ab")
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            with grpc.insecure_channel(self.target) as channel:
                try:
                    grpc.channel_ready_future(channel).result(timeout=0.5)
                    return
                except grpc.FutureTimeoutError:
                    continue
        raise RuntimeError("the server did not start within 60 s")

    def stop(self, crash: bool = False) -> None:
        """Stops the server: SIGTERM and a wait, or SIGKILL (``crash``)."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGKILL if crash else signal.SIGTERM)
        self.process.wait(timeout=30)
        self.process = None

    def restart(self, crash: bool = False, pause: float = 0.0) -> None:
        self.stop(crash)
        time.sleep(pause)
        self.start()


@pytest.fixture
def make_server(tmp_path: pathlib.Path) -> Iterator:
    """Starts servers: ``make_server(args=None, database=None, quotas=None)``, where
    ``quotas`` overrides the tests' generous quota flags (e.g. ``{"--quota-calls-per-sec":
    "3"}``)."""
    servers: list[Server] = []

    def make(
        args: Optional[list[str]] = None,
        database: Optional[pathlib.Path] = None,
        quotas: Optional[dict] = None,
    ) -> Server:
        directory = tmp_path / f"server{len(servers)}"
        directory.mkdir()
        server = Server(directory, server_args(quotas, args), database)
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server shared by a module's tests (each test registers its own players)."""
    server = Server(tmp_path_factory.mktemp("server"), server_args())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def client(server: Server) -> Iterator[Client]:
    with Client(server.target) as client:
        yield client


def seat_players(client: Client, players: int, **create) -> tuple[str, list[Session]]:
    """A started game of ``players`` fresh players, seated in order; its id and sessions."""
    sessions = [client.register(f"p{i}") for i in range(players)]
    game_id = sessions[0].create_game(players, **create)
    for seat, session in enumerate(sessions):
        session.join(game_id, seat)
    return game_id, sessions
