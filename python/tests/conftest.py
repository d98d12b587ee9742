"""What the kit's tests share: real servers (the workspace's `theboss-server` binary on a
fresh SQLite file and a free port, started, restarted, stopped or crashed by the test), the
`boss` CLI, and `Processes`, which runs several processes at once and watches them all.

The binaries are ``$THEBOSS_SERVER`` / ``$THEBOSS_CLI`` if set, else the workspace's debug
builds, brought up to date with ``cargo build`` first (so the tests never run a stale one). A
binary that cannot be built or started fails the tests: they never skip.
"""

from __future__ import annotations

import functools
import os
import pathlib
import signal
import socket
import subprocess
import tempfile
import threading
import time
from typing import IO, Any, Iterator, Optional, Sequence

import grpc
import pytest

from theboss.client import Client, Session

REPO = pathlib.Path(__file__).resolve().parents[2]
KIT = REPO / "python"

# Tokens saved by the tests (and the bots they start) go to a directory of their own, never
# into the user's configuration.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="theboss-tests-config-")

# Generous quotas: the tests register many players from one address and call fast.
TEST_QUOTAS = {
    "--quota-registrations-per-min": "100000",
    "--quota-registration-burst": "10000",
    "--quota-calls-per-sec": "100000",
    "--quota-call-burst": "100000",
}


def server_args(quotas: Optional[dict[str, str]] = None, args: Optional[list[str]] = None) -> list[str]:
    merged = {**TEST_QUOTAS, **(quotas or {})}
    return [part for flag in merged.items() for part in flag] + (args or [])


@functools.cache
def built() -> pathlib.Path:
    """The workspace's debug binaries directory, the server and the CLI brought up to date
    by one build. Its features are resolved as ``cargo test --workspace`` resolves them: for
    the whole workspace, dev-dependencies included (building one test target, the kit's own,
    includes them). Under that command the binaries it built are then up to date; resolved
    for these two packages alone, their dependencies' features differ, and tokio, hyper,
    tonic, sqlx and the server were compiled a second time while the tests waited."""
    subprocess.run(
        ["cargo", "build", "--quiet", "--workspace", "--bin", "theboss-server", "--bin", "boss",
         "--test", "python_kit"],
        cwd=REPO, check=True,
    )
    return pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug"


def server_binary() -> pathlib.Path:
    configured = os.environ.get("THEBOSS_SERVER")
    return pathlib.Path(configured) if configured else built() / "theboss-server"


def cli_binary() -> pathlib.Path:
    configured = os.environ.get("THEBOSS_CLI")
    return pathlib.Path(configured) if configured else built() / "boss"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """One server process on one SQLite file; restartable on the same file and port."""

    def __init__(self, directory: pathlib.Path, args: list[str], database: Optional[pathlib.Path] = None):
        self.database = database or directory / "theboss.db"
        self.port = free_port()
        self.args = args
        self.log = directory / "server.log"
        self.process: Optional[subprocess.Popen[bytes]] = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def launch(self) -> None:
        """Starts the process without waiting for it to serve."""
        command = [
            str(server_binary()),
            "--listen", self.target,
            "--database-url", f"sqlite://{self.database}",
            "--log", "warn",
            *self.args,
        ]
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)

    def wait_serving(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        assert self.process is not None, "launched"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            with grpc.insecure_channel(self.target) as channel:
                try:
                    grpc.channel_ready_future(channel).result(timeout=0.5)
                    return
                except grpc.FutureTimeoutError:
                    continue
        raise RuntimeError(f"the server did not start within {timeout:.0f} s")

    def start(self) -> None:
        self.launch()
        self.wait_serving()

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

    def log_tail(self, characters: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-characters:] if self.log.exists() else ""


@pytest.fixture
def make_server(tmp_path: pathlib.Path) -> Iterator:
    """Starts servers: ``make_server(args=None, database=None, quotas=None)``, where
    ``quotas`` overrides the tests' generous quota flags (e.g. ``{"--quota-calls-per-sec":
    "3"}``)."""
    servers: list[Server] = []

    def make(
        args: Optional[list[str]] = None,
        database: Optional[pathlib.Path] = None,
        quotas: Optional[dict[str, str]] = None,
        start: bool = True,
    ) -> Server:
        directory = tmp_path / f"server{len(servers)}"
        directory.mkdir()
        server = Server(directory, server_args(quotas, args), database)
        if start:
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


def seat_players(client: Client, players: int, **create: Any) -> tuple[str, list[Session]]:
    """A started game of ``players`` fresh players, seated in order; its id and sessions."""
    sessions = [client.register(f"p{i}") for i in range(players)]
    game_id = sessions[0].create_game(players, **create)
    for seat, session in enumerate(sessions):
        session.join(game_id, seat)
    return game_id, sessions


class Processes:
    """Processes run at once and watched together: each one's output is read as it comes
    (no pipe ever fills), and ``wait`` gives them one deadline for all. The first to fail,
    or the deadline, ends the wait at once: the others are killed and the failure shows
    every process's output (and the server's log, when given), so that a test of several
    processes fails in seconds, saying why."""

    def __init__(self, commands: dict[str, Sequence[str]], server: Optional[Server] = None) -> None:
        self.server = server
        self.outputs: dict[str, list[str]] = {name: [] for name in commands}
        self.processes = {
            name: subprocess.Popen(
                list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
            )
            for name, command in commands.items()
        }
        self.readers = [
            threading.Thread(target=self._read, args=(name, process.stdout), daemon=True)
            for name, process in self.processes.items()
        ]
        for reader in self.readers:
            reader.start()

    def _read(self, name: str, stream: Optional[IO[str]]) -> None:
        assert stream is not None
        for line in stream:
            self.outputs[name].append(line)

    def output(self, name: str) -> str:
        return "".join(self.outputs[name])

    def report(self) -> str:
        parts = []
        for name, process in self.processes.items():
            code = process.poll()
            status = "still running" if code is None else f"exit code {code}"
            parts.append(f"--- {name} ({status}):\n{self.output(name)[-6000:]}")
        if self.server is not None:
            parts.append(f"--- the server's log:\n{self.server.log_tail()}")
        return "\n".join(parts)

    def kill(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
            process.wait()
        for reader in self.readers:
            reader.join(timeout=5)

    def wait(self, timeout: float) -> None:
        """Waits until every process exits with 0; fails at once when one does not, or at
        the deadline, with everything they wrote."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                codes = {name: p.poll() for name, p in self.processes.items()}
                failed = {name: code for name, code in codes.items() if code not in (None, 0)}
                if failed:
                    pytest.fail(f"{', '.join(failed)} failed\n{self.report()}", pytrace=False)
                if all(code == 0 for code in codes.values()):
                    for reader in self.readers:
                        reader.join(timeout=5)
                    return
                if time.monotonic() > deadline:
                    pytest.fail(f"not done within {timeout:.0f} s\n{self.report()}", pytrace=False)
                time.sleep(0.1)
        finally:
            self.kill()
