"""What limits the public tree's passes on more threads, and what that predicts for a machine with more
cores: ``python -m benchmarks.threads --games coup2,coup3``.

For each game (Coup's public tree of the class walk), one thread runs CFR+ iterations node by node
(:mod:`~.kernels`), giving every node's time in each pass: the forward pass of each player's reach,
each player's backward pass, and an exploitability check's values pass. Summed per level, and per
share of each level as the drivers split it on ``P`` threads (:func:`~.model.shares`), they give
each level's makespan on ``P`` = 1, 2, 4, 8, 16 threads (the load imbalance), beside the best split
of the measured cost. With the cost of a parallel region (measured here on 1 and 2 threads), the
bytes each level streams (an upper bound) and the bandwidth measured here, :func:`~.model.model_time`
gives an iteration's time on ``P`` threads; it is checked against whole iterations timed here on 1
and 2 threads (and the serial drivers), and, at turn limit 2, against the issue's figures on a
16-core Xeon (:data:`~.report.XEON_TL2`), from which it infers the region cost there and predicts
the other games. ``--level-min-entries`` evaluates the rule that a level with less work runs on
the calling thread. Results: ``benchmarks/results/threads[-LABEL].csv`` and ``.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from ..common import RESULTS, bench_parser, fmt_seconds, load_average, machine_info, print_table
from ..common import write_csv

__all__ = ["main", "run"]


def _parser():
    parser = bench_parser("threads", __doc__, "fewer repetitions (3 instead of 7)")
    parser.add_argument("--games", default="coup2", help="comma-separated, of coup1, coup2, coup3")
    parser.add_argument("--tree-dir", help="keep each built tree here (npz) and load it next time")
    parser.add_argument("--label", default="", help="suffix of the results' files (before, after)")
    parser.add_argument("--level-min-entries", type=int, default=1 << 14,
                        help="the model's rule: a level with less work runs on the calling thread")
    parser.add_argument("--bandwidth-max", type=float, default=60.0,
                        help="GB/s all cores of the modelled machine move together (default: "
                             "%(default)s; each thread moves what one moves here)")
    parser.add_argument("--bandwidth-sweep", default="40,100",
                        help="other machine-wide bandwidths (GB/s, comma-separated) to model the "
                             "8- and 16-thread times at, each with its own fit (default: %(default)s)")
    parser.add_argument("--pieces", type=int, default=100,
                        help="cut turn limit 2 into this many parts to time what a part adds to "
                             "an iteration (0: not measured)")
    parser.add_argument("--region-us", type=float,
                        help="region cost on the modelled machine, microseconds, at every thread "
                             "count (default: inferred from the issue's turn-limit-2 figures)")
    return parser


def _tree(key, tree_dir):
    """Coup's public tree of the class walk for game ``key`` (built, or loaded from ``tree_dir``)."""
    from solvers import PublicTree
    from solvers.trees.publictree import PublicFlat

    from ..games import all_games

    game = all_games()[key]
    path = Path(tree_dir) / f"{key}-classwalk.npz" if tree_dir else None
    if path is not None and path.exists():
        with np.load(path) as z:
            return PublicTree(str(z["game_id"]), infoset_actions=z["infoset_actions"],
                              **{k: z[k] for k in PublicFlat._fields})
    from coupsolve.trees.classwalk.build import build_class_tree

    print(f"{key}: building the public tree (class walk) ...", file=sys.stderr, flush=True)
    tree = build_class_tree(game.rules()).tree
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, game_id=np.array(tree.game_id), infoset_actions=tree.infoset_actions,
                 **tree.flat._asdict())
    return tree


def _profile(key, tree, args):
    """The measurements of one game (:mod:`~.measure`) and its passes (:class:`~.model.PassProfile`)."""
    import solvers
    from solvers.public._forward import RUNS

    from .measure import iteration_times, node_times, tick_seconds
    from .model import PassProfile, level_of, node_bytes

    solver = solvers.Solver(tree, "cfr+", threads=2)
    rep = solver.representation
    print(f"{key}: {tree.num_nodes:,} nodes, {tree.num_entries:,} entries; compiling (first run "
          "only) and warming up ...", file=sys.stderr, flush=True)
    solver.step(args.warm)
    tick = tick_seconds()
    one = iteration_times(rep, 1, 1, 1)[0]
    k = max(1, int(0.5 / one))
    times = {name: iteration_times(rep, t, k, args.repeats) for name, t in
             (("1 thread, parallel drivers", 1), ("1 thread, serial drivers", 0),
              ("2 threads", 2))}
    print(f"{key}: timing node by node ...", file=sys.stderr, flush=True)
    nt = node_times(rep, args.repeats, tick)
    T = tree.flat
    nb = node_bytes(T, 8, rep.state.live)
    passes = [PassProfile(name, nt[name], nb[name], RUNS if name.startswith("forward") else None,
                          0.0 if name.startswith("values") else 1.0).levels(T.level_start)
              for name in ("forward 1", "backward 0", "forward 0", "backward 1", "values 0")]
    per_node = sum(nt[n] for n in ("forward 0", "forward 1", "backward 0", "backward 1"))
    largest = np.zeros(len(T.level_start) - 1)
    np.maximum.at(largest, level_of(T.level_start), per_node * 1e6)
    return dict(times=times, passes=passes, largest=largest, overhead=nt["overhead"], k=k,
                solver=solver)


#: The drivers the model is run for: before this benchmark's findings (every level a region, shares
#: fixed by entries), with small levels on the calling thread, and with runs claimed as well.
SPECS = ("every level", "small levels serial", "small serial + claims")


def _specs(T, passes, args):
    """``{label: (mask, rule)}`` of :data:`SPECS` (:func:`~.report.model_rows`)."""
    from .report import parallel_mask

    mask = parallel_mask(passes, T.entry_start, T.level_start, args.level_min_entries)
    return dict(zip(SPECS, ((None, "entries"), (mask, "entries"), (mask, "claims"))))


def _xeon(key, T, passes, measured_one, args, state, bandwidth):
    """The model on the issue's machine: ``{P: {label: (seconds, ...)}}``, and at turn limit 2 the
    region cost its figures imply (kept in ``state`` for the other games)."""
    from .report import THREADS, XEON_TL2, model_rows

    if key == "coup2":
        state["speed"] = XEON_TL2[1] / measured_one
    speed = state.get("speed", 1.0)
    specs = _specs(T, passes, args)
    out, implied = {}, {}
    for P in THREADS:
        if args.region_us is not None:
            cost = args.region_us * 1e-6
        elif key == "coup2" and P > 1:
            bare = model_rows(key, T, passes, P, lambda _: 0.0, bandwidth, speed,
                              {"x": (None, "entries")})["x"]
            cost = max((XEON_TL2[P] - bare[0]) / bare[3], 0.0)
            state.setdefault("region", {})[P] = cost
        else:
            cost = state.get("region", {}).get(P, 0.0) if P > 1 else 0.0
        implied[P] = cost
        out[P] = model_rows(key, T, passes, P, lambda _: cost, bandwidth, speed, specs)
    return out, implied, speed


def _model_table(key, here, xeon, implied, speed, measured, rows, csv):
    """Rows of the model's table for game ``key`` (:func:`run`)."""
    from .report import THREADS, XEON_TL2

    for P in THREADS:
        m, h = xeon[P], here.get(P)
        figure = XEON_TL2.get(P) if key == "coup2" else None
        cells = [fmt_seconds(m[k][0]) + f" ({xeon[1][k][0] / m[k][0]:.1f}x)" for k in SPECS]
        rows.append([key, P, fmt_seconds(measured.get(P, float("nan"))),
                     " / ".join(fmt_seconds(h[k][0]) for k in h) if h else "-",
                     fmt_seconds(figure) if figure else "-", f"{implied[P] * 1e6:.1f} us",
                     *cells, " / ".join(f"{m[k][3]:.0f}" for k in SPECS[:2]),
                     fmt_seconds(m[SPECS[2]][2])])
        csv.append(dict(game=key, threads=P, measured_here=measured.get(P), xeon_figure=figure,
                        region_seconds=implied[P], speed=speed,
                        **{f"model_here {k}": h[k][0] for k in (h or {})},
                        **{f"model {k}": m[k][0] for k in SPECS},
                        **{f"regions {k}": m[k][3] for k in SPECS},
                        **{f"work {k}": m[k][1] for k in SPECS},
                        **{f"floor {k}": m[k][2] for k in SPECS}))


def _sweep(key, T, passes, one, args, state, copy):
    """The 8- and 16-thread model at each bandwidth of ``--bandwidth-sweep``, each fitted to the
    issue's turn-limit-2 figures at that bandwidth (rows kept in ``state["sweep"]``)."""
    for gbps in [float(x) for x in args.bandwidth_sweep.split(",") if x.strip()]:
        sub = state.setdefault(f"bandwidth {gbps:g}", {})
        xeon, _, _ = _xeon(key, T, passes, one, args, sub,
                           lambda P, b=gbps: min(P * copy[1], b * 1e9))
        for P in (8, 16):
            state.setdefault("sweep", []).append(
                [key, f"{gbps:g} GB/s", P] + [f"{fmt_seconds(xeon[P][k][0])} "
                                              f"({xeon[1][k][0] / xeon[P][k][0]:.1f}x)"
                                              for k in (SPECS[0], SPECS[2])])


def _tl4_table(state, summary):
    """Turn limit 4's prediction (:func:`~.report.tl4_rows`) with turn limit 3's balance and turn
    limit 2's (smaller levels, as a part's are), when both were profiled and the parts timed."""
    from .report import tl4_rows

    balance = state.get("balance", {})
    if "part_pass" not in state or not {"coup2", "coup3"} <= set(balance):
        return
    part = state["part_pass"][0] * state.get("speed", 1.0)
    rows, out = [], {}
    for key in ("coup3", "coup2"):
        for spec in (SPECS[0], SPECS[2]):
            pred = tl4_rows(balance[key][spec], lambda P: state.get("region", {}).get(P, 0.0),
                            part, state.get("speed", 1.0))
            out[f"{key} {spec}"] = pred
            one = pred[1][0]
            rows += [[f"as {key}, {spec}", P, f"{balance[key][spec][P]:.1f}x", fmt_seconds(sec),
                      f"{one / sec:.1f}x", f"{regions:,}", fmt_seconds(fixed)]
                     for P, (sec, regions, fixed) in pred.items()]
    summary["tl4"] = out
    print_table("Turn limit 4 in pieces on the Xeon (the model, from the trees profiled here)",
                ["balance", "threads", "compute speed-up", "seconds per iteration", "speed-up",
                 "regions", "parts' own cost (serial)"], rows,
                note=f"One thread: 3.9 s here (float32, in 399 pieces) x the Xeon's speed; "
                     f"a part's pass adds {part * 1e6:.0f} us on the Xeon (measured here in turn "
                     f"limit 2 cut into {state['part_pass'][1]} parts, x the speed), not in parallel.")


def _game(key, args, state, summary, here_region, copy, xeon_bw, suffix, out):
    """Profile game ``key``, model it, add its rows to ``out`` (levels, passes, model CSV rows, model
    table rows) and its figures to ``state`` and ``summary``."""
    from .report import level_table, model_rows, pass_table

    levels, passes_csv, model_csv, rows = out
    tree = _tree(key, args.tree_dir)
    prof = _profile(key, tree, args)
    T, passes = tree.flat, prof["passes"]
    measured = {1: float(np.median(prof["times"]["1 thread, parallel drivers"])),
                2: float(np.median(prof["times"]["2 threads"]))}
    levels += level_table(key, T, passes, prof["largest"])
    passes_csv += pass_table(key, T, passes, xeon_bw)
    specs = _specs(T, passes, args)
    here = {P: model_rows(key, T, passes, P, here_region.get, copy.get, 1.0,
                          {k: specs[k] for k in (SPECS[0], SPECS[2])}) for P in (1, 2)}
    xeon, implied, speed = _xeon(key, T, passes, measured[1], args, state, xeon_bw)
    _model_table(key, here, xeon, implied, speed, measured, rows, model_csv)
    _sweep(key, T, passes, measured[1], args, state, copy)
    state.setdefault("balance", {})[key] = {
        k: {P: xeon[1][k][0] / (xeon[P][k][0] - xeon[P][k][3] * implied[P]) for P in xeon}
        for k in (SPECS[0], SPECS[2])}
    if key == "coup2" and args.pieces:
        from .measure import pieces_overhead

        state["part_pass"] = pieces_overhead(tree, args.pieces, max(1, prof["k"] // 4),
                                             args.repeats)
        summary["pieces"] = state["part_pass"]
    RESULTS.mkdir(parents=True, exist_ok=True)
    np.savez(RESULTS / f"threads-nodes-{key}{suffix}.npz", level_start=T.level_start,
             entry_start=T.entry_start, **{p.name: p.cost for p in passes},
             **{f"bytes {p.name}": p.bytes for p in passes})
    summary["games"][key] = dict(
        nodes=tree.num_nodes, entries=tree.num_entries, levels=len(T.level_start) - 1,
        times={k: v for k, v in prof["times"].items()}, overhead=prof["overhead"].tolist(),
        iterations_per_block=prof["k"], load=load_average(),
        passes={p.name: p.level_cost.sum() for p in passes})
    del prof, tree


def run(args, info):
    """Measure every game, print the tables, write the results; returns the CSV's path."""
    from .. import bandwidth as BW
    from .measure import region_cost

    bw = BW.measure(repeats=3, threads=2)
    copy = {t: bw[("copy", t)].median * 1e9 for t in (1, 2)}
    here_region = {t: region_cost(t)[0] for t in (1, 2)}
    print(f"copy bandwidth {copy[1] / 1e9:.1f} GB/s (1 thread), {copy[2] / 1e9:.1f} (2); a region "
          f"{here_region[1] * 1e6:.2f} us (1 thread), {here_region[2] * 1e6:.2f} us (2)")

    def xeon_bw(P):
        return min(P * copy[1], args.bandwidth_max * 1e9)

    state, levels, passes_csv, model_csv, rows = {}, [], [], [], []
    suffix = f"-{args.label}" if args.label else ""
    summary = dict(load_start=load_average(), copy_gbps=copy, region_here=here_region, games={})
    for key in args.games.split(","):
        _game(key, args, state, summary, here_region, copy, xeon_bw, suffix,
              (levels, passes_csv, model_csv, rows))
    print_table("The model against the measured times (CFR+ seconds per iteration)",
                ["game", "threads", "measured here", "model here (old / new drivers)",
                 "issue's Xeon", "region cost", *(f"Xeon model: {k}" for k in SPECS),
                 "regions (every / small serial)", "bandwidth floor (new)"],
                rows, note=f"Measured here: median of {args.repeats} blocks (1 thread: CPU time, the "
                           "parallel drivers on one thread, as the issue's figures ran; "
                           f"2 threads: wall clock, load average {load_average():.2f}). The "
                           f"Xeon model: this machine's node times x {state.get('speed', 1):.2f}, "
                           f"bandwidth min(P x {copy[1] / 1e9:.1f}, {args.bandwidth_max:.0f}) "
                           f"GB/s, the region cost as inferred at turn limit 2 (or --region-us); "
                           f"small levels serial: a level under {args.level_min_entries:,} "
                           "entries of work runs on the calling thread; claims: its runs "
                           "taken one at a time (new drivers: both).")
    if state.get("sweep"):
        print_table("The Xeon model at other bandwidths", ["game", "bandwidth", "threads",
                    f"before: {SPECS[0]}", f"after: {SPECS[2]}"], state["sweep"])
    _tl4_table(state, summary)
    write_csv(f"threads-levels{suffix}", levels, info)
    write_csv(f"threads-passes{suffix}", passes_csv, info)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"threads{suffix}.json").write_text(json.dumps(summary, indent=1, default=float))
    return write_csv(f"threads{suffix}", model_csv, info)


def main(argv=None):
    args = _parser().parse_args(argv)
    args.repeats = 3 if args.quick else 7
    args.warm = 5 if args.quick else 15
    info = machine_info()
    print(f"load average at start {load_average():.2f}")
    print(f"written: {run(args, info)}")
