"""The API token a player got from ``Register``, saved per server in the same JSON file the
Rust clients keep (``boss``, the CLI, and ``boss-bot``), so that a bot keeps one identity,
and its rating, from run to run.

The file maps a server's URL (``"http://127.0.0.1:50051"``: a bare ``host:port`` target is
written as ``http://`` + it, as the Rust clients name it) to ``{"player_id", "api_token",
"display_name"}``. It lives in the user's configuration directory, ``theboss/`` within it:
``bot-credentials.json`` for bots (``boss-bot``'s), ``cli-credentials.json`` for people (the
CLI's). It is written whole and renamed into place, readable by its owner only: the token is
a secret.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys
import tempfile
from dataclasses import asdict, dataclass
from typing import Optional

from theboss.errors import InvalidArgument

__all__ = ["BOT_FILE", "PERSON_FILE", "Credentials", "config_dir", "default_path", "server_key"]

BOT_FILE = "bot-credentials.json"
"""The file bots' tokens are kept in (``boss-bot``'s)."""
PERSON_FILE = "cli-credentials.json"
"""The file people's tokens are kept in (the ``boss`` CLI's)."""


def config_dir() -> pathlib.Path:
    """The user's configuration directory, where the Rust clients look too:
    ``$XDG_CONFIG_HOME`` or ``~/.config`` on Linux, ``~/Library/Application Support`` on
    macOS, ``%APPDATA%`` on Windows."""
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA")
        if appdata:
            return pathlib.Path(appdata)
        return pathlib.Path.home() / "AppData" / "Roaming"
    if sys.platform == "darwin":
        return pathlib.Path.home() / "Library" / "Application Support"
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg and os.path.isabs(xdg):
        return pathlib.Path(xdg)
    return pathlib.Path.home() / ".config"


def default_path(is_bot: bool = True) -> pathlib.Path:
    """Where a bot's (or a person's) tokens are kept by default."""
    return config_dir() / "theboss" / (BOT_FILE if is_bot else PERSON_FILE)


def server_key(target: str) -> str:
    """The name a server's tokens are kept under: its URL, as the Rust clients write it."""
    return target if "://" in target else f"http://{target}"


@dataclass(frozen=True)
class Credentials:
    """One player's identity on one server."""

    player_id: str
    api_token: str
    display_name: str

    @staticmethod
    def _read_all(path: pathlib.Path) -> dict[str, dict[str, str]]:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidArgument(f"{path}: not a credentials file: {error}", field="token_file") from None
        if not isinstance(data, dict):
            raise InvalidArgument(f"{path}: not a credentials file (not an object)", field="token_file")
        return data

    @classmethod
    def load(cls, path: "os.PathLike[str] | str", server: str) -> Optional["Credentials"]:
        """The credentials saved for ``server`` (a URL or ``host:port``), if any."""
        saved = cls._read_all(pathlib.Path(path)).get(server_key(server))
        if saved is None:
            return None
        try:
            return cls(
                player_id=str(saved["player_id"]),
                api_token=str(saved["api_token"]),
                display_name=str(saved.get("display_name", "")),
            )
        except (KeyError, TypeError):
            raise InvalidArgument(f"{path}: the entry of {server_key(server)} is incomplete", field="token_file") from None

    def save(self, path: "os.PathLike[str] | str", server: str) -> None:
        """Saves these credentials for ``server``, keeping those of other servers."""
        path = pathlib.Path(path)
        every = self._read_all(path)
        every[server_key(server)] = asdict(self)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole, owner-only, then renamed: a crash never leaves half a file, and the
        # token is never readable by others, even for a moment.
        handle, temporary = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(every, out, indent=2)
            os.chmod(temporary, 0o600)
            os.replace(temporary, path)
        except BaseException:
            pathlib.Path(temporary).unlink(missing_ok=True)
            raise
