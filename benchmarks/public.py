"""The public-tree solver against the history solver on the same Coup trees, side by side.

For Coup turn limits 1-3 (``--quick``: 1-2), the history tree and the public tree of the same game (by
both builders: stepping histories, and the class walk, whose tree has a public node per forced move) are
built in this process and timed warm with :func:`benchmarks.iteration.time_blocks` (CFR+, float64, alternating
updates, 1 and ``--threads`` threads). The table gives the build time, the bytes of each tree and of
its solve buffers (the library's own estimates, which the tests check against measured peaks), bytes
per information set, seconds per iteration and nanoseconds per history-equivalent per pass (the
iteration's time over the number of histories, two passes an iteration), and the public tree's ratios
to the history tree's. Run alone: ``python -m benchmarks.public [--quick]``.

Turn limit 4 has no history tree here (244 GiB): ``python -m benchmarks.public --turn-limits 4
--trees pieces --precision float32`` times the public tree in pieces (``--trees pieces``: count by
parts, cached, and build, as ``coupsolve solve`` does it), its nanoseconds per history of the packaged
known size, with no ratios.
"""

from __future__ import annotations

import gc
import time

from coupsolve.plan import COUNT_PARTS

from .common import (bench_parser, fmt_ratio, fmt_seconds, load_average, machine_info, print_table,
                     write_csv)
from .iteration import time_blocks


def _history(rules):
    """(tree, build seconds, tree bytes) of the history tree."""
    from coupsolve import build_coup_tree

    began = time.perf_counter()
    tree = build_coup_tree(rules, context=False).tree
    return tree, time.perf_counter() - began, tree.nbytes


def _public(rules):
    """(tree, build seconds, tree bytes with the builder's extras) of the public tree stepped history
    by history (:mod:`coupsolve.trees.stepwalk.build`)."""
    from coupsolve.trees.stepwalk.build import build_public_tree

    began = time.perf_counter()
    coup = build_public_tree(rules)
    return coup.tree, time.perf_counter() - began, coup.build_info["bytes"]


def _class(rules):
    """The same for the public tree of the class walk (:mod:`coupsolve.trees.classwalk.build`: counted, then
    built; the build time is both)."""
    from coupsolve.trees.classwalk.build import build_class_tree
    from coupsolve.trees.classwalk.count import count_class_tree

    began = time.perf_counter()
    coup = build_class_tree(rules, size=count_class_tree(rules))
    return coup.tree, time.perf_counter() - began, coup.build_info["bytes"]


def _pieces(rules, parts):
    """The same for the public tree built in pieces as ``coupsolve solve`` builds it when the whole
    tree does not fit (:class:`coupsolve.trees.pieces.build.PiecesPlan`: the class walk's count by parts,
    cached by :mod:`coupsolve.trees.sizecache` (turn limit 4: 25 minutes), then 2 parts built at a time;
    the build time is both, or the build alone from a cached count); the bytes are the pieces' and
    their keys'."""
    from coupsolve.trees import sizecache
    from coupsolve.trees.classwalk.count import count_class_tree
    from coupsolve.trees.pieces.build import PiecesPlan, build_class_pieces
    from solvers import PublicPieces

    began = time.perf_counter()
    size = sizecache.lookup_public(rules, parts)
    if size is None:
        size = count_class_tree(rules, split_depth="auto", parts=parts, workers=2)
        sizecache.remember_public(rules, parts, size)
    plan = PiecesPlan.of(size, workers=2)
    built = build_class_pieces(rules, plan.depth, bounds=plan.bounds, workers=plan.workers)
    tree = PublicPieces(f"coup tl{rules.turn_limit}", built.trunk, built.parts, built.infoset_actions)
    return tree, time.perf_counter() - began, tree.nbytes + built.infoset_hash.nbytes


def _histories(rules, base, tree):
    """The histories a row's nanoseconds are per: the history tree's in this run, else the packaged
    known size (turn limit 4: 3,049,696,500), else the tree's own nodes."""
    from coupsolve.trees import sizecache

    known = sizecache.lookup(rules)
    if base.get("histories"):
        return base["histories"]
    return known.size.nodes if known is not None and known.size is not None else tree.num_nodes


def run(turn_limits, options, info):
    """Time both representations; print the table, write ``public.csv``."""
    from coupsolve import Rules
    from solvers import Solver

    rows, csv_rows = [], []
    for tl in turn_limits:
        rules = Rules.two_player_selection(turn_limit=tl)
        base = {}
        for name, make in ((n, m) for n, m in (("history", _history), ("public", _public),
                                               ("class walk", _class), ("pieces", _pieces))
                           if n in options.trees):
            tree, build_s, tree_bytes = make(rules, options.pieces) if name == "pieces" else make(rules)
            histories = _histories(rules, base, tree)
            for threads in sorted({1, options.threads}):
                solver = Solver(tree, "cfr+", threads=threads, precision=options.precision)
                solve_bytes = type(solver.representation).estimate_bytes(
                    tree, solver.spec, options.precision, "alternating", threads)
                stats, k, first = time_blocks(solver, options.repeats, options.block)
                del solver
                gc.collect()  # a solve's state kept by cycles goes before the next one is made
                key = (threads,)
                ref = base.get(key)
                row = dict(turn_limit=tl, representation=name, threads=threads,
                           build_s=round(build_s, 2), tree_mib=round(tree_bytes / 2**20, 1),
                           solve_mib=round(solve_bytes / 2**20, 1),
                           bytes_per_infoset=round((tree_bytes + solve_bytes) / tree.num_infosets, 1),
                           seconds_per_iteration=stats.median,
                           ns_per_history_pass=stats.median / (2 * histories) * 1e9,
                           load=round(load_average(), 2))
                if name == "history":
                    base[key] = row
                    base["histories"] = tree.num_nodes
                ratio_t = stats.median / ref["seconds_per_iteration"] if ref else 1.0
                mem = (tree_bytes + solve_bytes) / 2**20
                ratio_m = mem / (ref["tree_mib"] + ref["solve_mib"]) if ref else 1.0
                csv_rows.append(dict(row, time_ratio=ratio_t, memory_ratio=ratio_m))
                rows.append([f"TL{tl}", name, threads, f"{build_s:.1f} s", f"{mem:,.0f} MiB",
                             f"{row['bytes_per_infoset']:,.0f}", fmt_seconds(stats.median),
                             f"{row['ns_per_history_pass']:.2f}",
                             *((fmt_ratio(ratio_t), fmt_ratio(ratio_m)) if ref or name == "history"
                               else ("-", "-"))])
            del tree
    print_table(f"Public tree against history tree (CFR+, {options.precision}, alternating; warm)",
                ["game", "tree", "threads", "build", "tree + solve", "bytes/infoset", "s/iteration",
                 "ns/history/pass", "time vs history", "memory vs history"], rows,
                note="history-equivalent: the history tree's number of histories (without a history "
                     "row, the packaged known size); ratios against the history tree on the same "
                     "threads in this run ('-': no history tree in this run)")
    return write_csv("public", csv_rows, info)


#: The options :func:`run` reads beyond the common ones, at their defaults (``benchmarks.run`` passes
#: its own arguments, which have none of them).
DEFAULTS = dict(trees=("history", "public", "class walk"), precision="float64", pieces=COUNT_PARTS)


def with_defaults(options):
    """``options`` with each of :data:`DEFAULTS` it lacks set."""
    for name, value in DEFAULTS.items():
        if not hasattr(options, name):
            setattr(options, name, value)
    return options


def main(argv=None):
    parser = bench_parser("public", __doc__, "turn limits 1-2 only, short blocks")
    parser.add_argument("--threads", type=int, default=2, help="threads besides 1 (default 2)")
    parser.add_argument("--turn-limits", type=lambda s: tuple(int(x) for x in s.split(",")),
                        help="which turn limits, e.g. 3 (default 1,2,3; --quick 1,2)")
    parser.add_argument("--trees", type=lambda s: tuple(s.split(",")),
                        default=DEFAULTS["trees"],
                        help="which trees, of history, public, 'class walk', pieces (comma-separated; "
                             "the ratios need history)")
    parser.add_argument("--precision", choices=("float64", "float32"), default=DEFAULTS["precision"],
                        help="the solve's precision (turn limit 4 in pieces: float32, to fit 24 GiB)")
    parser.add_argument("--pieces", type=int, default=DEFAULTS["pieces"],
                        help=f"parts of --trees pieces (default {COUNT_PARTS}, as coupsolve solve)")
    args = parser.parse_args(argv)
    unknown = set(args.trees) - {"history", "public", "class walk", "pieces"}
    if unknown:
        parser.error(f"--trees: unknown {sorted(unknown)}")
    args.repeats, args.block = (3, 0.5) if args.quick else (5, 2.0)
    info = machine_info()
    print(f"load average at start {load_average():.2f}")
    path = run(args.turn_limits or ((1, 2) if args.quick else (1, 2, 3)), args, info)
    print(f"written: {path}")


if __name__ == "__main__":
    main()
