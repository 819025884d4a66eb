"""Which card-choice probabilities the equilibrium determines: their interval over every
epsilon-equilibrium of Coup (selection setup) beside the CFR+ value and the MMD (QRE-selected) value.

For each turn limit: build the history tree, solve it with ``cfr+`` to exploitability ``--epsilon``
and with ``mmd`` (:mod:`solvers.cfr.mmd`, the uniform magnet annealed to ``0.02 max|A|``), then for
each seat's card choice (the first decision of each seat, a root information set: a linear function
of one sequence form) the minimum and maximum over all profiles of exploitability at most
``--epsilon`` (:class:`solvers.history.intervals.EquilibriumPolytope`, HiGHS). A probability whose
interval is narrower than 2 points is *determined*. Rates weighted by both players' reach (the
bluff and challenge rates) are bilinear in the two sequence forms and get no interval here; the
second table gives them under both solves, and when both solves are epsilon-equilibria a difference
of more than 2 points between them proves the rate is not determined (the converse does not hold).
"""

from __future__ import annotations

import sys
import time

from .common import bench_parser, load_average, machine_info, machine_line, print_table, write_csv

DETERMINED = 0.02


def _parser():
    parser = bench_parser("intervals", __doc__, "turn limit 1 only")
    parser.add_argument("--turn-limits", default="1,2", help="comma-separated (default: %(default)s)")
    parser.add_argument("--epsilon", type=float, default=1e-3,
                        help="exploitability bound of the equilibria (default: %(default)s)")
    parser.add_argument("--mmd-iterations", type=int, default=10_000)
    return parser


def _cards(tree, key):
    from coupsolve import engine as E
    from coupsolve.rules import CHARACTERS

    i = tree.infoset_index(key)
    o = int(tree.infoset_offset[i])
    return [(o + k, CHARACTERS[a - E.ACT_CHOOSE]) for k, a in enumerate(tree.actions(i))]


def _bluff_rows(coup_tree, turn_limit, cfr, mmd, epsilon, rows):
    """Each claim's bluff rate at turn 1 under both solves (claims made at least 0.01 times a game)."""
    from coupsolve.analysis import analyse

    both = [analyse(coup_tree, r.average_policy).by_turn.get(1, []) for r in (cfr, mmd)]
    proof = cfr.exploitability <= epsilon and mmd.exploitability <= epsilon
    for a, b in zip(*both):
        if not (a.made >= 0.01 and b.made >= 0.01):
            continue
        differ = abs(a.bluff - b.bluff) > DETERMINED
        verdict = ("not determined" if differ and proof else "differ" if differ else "agree")
        rows.append([turn_limit, a.claim, f"{a.made:.3f}", f"{a.bluff:.1%}", f"{b.bluff:.1%}",
                     verdict])


def _one(turn_limit, epsilon, mmd_iterations, rows, csv_rows, bluff_rows):
    import coupsolve
    import solvers
    from coupsolve.rules import Rules
    from solvers.history.intervals import EquilibriumPolytope

    coup_tree = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=turn_limit))
    tree = coup_tree.tree
    print(f"turn limit {turn_limit}: {tree.num_nodes:,} histories", file=sys.stderr, flush=True)
    cfr = solvers.solve(tree, "cfr+", target_exploitability=epsilon / 2, iterations=20_000,
                        check_every=10, progress=False)
    mmd = solvers.solve(tree, "mmd", iterations=mmd_iterations, check_every=mmd_iterations,
                        progress=False)
    began = time.perf_counter()
    polytope = EquilibriumPolytope(tree)
    built = time.perf_counter() - began
    for seat, key in ((0, "p0: "), (1, "p1: p0 chose a card")):
        for sequence, card in _cards(tree, key):
            began = time.perf_counter()
            low, high = polytope.interval({sequence: 1.0}, epsilon=epsilon)
            seconds = time.perf_counter() - began
            verdict = "determined" if high - low < DETERMINED else "not determined"
            rows.append([turn_limit, f"p{seat}", card, f"{cfr.average_policy[sequence]:.1%}",
                         f"{mmd.average_policy[sequence]:.1%}", f"[{low:.1%}, {high:.1%}]", verdict,
                         f"{seconds:.1f} s"])
            csv_rows.append(dict(turn_limit=turn_limit, seat=seat, card=card,
                                 cfr_plus=cfr.average_policy[sequence],
                                 mmd=mmd.average_policy[sequence], low=low, high=high,
                                 lp_seconds=seconds, polytope_seconds=built))
    _bluff_rows(coup_tree, turn_limit, cfr, mmd, epsilon, bluff_rows)
    print(f"turn limit {turn_limit}: cfr+ exploitability {cfr.exploitability:.2e} "
          f"({cfr.iterations} iterations), mmd {mmd.exploitability:.2e} ({mmd.iterations}); "
          f"LP built in {built:.1f} s", file=sys.stderr, flush=True)


def run(args, info):
    rows, csv_rows, bluff_rows = [], [], []
    limits = [1] if args.quick else [int(t) for t in args.turn_limits.split(",")]
    for turn_limit in limits:
        _one(turn_limit, args.epsilon, args.mmd_iterations, rows, csv_rows, bluff_rows)
    print_table(f"Card choice over the {args.epsilon:g}-equilibria",
                ["turn limit", "seat", "card", "CFR+", "MMD", "interval", "verdict", "LP"], rows,
                note=f"{machine_line(info)}; load average {load_average():.2f}")
    print_table("Turn-1 bluff rates under the CFR+ and the MMD solve",
                ["turn limit", "claim", "made (CFR+)", "CFR+", "MMD", "verdict"], bluff_rows)
    return write_csv("intervals", csv_rows, info)


def main(argv=None):
    args = _parser().parse_args(argv)
    info = machine_info()
    print(f"load average at start {load_average():.2f}")
    print(f"written: {run(args, info)}")


if __name__ == "__main__":
    main()
