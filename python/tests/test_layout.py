"""The package as a Python developer meets it: run from `python/`, the installed package is
imported, not the source tree (a src layout); the client's modules import each other in one
direction; every public class, function and method says what it does; and a bot written as
a user would runs."""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import subprocess
import sys
import types

import pytest

from conftest import KIT, Server

PACKAGE = KIT / "src" / "theboss"

PUBLIC_MODULES = [
    "theboss",
    "theboss.engine",
    "theboss.errors",
    "theboss.board",
    "theboss.record",
    "theboss.credentials",
    "theboss.features",
    "theboss.env",
    "theboss.openspiel",
    "theboss.client",
    "theboss.client.feed",
    "theboss.client.play",
    "theboss.client.session",
    "theboss.client.loops",
    "theboss.aio",
    "theboss.aio.feed",
    "theboss.aio.session",
    "theboss.aio.loops",
]


def test_python_run_from_the_kits_directory_imports_the_installed_package() -> None:
    """`python -m pytest` from python/ puts python/ on sys.path; the package there must not
    shadow the installed one (it did: `No module named 'theboss._engine'`)."""
    done = subprocess.run(
        [sys.executable, "-c", "import theboss, theboss._engine; print(theboss._engine.__file__)"],
        cwd=KIT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert not (KIT / "theboss").exists(), "no package at the top of python/"


def imports_of(path: pathlib.Path) -> set[str]:
    """The modules a file imports (``from theboss.client import _rpc`` imports
    ``theboss.client._rpc``; ``from theboss.client.feed import X``, ``theboss.client.feed``)."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            package = node.module
            if package in ("theboss.client", "theboss.aio"):
                found.update(f"{package}.{alias.name}" for alias in node.names)
            else:
                found.add(package)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_clients_modules_form_a_chain_and_init_only_re_exports() -> None:
    client = PACKAGE / "client"
    order = ["_rpc", "_requests", "feed", "play", "session", "loops"]
    for i, name in enumerate(order):
        imported = {m.rsplit(".", 1)[-1] for m in imports_of(client / f"{name}.py") if m.startswith("theboss.client")}
        later = set(order[i + 1:]) | {"client"}
        assert not imported & later, f"client/{name}.py imports {imported & later}"
    init = ast.parse((client / "__init__.py").read_text())
    for node in init.body:
        assert isinstance(node, (ast.Expr, ast.ImportFrom, ast.Assign)), f"__init__ defines {ast.dump(node)[:60]}"
    aio = ["feed", "session", "loops"]
    for i, name in enumerate(aio):
        imported = {m.rsplit(".", 1)[-1] for m in imports_of(PACKAGE / "aio" / f"{name}.py") if m.startswith("theboss.aio")}
        assert not imported & set(aio[i + 1:]), f"aio/{name}.py imports {imported}"


def public_members(module: types.ModuleType) -> list[tuple[str, object]]:
    names = getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
    members = []
    for name in names:
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            continue
        members.append((f"{module.__name__}.{name}", value))
        if inspect.isclass(value) and value.__module__.startswith("theboss"):
            for attribute, member in vars(value).items():
                if attribute.startswith("_") or not (callable(member) or isinstance(member, property)):
                    continue
                members.append((f"{module.__name__}.{name}.{attribute}", member))
    return members


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_class_function_and_method_has_a_docstring(name: str) -> None:
    module = importlib.import_module(name)
    assert (module.__doc__ or "").strip(), f"{name} has no docstring"
    missing = []
    for qualified, member in public_members(module):
        if isinstance(member, (int, float, str, list, dict, tuple)) or member is None:
            continue
        if getattr(member, "__module__", "theboss").startswith(("theboss", "builtins")) and not (
            inspect.getdoc(member) or ""
        ).strip():
            missing.append(qualified)
    assert not missing, f"no docstring: {missing}"


def test_the_engines_game_documents_itself_at_runtime() -> None:
    from theboss.engine import Game

    assert "theboss.errors.RuleViolation" in (Game.__doc__ or "")
    for method in ("view", "apply", "legal_turns", "apply_index", "outcome", "status", "copy"):
        assert (getattr(Game, method).__doc__ or "").strip(), method
    assert "table's own fields" in (Game.view.__doc__ or "")


def test_a_users_bot_runs_offline_and_against_a_server(server: Server, tmp_path: pathlib.Path) -> None:
    bot = KIT / "tests" / "user_bot.py"
    offline = subprocess.run([sys.executable, str(bot)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert offline.returncode == 0, offline.stderr
    assert "Winners:" in offline.stdout
    online = subprocess.run([sys.executable, str(bot), server.target], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert online.returncode == 0, online.stderr
    assert "money " in online.stdout
