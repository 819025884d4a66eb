"""Check a solve's exact best responses by play through the OpenSpiel game.

    coupsolve solve --turn-limit 4 --target-exploitability 1e-3 --out s4.npz
    python examples/best_response_check.py s4.npz [--games 40000] [--seed 0]

or solve and check in one run, on one build of the tree (saving the rebuild), keeping the strategy:

    python examples/best_response_check.py s4i.npz --solve --turn-limit 4 --limit-payoff influence

keep the exact best responses (``--keep-best``) to play more games against them later without the
rebuild, one seat or both (``--best``, ``--seat``):

    python examples/best_response_check.py s4.npz --keep-best s4.best.npz
    python examples/best_response_check.py s4.npz --best s4.best.npz --seat 1 --games 400000 --seed 9

Builds the strategy's public tree again (for a strategy solved in pieces, where its file says its tree
was cut: at turn limit 4 about 20 minutes on two cores and 15 GiB), computes each seat's exact best
response on it, lets the tree go, and plays each best response against the strategy in seeded games
through the OpenSpiel game (:mod:`coupsolve.evaluation.brcheck`: what this does and does not show). Prints one
line per seat and writes ``examples/report/tl<k>_<payoff>_check.json`` (``--out`` to change it).
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def exact(path, rules, tree, result):
    """Both seats' exact best responses to the strategy in ``path``, on the tree it was solved on
    (rebuilt), which is let go when this returns."""
    import numpy as np

    import solvers
    from coupsolve.evaluation.brcheck import exact_best_responses
    from coupsolve.plan.options import solve_threads
    from coupsolve.strategy import rebuild_pieces

    real = "float32" if result.average_policy.dtype == np.float32 else "float64"
    threads = solve_threads(None)[0]  # as coupsolve solve: the cores available
    if tree is None:  # solved in pieces: the file holds the keys; the pieces are rebuilt
        keys, actions = result.infoset_hash, result.infoset_actions
        built, why = rebuild_pieces(path, rules, result, print)
        if built is None:
            sys.exit(f"best_response_check: cannot rebuild the pieces of {path}, {why}")
        table = built[0]
        # the rebuild lets them go; the games look the policies up by them
        result.infoset_hash, result.infoset_actions = keys, actions
        del built
    else:
        table = tree.tree
    rep = solvers.Solver(table, "cfr+", precision=real, threads=threads).representation
    return exact_best_responses(rep, result.average_policy, print)


def solve_and_exact(path, turn_limit, payoff, target):
    """Solve the card-selection preset at ``turn_limit`` under ``payoff`` as ``coupsolve solve`` does
    (its plan, its default algorithm; the strategy saved to ``path``), then both seats' exact best
    responses on the same tree: ``(rules, result, best)``."""
    import numpy as np

    import solvers
    from coupsolve import Rules, strategy
    from coupsolve.evaluation.brcheck import exact_best_responses
    from coupsolve.plan import Options, choose
    from coupsolve.plan.options import ALGORITHM, solve_threads

    rules = Rules.two_player_selection(turn_limit=turn_limit, limit_payoff=payoff)
    threads = solve_threads(None)[0]  # as coupsolve solve: the cores available
    shape = "pieces" if turn_limit >= 4 else "public"  # a public tree: its information sets' keys
    plan = choose(rules, Options(representation=shape, threads=threads), print)
    tree, analysed = plan.build(print)
    result = solvers.solve(tree, ALGORITHM, target_exploitability=target, precision=plan.precision,
                           threads=threads, say=print)
    strategy.record(result, plan, analysed)
    result.save(path)
    result.current_policy = None  # not checked: let go before the best responses
    print(f"strategy saved to {path}: {result.iterations} iterations, exploitability "
          f"{result.exploitability:.3g}")
    if result.infoset_hash is None:  # a whole public tree: its keys are the tree's
        result.infoset_hash = np.asarray(analysed.infoset_hash)
    result.infoset_hash = np.array(result.infoset_hash)  # out of the build's files
    rep = solvers.Solver(tree, "cfr+", precision=plan.precision, threads=threads).representation
    return rules, result, exact_best_responses(rep, result.average_policy, print)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("strategy", help="a strategy file written by coupsolve solve (with --solve: written here)")
    p.add_argument("--solve", action="store_true", help="solve first, on the tree the check uses")
    p.add_argument("--turn-limit", type=int, default=4, help="with --solve")
    p.add_argument("--limit-payoff", default="draw", choices=("draw", "influence"), help="with --solve")
    p.add_argument("--target-exploitability", type=float, default=1e-3, help="with --solve")
    p.add_argument("--games", type=int, default=40_000, help="games per seat")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seat", type=int, choices=(0, 1), help="play only this seat's best response")
    p.add_argument("--keep-best", metavar="FILE", help="keep the exact best responses in FILE (.npz)")
    p.add_argument("--best", metavar="FILE", help="read the exact best responses from FILE (written by "
                   "--keep-best for this strategy) instead of computing them")
    p.add_argument("--out", help="the JSON report (default: examples/report/tl<k>_<payoff>_check.json)")
    a = p.parse_args(argv)
    if a.best and (a.solve or a.keep_best):
        p.error("--best reads kept best responses: not with --solve or --keep-best")
    try:
        return check(a)
    except ValueError as e:  # a strategy or best-response file that cannot be used (StrategyError too)
        print(f"best_response_check: {e}", file=sys.stderr)
        return 2


def best_responses(a):
    """``(rules, result, best)``: the strategy and its exact best responses, solved, computed or read
    as the options say (kept when ``--keep-best`` asks)."""
    from coupsolve.evaluation.brcheck import load_best_responses, save_best_responses
    from coupsolve.strategy import load_solved

    if a.solve:
        rules, result, best = solve_and_exact(a.strategy, a.turn_limit, a.limit_payoff,
                                              a.target_exploitability)
    else:
        rules, tree, result = load_solved(a.strategy, print)
        result.current_policy = None  # not checked: let go before the rebuild
        if tree is not None:  # a whole public tree: its keys are the tree's (the games look them up)
            result.infoset_hash = tree.infoset_hash
        if a.best:
            best = load_best_responses(a.best, result.average_policy, len(result.infoset_num_actions))
            print(f"best responses read from {a.best}")
        else:
            best = exact(a.strategy, rules, tree, result)
        del tree
    if a.keep_best:
        save_best_responses(a.keep_best, best, result.average_policy, os.path.basename(a.strategy))
        print(f"best responses kept in {a.keep_best}")
    return rules, result, best


def check(a):
    from coupsolve.evaluation.brcheck import check_by_play
    from coupsolve.openspiel.game import load_game
    from coupsolve.openspiel.policy import PublicTreePolicy

    began = time.perf_counter()
    rules, result, best = best_responses(a)
    built = time.perf_counter() - began
    value0 = float(result.game_value[0])
    strategy = PublicTreePolicy.of_result(load_game(rules), rules, result)
    for seat, (value, _) in enumerate(best):
        print(f"seat {seat}: exact best-response value {value:+.6f}")
    seats = (0, 1) if a.seat is None else (a.seat,)
    checks = check_by_play(strategy, best, value0, a.games, a.seed, print, seats)
    for c in checks:
        print(f"seat {c.seat}: exact best response {c.exact:+.6f} (gain {c.gain:.6f}); played "
              f"{c.mean:+.6f} +- {c.half_width:.6f} (99%, {c.games:,} games): "
              f"{'inside' if c.holds else 'OUTSIDE'} the interval")
    doc = {"rules": rules.to_dict(), "strategy": os.path.basename(a.strategy),
           "algorithm": result.algorithm, "iterations": int(result.iterations),
           "exploitability": float(result.curve_exploitability[-1]), "value0": value0,
           "exact_seconds": round(built, 1), "best_read_from": a.best and os.path.basename(a.best),
           "seconds": round(time.perf_counter() - began, 1),
           "seats": [c.to_dict() for c in checks]}
    out = a.out or os.path.join(HERE, "report", f"tl{rules.turn_limit}_{rules.limit_payoff}_check.json")
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {out}")
    return 0 if all(c.holds for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
