"""Count a two-player Coup public tree by parts (:mod:`coupsolve.trees.classwalk.count`) and keep every figure.

The count of a tree too large to walk level by level (turn limit 4 of the card-selection setup): the
levels above ``--split-depth`` whole, then ``--parts`` parts below it, ``--workers`` at a time. One line
per finished part goes to standard output (its roots, nodes, entries, information sets, actions,
matrix cells, seconds, and the process's maximum resident memory so far), and the whole count (totals,
nodes and entries per level, every part's figures, the tree's bytes in the public tree's layout) is
written as JSON to ``--out``: the measured per-part figures that the plan of a distributed solve is
computed from. Run alone: ``python -m benchmarks.public_count --turn-limit 4 --out count.json``;
``--report count.json`` prints where a counted tree's bytes go (:func:`report`) without counting.
"""

from __future__ import annotations

import argparse
import json
import resource
import time


def _max_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _record(size):
    """The JSON record of a :class:`coupsolve.trees.classwalk.build.ClassSize`."""
    return dict(
        rules=size.rules.to_dict(), nodes=size.nodes, entries=size.entries, infosets=size.infosets,
        actions=size.actions, matrices=size.matrices, cells=size.cells, pair_cells=size.pair_cells,
        row_entries=size.row_entries,
        decision_histories=size.decision_histories, pairs=size.pairs,
        pairs_by_kind=list(size.pairs_by_kind), stepped=size.stepped,
        level_nodes=[int(x) for x in size.level_nodes],
        level_entries=[int(x) for x in size.level_entries], work_bytes=size.work_bytes,
        tree_bytes=size.tree_bytes(), seconds=size.seconds,
        parts=[p._asdict() for p in size.parts])


def _tree_bytes(n, sparse):
    """Bytes of a counted tree (a record, or a part's) with its matrices sparse (the cells with
    histories, and the row pointers where recorded) or dense, as laid out before they were sparse."""
    from coupsolve.trees.stepwalk.build import coup_tree_bytes
    from solvers.trees.matrices import dense_bytes, sparse_bytes

    matrices = (sparse_bytes(n["pair_cells"], max(n.get("row_entries", 0) - n["matrices"], 0),
                             n["matrices"]) if sparse else dense_bytes(n["cells"], n["matrices"]))
    return coup_tree_bytes(n["nodes"], n["entries"], n["infosets"], n["actions"], matrices)


def report(rec):
    """Where the bytes of a counted tree go, in the public tree's layout and its solve's, and its parts'
    spread: lines of text from a record of :func:`_record`."""
    from coupsolve.trees.stepwalk.build import _EXTRA_PER_ENTRY, _EXTRA_PER_INFOSET
    from solvers.trees.publictree import (_BYTES_PER_ACTION, _BYTES_PER_ENTRY, _BYTES_PER_INFOSET,
                                _BYTES_PER_NODE)
    from solvers.public.rep import estimate_public_solve_bytes

    gib = 2.0 ** 30
    recorded = "row_entries" in rec
    rows = [("public nodes", rec["nodes"], _BYTES_PER_NODE),
            ("entries", rec["entries"], _BYTES_PER_ENTRY + _EXTRA_PER_ENTRY),
            ("matrix cells", rec["pair_cells"], 12), ("  dense", rec["cells"], 8),
            ("row pointers", rec.get("row_entries", 0), 8), ("matrices", rec["matrices"], 20),
            ("information sets", rec["infosets"], _BYTES_PER_INFOSET + _EXTRA_PER_INFOSET),
            ("actions", rec["actions"], _BYTES_PER_ACTION)]
    out = [f"{'':18} {'count':>16} {'bytes each':>10} {'GiB':>8}"]
    out += [f"{name:18} {n:16,} {b:10} {n * b / gib:8.2f}" for name, n, b in rows]
    out.append(f"{'tree':18} {'' if recorded else '(rows not recorded)':>27} "
               f"{_tree_bytes(rec, True) / gib:8.2f}")
    out.append(f"{'tree, dense':18} {'(as laid out before)':>27} {_tree_bytes(rec, False) / gib:8.2f}")
    for precision in ("float64", "float32"):
        solve = estimate_public_solve_bytes(rec["entries"], rec["actions"], precision)
        out.append(f"{'solve, ' + precision:18} {'':16} {'':10} {solve / gib:8.2f}")
    parts = rec["parts"]
    if parts:
        by = sorted(parts, key=lambda p: p["entries"])
        share = [p["entries"] / max(rec["entries"], 1) for p in by]
        out.append(f"{len(parts)} parts below level {rec.get('split_depth')}: entries per part median "
                   f"{by[len(by) // 2]['entries']:,}, largest {by[-1]['entries']:,} "
                   f"({100 * share[-1]:.1f}% of the tree), the 10 largest {100 * sum(share[-10:]):.1f}%; "
                   f"cells of the largest {max(p['cells'] for p in parts):,}; the slowest part "
                   f"{max(p['seconds'] for p in parts):.0f} s of {sum(p['seconds'] for p in parts):.0f} s")
        out += _placement(parts)
    return out


def _placement(parts, machines=(4, 8, 16)):
    """The parts placed on ``k`` machines, largest first onto the least loaded (their tree and a float64
    solve, the trunk aside): the bytes of the most loaded machine, from the measured parts (their
    row pointers are not recorded: a few bytes per matrix row)."""
    import heapq

    from solvers.public.rep import estimate_public_solve_bytes

    out = []
    for name, sparse in (("dense matrices", False), ("sparse matrices", True)):
        loads = []
        for k in machines:
            heap = [0] * k
            for b in sorted((_tree_bytes(p, sparse) + estimate_public_solve_bytes(p["entries"],
                                                                                   p["actions"])
                             for p in parts), reverse=True):
                heapq.heapreplace(heap, heap[0] + b)
            loads.append(f"{k} machines {max(heap) / 2**30:.1f} GiB")
        out.append(f"placed by memory, {name} (tree + float64 solve of the parts): " + ", ".join(loads))
    return out


def main(argv=None):
    from coupsolve.trees.classwalk.count import count_class_tree
    from coupsolve.rules import Rules

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turn-limit", type=int, default=3)
    ap.add_argument("--limit-payoff", default="influence", choices=("influence", "draw"))
    ap.add_argument("--split-depth", type=int, default=12)
    ap.add_argument("--parts", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", help="the JSON file to write")
    ap.add_argument("--report", metavar="JSON", help="print where a written count's bytes go, and stop")
    a = ap.parse_args(argv)
    if a.report:
        with open(a.report) as f:
            print("\n".join(report(json.load(f))))
        return
    if not a.out:
        ap.error("--out is required to count")
    rules = Rules.two_player_selection(turn_limit=a.turn_limit, limit_payoff=a.limit_payoff)
    began, last = time.perf_counter(), [0.0]

    def progress(stage, done, total):
        if time.perf_counter() - last[0] >= 30 or done == total:
            last[0] = time.perf_counter()
            print(f"{last[0] - began:8.0f} s  {stage}: {done:,}/{total:,}  max RSS "
                  f"{_max_rss() / 2**30:.2f} GiB", flush=True)

    def on_part(p):
        print(f"{time.perf_counter() - began:8.0f} s  part at root {p.first:,} ({p.roots} roots): "
              f"{p.nodes:,} nodes, {p.entries:,} entries, {p.infosets:,} infosets, {p.actions:,} "
              f"actions, {p.cells:,} cells, {p.seconds:.1f} s, work {p.work_bytes / 2**20:.0f} MiB; "
              f"max RSS {_max_rss() / 2**30:.2f} GiB", flush=True)

    size = count_class_tree(rules, progress, split_depth=a.split_depth, parts=a.parts,
                            workers=a.workers, on_part=on_part)
    rec = _record(size)
    rec.update(split_depth=a.split_depth, workers=a.workers, max_rss_bytes=_max_rss())
    with open(a.out, "w") as f:
        json.dump(rec, f, indent=1)
    print(size.describe())
    print("\n".join(report(rec)))
    print(f"tree {size.tree_bytes() / 2**30:.2f} GiB, max RSS {_max_rss() / 2**30:.2f} GiB; "
          f"written {a.out}")


if __name__ == "__main__":
    main()
