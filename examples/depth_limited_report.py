"""Depth-limited solving where the truth is known: the table of Brown, Sandholm and Amos (NeurIPS 2018), on Coup.

Run: python examples/depth_limited_report.py [--full 3] [--cuts 1 2] [--continuations 4]
                                             [--blueprints near-exact sampled weak] [--best-responses 3]

Takes the two-player card-selection game cut after turn ``--full`` as the "full game" and strategies of
it as blueprints: a near-exact one (hs-pcfr+ to ``--target``), a sampled one (external-sampling MCCFR
over exact information sets for ``--sampled-iterations`` iterations, seeded, mapped onto the tree) and,
if asked, a weak one (CFR+ stopped at the first check at or below ``--weak-target``). For each blueprint
and each cut ``k`` in ``--cuts`` it solves the game cut after turn ``k`` four ways: (a) a draw at the
cut, (b) the influence payoff at the cut, (c) one continuation at each leaf (the blueprint's value),
(d) ``--continuations`` continuations per player (:mod:`coupsolve.depth.continuations`); stitches each
cut solution onto the blueprint after the cut and measures its exact exploitability in the full game.
The games with continuations are solved on the public tree (the same game in far fewer nodes,
:mod:`coupsolve.depth.public`), their solutions read back onto the history tree to be stitched. Then (e) ``--best-responses`` rounds of the double oracle over continuations (:mod:`coupsolve.depth.oracle`).
Writes ``examples/report/depth_limited.md`` and ``.json`` (with each solution's turn-1 rates) after
every cell, and a second run of the same full game and continuations keeps the cells already there
(Ctrl-C loses only the cell under way). Blueprints are kept in ``--scratch`` between runs.
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


def oracle_cut(full, policy, k, rounds, target, rows, save):
    """The double oracle over continuations (:mod:`coupsolve.depth.oracle`) at the cut after turn ``k``:
    the blueprint's own continuation, then ``rounds`` rounds each adding both players' best responses
    to the last solution played as it chose."""
    import coupsolve
    from coupsolve import Rules, depth
    from coupsolve.depth.oracle import best_response_continuations

    key = f"best responses, {rounds} rounds"
    if key in rows or rounds == 0:
        return
    from coupsolve.analysis.history import analyse

    cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k), leaves=True)
    t0, rates = time.perf_counter(), []
    out = best_response_continuations(cut, full, policy, k=1, rounds=rounds, target=target, iterations=2000,
                                      where=depth.node_map(cut.tree, full.tree),
                                      say=lambda line: say(f"  cut {k}, {line}"),
                                      each=lambda r, game, p: rates.append(turn1(analyse(game.coup_tree, p))))
    rows[key] = {"seconds": time.perf_counter() - t0,
                 "rounds": [{"continuations": list(r.names), "histories": r.histories,
                             "cut_exploitability": r.exploitability, "iterations": r.iterations,
                             "stitched_chosen": r.stitched, "gains": list(r.gains), "leaf_choice": r.leaf_choice,
                             "turn1": t1}
                            for r, t1 in zip(out, rates)]}
    save()


def one_cut(full, policy, k, K, target, rows, save):
    """The four cut solutions of the full game cut after turn ``k``, stitched onto ``policy``: each
    cell not yet in ``rows`` is computed, put there and ``save``d."""
    import solvers
    import coupsolve
    from coupsolve import Rules, depth
    from coupsolve.analysis.history import analyse
    from coupsolve.depth.public import history_order, public_depth_limited_game
    from coupsolve.trees.stepwalk.build import build_public_tree

    for payoff in ("draw", "influence"):
        if f"{payoff} payoff" in rows:
            continue
        cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k, limit_payoff=payoff))
        p, e, it = solve_cut(cut.tree, target)
        s = depth.stitched_exploitability(cut.tree, p, full.tree, policy)
        rows[f"{payoff} payoff"] = {"cut_exploitability": e, "target": target, "iterations": it, "stitched": s,
                                    "turn1": turn1(analyse(cut, p))}
        say(f"  cut {k}, {payoff}: exploitability {e:.1e} after {it}, stitched {s:.2e}")
        save()
    todo = [kk for kk in sorted({1, K}) if f"K = {kk}" not in rows]
    if not todo:
        return
    cut = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=k), leaves=True)
    where = depth.node_map(cut.tree, full.tree)
    public = build_public_tree(cut.rules)
    for kk in todo:
        t0 = time.perf_counter()
        lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, policy, kk, where=where)
        dl = depth.depth_limited_game(cut.rules, lv, cut=cut)  # stitched and analysed here, solved on:
        pub = public_depth_limited_game(cut.rules, lv, cut, cut_public=public)  # the same game, public
        leaf_seconds = time.perf_counter() - t0
        p, e, it = solve_cut(pub.tree, target)
        p = p[history_order(pub, cut)]
        s = depth.stitched_exploitability(cut.tree, dl.cut_policy(p), full.tree, policy, where=where)
        chosen = solvers.exploitability(full.tree, depth.stitch_choices(dl, p, full, policy, where=where))
        rows[f"K = {kk}"] = {"cut_exploitability": e, "target": target, "iterations": it, "stitched": s,
                             "stitched_chosen": chosen,
                             "leaf_seconds": leaf_seconds, "leaves": int(len(cut.leaf_node)),
                             "leaf_choice": dl.leaf_choice(p), "turn1": turn1(analyse(dl.coup_tree, p))}
        say(f"  cut {k}, K = {kk}: leaf values {leaf_seconds:.1f} s, exploitability {e:.1e} after {it}, "
            f"stitched {s:.2e}, with its chosen continuations {chosen:.2e}")
        save()


def sampled_blueprint(full, iterations, seed):
    """External-sampling MCCFR over exact information sets (the tree builder's keys), ``iterations``
    iterations from ``seed``, as a flat policy over ``full``'s tree."""
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.policy import tree_policy
    from solvers.mccfr.solver import MCCFRSolver

    solver = MCCFRSolver(sampling_game(full.rules), max_infosets=2 * full.tree.num_infosets, seed=seed)
    solver.step(iterations)
    return tree_policy(solver, full.tree)


def write(report, out):
    with open(out + ".json", "w") as f:
        json.dump(report, f, indent=1)
    lines = ["# Depth-limited solving where the truth is known", "",
             f"Full game: the two-player card-selection game cut after turn {report['full']} "
             f"({report['histories']:,} histories). Each cut solution is played up to the cut and the "
             "blueprint after it; the figure is the exact exploitability of that stitched strategy in "
             "the full game (lower is better). The last two columns play, after the cut, the blueprint "
             "itself or the continuations the solution chose at its leaves. Written by "
             "`examples/depth_limited_report.py`.", ""]
    K = report["continuations"]
    for b in report["blueprints"]:
        lines += [f"## Blueprint: {b['name']} (exploitability {b['exploitability']:.2e}, "
                  f"{b['how']})", "", "| cut after turn | (a) draw payoff | (b) influence payoff | (c) K = 1 | "
                  f"(d) K = {K}, blueprint after | (d) K = {K}, its choices after | (d) / (a) |",
                  "|---|---|---|---|---|---|---|"]
        for k, rows in b["cuts"].items():
            f = [rows.get(m, {}).get("stitched") for m in ("draw payoff", "influence payoff", "K = 1")]
            f += [rows.get(f"K = {K}", {}).get(x) for x in ("stitched", "stitched_chosen")]
            ratio = f"{min(f[3:]) / f[0]:.3g}" if None not in f else "–"
            lines.append(f"| {k} | " + " | ".join("not run" if x is None else f"{x:.2e}" for x in f)
                         + f" | {ratio} |")
        lines.append("")
        lines += oracle_lines(b)
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines))


def oracle_lines(b):
    """The double oracle's rows of blueprint ``b``: the stitched figure (played as chosen) per round."""
    cells = [(k, key, rows[key]) for k, rows in b["cuts"].items() for key in rows if key.startswith("best resp")]
    if not cells:
        return []
    n = max(len(c["rounds"]) for _, _, c in cells)
    lines = ["Best responses as continuations (`coupsolve.depth.oracle`): round 0 offers the blueprint "
             "alone; each later round adds both players' best responses to the last solution, played as it "
             "chose. The figure is that solution, played as it chose, in the full game.", "",
             "| cut after turn | " + " | ".join(f"round {r}" for r in range(n)) + " | time |",
             "|---|" + "---|" * n + "---|"]
    for k, _, c in cells:
        f = [f"{r['stitched_chosen']:.2e}" for r in c["rounds"]] + ["–"] * (n - len(c["rounds"]))
        lines.append(f"| {k} | " + " | ".join(f) + f" | {c['seconds']:,.0f} s |")
    return lines + [""]


def _resumed(full, a):
    """The report of an earlier run of the same full game and continuations, or a new one."""
    path = a.out + ".json"
    fresh = {"full": a.full, "histories": full.tree.num_nodes, "continuations": a.continuations,
             "targets": {"blueprint": a.target, "weak": a.weak_target, "cut": a.cut_target}, "blueprints": []}
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if (old.get("full"), old.get("continuations")) == (a.full, a.continuations):
            say(f"keeping the cells of {os.path.relpath(path)}")
            return old
    return fresh


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", type=int, default=3)
    ap.add_argument("--cuts", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--continuations", type=int, default=4)
    ap.add_argument("--blueprints", nargs="+", choices=("near-exact", "sampled", "weak"),
                    default=["near-exact", "sampled"])
    ap.add_argument("--target", type=float, default=1e-4)
    ap.add_argument("--weak-target", type=float, default=1e-2)
    ap.add_argument("--sampled-iterations", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0, help="of the sampled blueprint")
    ap.add_argument("--cut-target", type=float, default=1e-5)
    ap.add_argument("--best-responses", type=int, default=3, metavar="ROUNDS",
                    help="rounds of the double oracle over continuations per cut (0: none)")
    ap.add_argument("--scratch", default=os.path.join(HERE, ".depth_scratch"))
    ap.add_argument("--out", default=os.path.join(OUT, "depth_limited"), help="the report, without .md/.json")
    a = ap.parse_args()
    import coupsolve
    import solvers
    from coupsolve import Rules

    os.makedirs(a.scratch, exist_ok=True)
    say(f"building the full game (turn limit {a.full})")
    full = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=a.full))
    report = _resumed(full, a)
    specs = {"near-exact": dict(algorithm="hs-pcfr+", target_exploitability=a.target, iterations=3000,
                                check_every=10),
             "weak": dict(algorithm="cfr+", target_exploitability=a.weak_target, iterations=3000,
                          check_every=1)}
    for name in a.blueprints:
        say(f"blueprint {name}")
        if name == "sampled":
            path = os.path.join(a.scratch, f"blueprint_sampled_{a.sampled_iterations}_{a.seed}.npz")
            if not os.path.exists(path):
                t0 = time.perf_counter()
                policy = sampled_blueprint(full, a.sampled_iterations, a.seed)
                np.savez(path, policy=policy, exploitability=solvers.exploitability(full.tree, policy),
                         iterations=a.sampled_iterations, seconds=time.perf_counter() - t0)
            with np.load(path, allow_pickle=False) as f:
                policy, e, it, sec = f["policy"], float(f["exploitability"]), int(f["iterations"]), float(f["seconds"])
            how = f"external-sampling MCCFR, exact information sets, {it:,} iterations, seed {a.seed}"
        else:
            policy, e, it, sec = blueprint(full.tree, name, a.scratch, **specs[name])
            how = f"{specs[name]['algorithm']}, {it} iterations"
        say(f"blueprint {name}: exploitability {e:.2e} after {it} iterations ({sec:.0f} s)")
        b = next((x for x in report["blueprints"] if x["name"] == name), None)
        if b is None or abs(b["exploitability"] - e) > 1e-9 * e:  # a blueprint of other iterates: its cells go
            b = {"name": name, "exploitability": e, "iterations": it, "how": how, "cuts": {}}
            report["blueprints"] = [x for x in report["blueprints"] if x["name"] != name] + [b]

        def save():
            report["peak_rss_gib"] = max(report.get("peak_rss_gib", 0.0),
                                         resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
            write(report, a.out)

        if "turn1" not in b and a.best_responses:  # the blueprint's own rates, beside the rounds'
            from coupsolve.analysis.history import analyse

            b["turn1"] = turn1(analyse(full, policy))
        for k in a.cuts:
            one_cut(full, policy, k, a.continuations, a.cut_target, b["cuts"].setdefault(str(k), {}), save)
            oracle_cut(full, policy, k, a.best_responses, a.cut_target, b["cuts"][str(k)], save)
    say("done")


if __name__ == "__main__":
    main()
