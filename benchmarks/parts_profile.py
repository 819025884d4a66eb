"""Per-part figures of Coup's public tree built in pieces, measured: what a cluster plan is computed from.

For the card-selection setup at a turn limit (default 4, the influence payoff), the public tree is built
in pieces as ``coupsolve solve`` builds it (:func:`coupsolve.trees.pieces.build.build_class_pieces`, cut at
``--depth`` into ``--parts`` parts, the hands, keys and contexts spilled to disk), solved for ``--warm``
CFR+ iterations in one process (:class:`solvers.PiecesRep`), and then ``--timed`` more iterations are
timed piece by piece, first on 1 thread and then on 2. Per piece it records:

- its arrays' bytes (:func:`solvers.pieces.split.piece_bytes`) and its share of a solve run on its own,
  as a worker holding it would (:func:`solvers.pieces.parts.piece_solve_bytes`);
- its nodes, entries, information sets and actions, and its roots: the entries at the cut, whose reach
  goes down and values come up each pass;
- its seconds per pass (the part's forward and backward pass; the trunk's down and up).

The JSON (``--out``) is what :mod:`benchmarks.cluster_plan` reads. Run alone, with the memory of a
solve of that turn limit (turn limit 4: about 14 GiB and an hour):
``python -m benchmarks.parts_profile --turn-limit 4 --out parts-tl4.json``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from .common import load_average, machine_info


def _build(rules, depth, parts, workers):
    """``(PublicPieces, seconds)``: the pieces as the command line builds them."""
    from coupsolve.trees.pieces.build import build_class_pieces
    from coupsolve.plan import progress_lines
    from solvers import PublicPieces

    began = time.perf_counter()
    built = build_class_pieces(rules, depth, parts, workers=workers, progress=progress_lines(print),
                               spill=True)
    tree = PublicPieces(rules.game_string(), built.trunk, built.parts, built.infoset_actions)
    return tree, time.perf_counter() - began


def _shape(piece, params, precision):
    """A piece's sizes (module docstring)."""
    from solvers.pieces.parts import piece_solve_bytes
    from solvers.pieces.split import count, piece_bytes

    f = piece.flat
    return dict(nodes=int(f.node_kind.shape[0]), entries=int(f.entry_parent.shape[0]),
                infosets=count(piece.infosets), actions=count(piece.actions),
                roots=int(piece.roots[1] - piece.roots[0]), bytes=int(piece_bytes(piece)),
                solve_bytes=int(piece_solve_bytes(piece, params, precision)))


def _clock(owner, name, into):
    """Wrap ``owner.name`` so that each call's seconds are added to ``into[name]``."""
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        began = time.perf_counter()
        out = inner(*args, **kwargs)
        into[name] = into.get(name, 0.0) + time.perf_counter() - began
        return out

    setattr(owner, name, timed)


def _time_pieces(solver, threads, iterations):
    """Seconds per pass of every part and of the trunk over ``iterations`` iterations, run on
    ``threads`` numba threads; and the iterations' wall seconds."""
    rep = solver.representation
    runners = rep.part_runners()
    clocks = [{} for _ in runners]
    trunk = {}
    for r, into in zip(runners, clocks):
        r.threads = threads
        _clock(r, "run_pass", into)
    rep.trunk.threads = rep.threads = threads
    for name in ("trunk_down", "trunk_up"):
        _clock(rep.trunk, name, trunk)
    began = time.perf_counter()
    solver.step(iterations)
    wall = time.perf_counter() - began
    for r in runners + [rep.trunk]:  # the methods again, not the clocks
        for name in ("run_pass", "trunk_down", "trunk_up"):
            vars(r).pop(name, None)
    passes = 2 * iterations
    return ([c["run_pass"] / passes for c in clocks],
            sum(trunk.values()) / passes, wall / iterations)


def profile(turn_limit, payoff, depth, parts, precision, warm, timed, workers):
    """The figures (module docstring) as a dict."""
    from coupsolve import Rules
    from solvers import Solver

    rules = Rules.two_player_selection(turn_limit=turn_limit, limit_payoff=payoff)
    tree, build_s = _build(rules, depth, parts, workers)
    print(f"built {tree} in {build_s:.1f} s", flush=True)
    solver = Solver(tree, "cfr+", precision=precision, threads=2)
    began = time.perf_counter()
    solver.step(warm)
    warm_s = time.perf_counter() - began
    print(f"{warm} warm iterations in {warm_s:.1f} s", flush=True)
    rep = solver.representation
    rows = [_shape(q, rep.params, precision) for q in tree.parts]
    out = dict(turn_limit=turn_limit, payoff=payoff, depth=depth, precision=precision,
               build_seconds=build_s, warm_iterations=warm, warm_seconds=warm_s,
               histories=_histories(rules), num_infosets=int(tree.num_infosets),
               num_actions=int(tree.num_actions), num_entries=int(tree.num_entries),
               trunk=_shape(tree.trunk, rep.params, precision), parts=rows)
    for threads in (1, 2):
        per_part, trunk_s, wall = _time_pieces(solver, threads, timed)
        for row, s in zip(rows, per_part):
            row[f"seconds_per_pass_{threads}t"] = s
        out[f"trunk_seconds_per_pass_{threads}t"] = trunk_s
        out[f"iteration_seconds_{threads}t"] = wall
        print(f"{threads} thread(s): {wall:.2f} s an iteration; parts {sum(per_part):.2f} s and "
              f"trunk {trunk_s:.3f} s a pass", flush=True)
    out["exploitability"] = float(solver.exploitability())
    out["load_average"] = load_average()
    out["machine"] = machine_info()
    return out


def _histories(rules):
    from coupsolve.trees import sizecache

    known = sizecache.lookup(rules)
    return int(known.size.nodes) if known is not None and known.size is not None else None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.parts_profile",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--turn-limit", type=int, default=4)
    parser.add_argument("--payoff", default="influence", choices=("draw", "influence"))
    parser.add_argument("--depth", type=int, default=12, help="the cut level (default 12, as "
                        "`coupsolve solve` cuts turn limit 4)")
    parser.add_argument("--parts", type=int, default=400)
    parser.add_argument("--precision", default="float32", choices=("float32", "float64"))
    parser.add_argument("--warm", type=int, default=3, help="CFR+ iterations before the timing")
    parser.add_argument("--timed", type=int, default=2, help="iterations timed per thread count")
    parser.add_argument("--workers", type=int, default=2, help="parts built at a time")
    parser.add_argument("--out", required=True, help="the JSON file to write")
    args = parser.parse_args(argv)
    out = profile(args.turn_limit, args.payoff, args.depth, args.parts, args.precision, args.warm,
                  args.timed, args.workers)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(out, handle, indent=1)
    s = np.array([r["seconds_per_pass_1t"] for r in out["parts"]])
    print(f"written {args.out}: {len(s)} parts, the slowest {s.max():.3f} s a pass on 1 thread, "
          f"the mean {s.mean():.4f} s")


if __name__ == "__main__":
    main()
