#!/usr/bin/env python3
"""What one held `WatchGame` stream costs on the heap, by where it was allocated.

Two heap profiles of the stream soak, each written by the server under dhat once all its
streams are open (the soak signals it then) with a different number of streams, are compared
site by site: what is live then and grows with the streams, divided by how many more there
were, is one held stream's share, and fixed costs cancel out. (The heap's peak falls while
the streams open, when their calls' futures are still live beside them: held, a stream costs
less than at the peak.)

    cargo build --release -p theboss-bench --features dhat-heap
    cp target/release/theboss-bench /tmp/bench-dhat   # a plain build replaces it
    for n in 2000 6000; do
      THEBOSS_BENCH_DHAT=/tmp/dhat-$n.json /tmp/bench-dhat --backends sqlite \
        --only streams --streams $n --stream-secs 5
    done
    bench/heap-breakdown.py /tmp/dhat-2000.json 2000 /tmp/dhat-6000.json 6000

A site is named by the first frame of the allocation's stack that belongs to neither the
allocator nor a container (Vec, Box, Arc, bytes, hash tables, slab): the code that asked.
"""

import json
import re
import sys
from collections import defaultdict

# Frames that only carry an allocation through: never the one that asked for it.
PASS_THROUGH = re.compile(
    r"^(<?dhat::|<?alloc::|<?core::|<?std::|__rust|<?bytes::|<?hashbrown::|<?slab::|"
    r"<?indexmap::|<?smallvec::|<?mimalloc::|<?\[root\]|<T as alloc::|"
    r"<alloc::|<core::|<std::|<bytes::|<hashbrown::|<slab::|<indexmap::)"
)


def owner(frames):
    """The first frame of a stack that is not plumbing, shortened to crate::path::fn."""
    for frame in frames:
        name = frame.split(": ", 1)[-1].split(" (", 1)[0]
        if not PASS_THROUGH.match(name):
            name = re.sub(r"::\{\{closure\}\}", "", name)
            name = re.sub(r"::h[0-9a-f]{16}$", "", name)
            return name
    return "(allocator)"


def sites(path):
    """Bytes and blocks live when the profile was written, per owning site."""
    with open(path, encoding="utf-8") as f:
        profile = json.load(f)
    table = profile["ftbl"]
    live = defaultdict(lambda: [0, 0])
    for point in profile["pps"]:
        site = owner(table[i] for i in point["fs"])
        live[site][0] += point["eb"]
        live[site][1] += point["ebk"]
    return live


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    few, few_n, many, many_n = argv[1], int(argv[2]), argv[3], int(argv[4])
    if many_n <= few_n:
        sys.exit("the second profile must hold more streams than the first")
    a, b = sites(few), sites(many)
    extra = many_n - few_n
    rows = []
    for site in set(a) | set(b):
        grown = b.get(site, [0, 0])[0] - a.get(site, [0, 0])[0]
        blocks = b.get(site, [0, 0])[1] - a.get(site, [0, 0])[1]
        rows.append((grown / extra, blocks / extra, site))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    print(f"| a held stream's heap, by site | bytes | blocks |")
    print(f"|---|---|---|")
    shown = 0.0
    for per_stream, blocks, site in rows:
        if per_stream < 64:
            continue
        shown += per_stream
        print(f"| `{site}` | {per_stream:,.0f} | {blocks:.1f} |")
    print(f"| everything else | {total - shown:,.0f} | |")
    print(f"| **all** | **{total:,.0f}** ({total / 1024:.1f} KiB) | |")


if __name__ == "__main__":
    main(sys.argv)
