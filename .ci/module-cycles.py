#!/usr/bin/env python3
"""Fails when a crate's top-level modules depend on each other in a cycle.

A module `a` depends on `b` when a file of `a` (`src/a.rs` or anything under `src/a/`) names
`crate::b` (in a `use` or a path). The crate root counts too: an item defined in `lib.rs` is
module `lib`'s (so `crate::Item` is a dependency on it, and what `lib.rs`'s own code names is
its dependency), and an item `lib.rs` only re-exports (`pub use b::Item`) is `b`'s. Cycles make
a crate impossible to read one module at a time, so ARCHITECTURE.md promises there are none;
this keeps the promise checked.

Usage: module-cycles.py CRATE_SRC_DIR...
"""

import pathlib
import re
import sys

CRATE_PATH = re.compile(r"\bcrate::([A-Za-z_][A-Za-z0-9_]*)")
USE_GROUP = re.compile(r"\buse\s+crate::\{([^;]*)\}", re.S)
GROUP_HEAD = re.compile(r"(?:^|,)\s*([A-Za-z_][A-Za-z0-9_]*)")
ROOT_ITEM = re.compile(
    r"^\s*(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?(?:fn|struct|enum|const|static|trait|type)\s+(\w+)",
    re.M,
)
REEXPORT = re.compile(r"^\s*pub\s+use\s+([a-z_][a-z0-9_]*)::([^;]*);", re.M)
MOD_DECL = re.compile(r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([a-z]+\))?\s+)?mod\s+\w+\s*;", re.M)
PATH_HEAD = re.compile(r"(?<![:\w])([a-z_][a-z0-9_]*)::")


def strip_comments_and_tests(text: str) -> str:
    """Drops line comments (doc comments mention modules without depending on them) and the
    test modules at the end of a file (tests may use any module, e.g. `crate::testing`; so
    may whole test files, which `graph` skips)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]" and i + 1 < len(lines):
            if re.match(r"\s*(pub(\(crate\))?\s+)?mod\s+\w+\s*\{", lines[i + 1]):
                lines = lines[:i]
                break
    return "\n".join(line.split("//", 1)[0] for line in lines)


def module_of(src: pathlib.Path, file: pathlib.Path) -> str | None:
    rel = file.relative_to(src)
    if len(rel.parts) == 1:
        name = rel.stem
        return None if name == "main" else name
    return rel.parts[0]


def root(src: pathlib.Path) -> tuple[set[str], dict[str, str]]:
    """The items `lib.rs` defines itself, and the names it re-exports from a module."""
    lib = src / "lib.rs"
    if not lib.exists():
        return set(), {}
    text = strip_comments_and_tests(lib.read_text())
    defined = set(ROOT_ITEM.findall(text))
    reexported: dict[str, str] = {}
    for module, rest in REEXPORT.findall(text):
        rest = rest.strip().strip("{}")
        for part in rest.split(","):
            part = part.strip()
            if not part:
                continue
            name = part.split(" as ")[-1].split("::")[-1].strip()
            reexported[name] = module
    return defined, reexported


TEST_MODULE = re.compile(r"#\[cfg\(test\)\]\s*\n\s*(?:pub(?:\([a-z]+\))?\s+)?mod\s+(\w+)\s*;")


def test_only_files(src: pathlib.Path) -> set[pathlib.Path]:
    """Files that are whole test modules (`#[cfg(test)] mod name;`), with what they declare."""
    found: set[pathlib.Path] = set()
    for file in src.rglob("*.rs"):
        base = file.parent if file.name in ("mod.rs", "lib.rs", "main.rs") else file.with_suffix("")
        for name in TEST_MODULE.findall(file.read_text()):
            for child in (base / f"{name}.rs", base / name / "mod.rs"):
                if child.exists():
                    found.add(child)
                    if child.name == "mod.rs":
                        found.update(child.parent.rglob("*.rs"))
    return found


def graph(src: pathlib.Path) -> dict[str, set[str]]:
    modules = {module_of(src, f) for f in src.rglob("*.rs")} - {None}
    defined, reexported = root(src)
    if not defined:
        modules.discard("lib")
    edges: dict[str, set[str]] = {m: set() for m in modules}
    tests = test_only_files(src)
    for file in src.rglob("*.rs"):
        here = module_of(src, file)
        if here is None or file in tests or here not in modules:
            continue
        text = strip_comments_and_tests(file.read_text())
        if here == "lib":
            # The root's own code: what it names, declarations and re-exports apart.
            code = REEXPORT.sub("", MOD_DECL.sub("", text))
            edges[here].update(m for m in PATH_HEAD.findall(code) if m in modules and m != here)
        named = set(CRATE_PATH.findall(text))
        for group in USE_GROUP.findall(text):
            # `use crate::{a::X, b}`: the heads of each item, at any nesting depth's top level.
            depth, top = 0, []
            for ch in group:
                depth += ch == "{"
                depth -= ch == "}"
                top.append(ch if depth == 0 or ch in "{}" else " ")
            named.update(GROUP_HEAD.findall("".join(top)))
        for name in named:
            target = name if name in modules else reexported.get(name)
            if target is None and name in defined:
                target = "lib"
            if target is not None and target != here:
                edges[here].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    failed = False
    for arg in sys.argv[1:]:
        src = pathlib.Path(arg)
        edges = graph(src)
        found = cycles(edges)
        failed |= bool(found)
        for component in found:
            links = [
                f"{a} -> {b}" for a in component for b in sorted(edges[a]) if b in component
            ]
            print(f"{src}: modules in a cycle: {', '.join(component)} ({'; '.join(links)})")
        if not found:
            print(f"{src}: {len(edges)} modules, no cycle")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
