"""Depth-limited solving where the truth is known: the table of Brown, Sandholm and Amos (NeurIPS 2018), on Coup.

Run: python examples/depth_limited_report.py [--full 3] [--cuts 1 2] [--continuations 4]

Takes the two-player card-selection game cut after turn ``--full`` as the "full game" and two strategies
of it as blueprints: a near-exact one (hs-pcfr+ to ``--target``) and a weak one (CFR+ stopped at the
first check at or below ``--weak-target``). For each blueprint and each cut ``k`` in ``--cuts`` it solves
the game cut after turn ``k`` four ways: (a) a draw at the cut, (b) the influence payoff at the cut,
(c) one continuation at each leaf (the blueprint's value), (d) ``--continuations`` continuations per
player (:mod:`coupsolve.depth.continuations`); stitches each cut solution onto the blueprint after the
cut and measures its exact exploitability in the full game. Writes ``examples/report/depth_limited.md``
and ``.json`` (with each solution's turn-1 rates). Blueprints are kept in ``--scratch`` between runs.
"""

import argparse
import json
import os
import resource
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "report")


def say(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def blueprint(tree, name, scratch, **kw):
    """A strategy of the full game, kept in ``scratch`` (plain npz) between runs."""
    import solvers

    path = os.path.join(scratch, f"blueprint_{name}.npz")
    if os.path.exists(path):
        with np.load(path, allow_pickle=False) as f:
            return f["policy"], float(f["exploitability"]), int(f["iterations"]), float(f["seconds"])
    r = solvers.solve(tree, progress=False, **kw)
    np.savez(path, policy=r.average_policy, exploitability=r.exploitability, iterations=r.iterations,
             seconds=r.seconds)
    return r.average_policy, float(r.exploitability), int(r.iterations), float(r.seconds)


def turn1(analysis):
    return {s.claim: {"made": s.made, "bluff": s.bluff, "challenged": s.challenged}
            for s in analysis.by_turn[1] if s.made > 0}


def solve_cut(tree, target):
    import solvers

    r = solvers.solve(tree, algorithm="hs-pcfr+", target_exploitability=target, iterations=2000,
                      check_every=10, progress=False)
    return r.average_policy, float(r.exploitability), int(r.iterations)


def one_cut(full, policy, k, K, target):
    """The four cut solutions of the full game cut after turn ``k``, stitched onto ``policy``."""
    import coupsolve
    from coupsolve import Rules, depth
    from coupsolve.analysis.history import analyse

    rows = {}
    for payoff in ("draw", "influence"):
        cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k, limit_payoff=payoff))
        p, e, it = solve_cut(cut.tree, target)
        s = depth.stitched_exploitability(cut.tree, p, full.tree, policy)
        rows[f"{payoff} payoff"] = {"cut_exploitability": e, "iterations": it, "stitched": s,
                                    "turn1": turn1(analyse(cut, p))}
        say(f"  cut {k}, {payoff}: exploitability {e:.1e} after {it}, stitched {s:.2e}")
    cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k), leaves=True)
    where = depth.node_map(cut.tree, full.tree)
    for kk in sorted({1, K}):
        t0 = time.perf_counter()
        lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, kk, where=where)
        dl = depth.depth_limited_game(cut.rules, lv, cut=cut)
        leaf_seconds = time.perf_counter() - t0
        p, e, it = solve_cut(dl.tree, target)
        s = depth.stitched_exploitability(cut.tree, dl.cut_policy(p), full.tree, policy, where=where)
        rows[f"K = {kk}"] = {"cut_exploitability": e, "iterations": it, "stitched": s,
                             "leaf_seconds": leaf_seconds, "leaves": int(len(cut.leaf_node)),
                             "leaf_choice": dl.leaf_choice(p), "turn1": turn1(analyse(dl.coup_tree, p))}
        say(f"  cut {k}, K = {kk}: leaf values {leaf_seconds:.1f} s, exploitability {e:.1e} after {it}, "
            f"stitched {s:.2e}")
    return rows


def write(report):
    with open(os.path.join(OUT, "depth_limited.json"), "w") as f:
        json.dump(report, f, indent=1)
    lines = ["# Depth-limited solving where the truth is known", "",
             f"Full game: the two-player card-selection game cut after turn {report['full']} "
             f"({report['histories']:,} histories). Each cut solution is played up to the cut and the "
             "blueprint after it; the figure is the exact exploitability of that stitched strategy in "
             "the full game (lower is better; the blueprint's own is the floor). Written by "
             "`examples/depth_limited_report.py`.", ""]
    for b in report["blueprints"]:
        lines += [f"## Blueprint: {b['name']} (exploitability {b['exploitability']:.2e}, "
                  f"{b['how']})", "", "| cut after turn | draw payoff | influence payoff | K = 1 | "
                  f"K = {report['continuations']} | (d) / (a) |", "|---|---|---|---|---|---|"]
        for k, rows in b["cuts"].items():
            f = [rows[m]["stitched"] for m in ("draw payoff", "influence payoff", "K = 1",
                                               f"K = {report['continuations']}")]
            lines.append(f"| {k} | " + " | ".join(f"{x:.2e}" for x in f) + f" | {f[3] / f[0]:.4f} |")
        lines.append("")
    with open(os.path.join(OUT, "depth_limited.md"), "w") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", type=int, default=3)
    ap.add_argument("--cuts", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--continuations", type=int, default=4)
    ap.add_argument("--target", type=float, default=1e-4)
    ap.add_argument("--weak-target", type=float, default=1e-2)
    ap.add_argument("--cut-target", type=float, default=1e-5)
    ap.add_argument("--scratch", default=os.path.join(HERE, ".depth_scratch"))
    a = ap.parse_args()
    import coupsolve
    from coupsolve import Rules

    os.makedirs(a.scratch, exist_ok=True)
    say(f"building the full game (turn limit {a.full})")
    full = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=a.full))
    report = {"full": a.full, "histories": full.tree.num_nodes, "continuations": a.continuations,
              "targets": {"blueprint": a.target, "weak": a.weak_target, "cut": a.cut_target}, "blueprints": []}
    specs = [("near-exact", dict(algorithm="hs-pcfr+", target_exploitability=a.target, iterations=3000,
                                 check_every=10)),
             ("weak", dict(algorithm="cfr+", target_exploitability=a.weak_target, iterations=3000,
                           check_every=1))]
    for name, kw in specs:
        say(f"blueprint {name}")
        policy, e, it, sec = blueprint(full.tree, name, a.scratch, **kw)
        say(f"blueprint {name}: exploitability {e:.2e} after {it} iterations ({sec:.0f} s)")
        b = {"name": name, "exploitability": e, "iterations": it,
             "how": f"{kw['algorithm']}, {it} iterations", "cuts": {}}
        for k in a.cuts:
            b["cuts"][k] = one_cut(full, policy, k, a.continuations, a.cut_target)
            report["blueprints"] = [x for x in report["blueprints"] if x["name"] != name] + [b]
            report["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
            write(report)
    say("done")


if __name__ == "__main__":
    main()
