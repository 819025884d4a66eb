"""Write ``coupsolve/trees/known_public_sizes.json``, the packaged table of public-tree counts by parts,
from the counts kept in ``examples/report/tl4_*_public_count.json`` (written by
``benchmarks/public_count.py``: 25 to 40 minutes each on a two-core machine).

``coupsolve info --turn-limit 4`` then says at once what a solve would build (the public tree, whole or
in pieces) instead of "does NOT fit" for the history tree alone. The table answers ``info`` only; a
solve counts the public tree itself (or takes its cached count), as it builds from a count of its own
code. Run: ``python benchmarks/known_public_sizes.py``.
"""

from __future__ import annotations

import glob
import json
import os

from coupsolve import Rules
from coupsolve.trees.classwalk.count import PartSize
from coupsolve.trees.sizecache import COUNT_LAYOUT, FORMAT, public_key, public_size_of

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TABLE = os.path.join(ROOT, "coupsolve", "trees", "known_public_sizes.json")
_EXTRA = ("rules", "parts", "split_depth", "workers", "max_rss_bytes", "note", "tree_bytes")


def entry_of(count: dict) -> dict:
    """The cache's entry (:func:`coupsolve.trees.sizecache.public_entry`) of a kept count."""
    entry = {k: v for k, v in count.items() if k not in _EXTRA}
    return dict(entry, parts=[[q[f] for f in PartSize._fields] for q in count["parts"]])


def main():
    sizes = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "report", "tl*_public_count.json"))):
        with open(path, encoding="utf-8") as f:
            count = json.load(f)
        rules = Rules.from_dict(count["rules"])
        parts = int(count["note"].split("parts=")[1].split(",")[0])
        try:
            public_size_of(rules, entry_of(count))
        except ValueError as e:  # a count of older code (without a field this code keeps): left out
            print(f"left out {os.path.relpath(path, ROOT)}: {e}")
            continue
        sizes[public_key(rules, parts)] = entry_of(count)
    with open(TABLE, "w", encoding="utf-8") as f:
        json.dump({"format": FORMAT, "stamp": {"layout": COUNT_LAYOUT}, "sizes": sizes}, f,
                  separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"wrote {len(sizes)} counts to {os.path.relpath(TABLE, ROOT)}")


if __name__ == "__main__":
    main()
