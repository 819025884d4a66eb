"""Tree sizes, per-iteration time and exploitability after N iterations for each algorithm.

Run: python examples/solver_table.py [--iterations 1000] [--coup-limits 1 2] [--timing-only-limits 3]

Kuhn, Leduc and Liar's Dice (one die each) come from OpenSpiel; Coup is the card-selection setup
built by the compiled builder. For the large Coup trees listed in --timing-only-limits only a few
iterations are timed (1000 iterations of turn limit 3 take over an hour per algorithm here).
"""

import argparse
import time

import pyspiel

import coupsolve
import solvers
from coupsolve import Rules


def build(name):
    t0 = time.perf_counter()
    if name.startswith("coup"):
        tree = coupsolve.build_tree(Rules.two_player_selection(turn_limit=int(name.rsplit("TL", 1)[1])))
    else:
        tree = solvers.GameTree.from_openspiel(pyspiel.load_game(name))
    return tree, time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--coup-limits", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--timing-only-limits", type=int, nargs="*", default=[])
    parser.add_argument("--timing-iterations", type=int, default=3)
    args = parser.parse_args()
    algos = sorted(solvers.ALGORITHMS)
    print("| game | histories | infosets | build s | bytes/history | "
          + " | ".join(f"{a} s/iter | {a} expl." for a in algos) + " |")
    print("|---|---|---|---|---|" + "---|---|" * len(algos))
    jobs = [(n, args.iterations) for n in ("kuhn_poker", "leduc_poker", "liars_dice(numdice=1)")]
    jobs += [(f"coup selection TL{limit}", args.iterations) for limit in args.coup_limits]
    jobs += [(f"coup selection TL{limit}", args.timing_iterations) for limit in args.timing_only_limits]
    for name, iters in jobs:
        tree, seconds = build(name)
        cells = []
        for algo in algos:
            solvers.solve(tree, algorithm=algo, iterations=1, progress=False)  # compile / warm up
            result = solvers.solve(tree, algorithm=algo, iterations=iters, check_every=iters, progress=False)
            expl = f"{result.exploitability:.2e}" + ("" if iters == args.iterations else f" ({iters} it.)")
            cells += [f"{result.seconds / iters:.3g}", expl]
        print(f"| {name} | {tree.num_nodes:,} | {tree.num_infosets:,} | {seconds:.2f} | "
              f"{tree.nbytes / tree.num_nodes:.1f} | " + " | ".join(cells) + " |", flush=True)
        del tree


if __name__ == "__main__":
    main()
