"""Regenerates ``src/theboss/v1/*_pb2*.py(i)`` from ``../proto`` with grpcio-tools.

    python generate_protos.py            # rewrite the generated modules
    python generate_protos.py --check    # fail if they differ from what proto/ gives (CI)

Generated with the oldest grpcio-tools whose code runs on protobuf 5 (1.63.0, protobuf
5.26.1, pinned in ``constraints-lowest.txt``), so that the package runs on every protobuf
from 5.26.1 to 7.x and beside stacks pinned to older ones: the generated code names the
oldest protobuf and grpcio it needs, which ``pyproject.toml``'s dependencies match. Newer
grpcio-tools would write code that refuses older runtimes.
"""

from __future__ import annotations

import argparse
import filecmp
import pathlib
import sys
import tempfile

from grpc_tools import protoc

HERE = pathlib.Path(__file__).resolve().parent
PROTO = HERE.parent / "proto"


def generate(out: pathlib.Path) -> list[pathlib.Path]:
    protos = sorted(PROTO.glob("theboss/v1/*.proto"))
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{PROTO}",
        f"-I{include}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        *[str(p.relative_to(PROTO)) for p in protos],
    ]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    return sorted((out / "theboss" / "v1").glob("*_pb2*"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    check = parser.parse_args().check
    with tempfile.TemporaryDirectory() as tmp:
        generated = generate(pathlib.Path(tmp))
        target = HERE / "src" / "theboss" / "v1"
        stale = []
        for path in generated:
            mine = target / path.name
            if not mine.exists() or not filecmp.cmp(path, mine, shallow=False):
                stale.append(path.name)
                if not check:
                    mine.write_bytes(path.read_bytes())
        extra = {p.name for p in target.glob("*_pb2*")} - {p.name for p in generated}
        if check and (stale or extra):
            sys.exit(
                f"python/src/theboss/v1 is stale ({', '.join(sorted(stale) + sorted(extra))}): "
                "run `python python/generate_protos.py` with grpcio-tools of constraints-lowest.txt"
            )
        for name in extra if not check else ():
            (target / name).unlink()
        print(f"{len(generated)} generated modules {'checked' if check else 'written'}")


if __name__ == "__main__":
    main()
