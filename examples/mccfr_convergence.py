"""Measured strength of sampled strategies: MCCFR's average strategy against exact CFR+ on whole trees.

Two players, turn limits 1 and 2 (card-selection setup, influence payoff): the exact exploitability of
external- and outcome-sampling MCCFR and of CFR+, after a schedule of iterations; and of probing MCCFR
over the features abstraction (the full-length blueprint's keys, imperfect recall), with and without
the honest bot's warm start, read onto the same tree (``--features``). Three players at
turn limit 1 (a Duke+Captain+Contessa deck, two copies, influence payoff): the exact NashConv of
MCCFR's average (CFR+ is two-player only). Prints one table and saves a log-log plot of the strength
against the seconds spent iterating.

Run: python examples/mccfr_convergence.py [--turn-limit-3] [--features] [--plot FILE] [--seed N]
``--turn-limit-3`` adds turn limit 3, whose tree takes about 8 GiB to build. ``--features`` adds the
features curves, which run longer schedules (``FEATURES_SCHEDULE``).
"""

import argparse
import time

import coupsolve
from coupsolve import Rules
from coupsolve.sampling.game import sampling_game
from coupsolve.sampling.keys import KEY_VERSION
from solvers.cfr.convergence import cfr_curve, format_rows, mccfr_curve

MCCFR_SCHEDULE = [10, 30, 100, 300, 1000, 3000, 10000]
FEATURES_SCHEDULE = [1000, 10000, 100000, 300000, 1000000]
#: The warm starts of the features curves: none, and the shipped blueprint's.
WARM_STARTS = (0.0, 10.0)
CFR_SCHEDULE = [1, 3, 10, 30, 100, 300, 1000]


def cases(turn_limit_3):
    """(label, rules, whether CFR+ runs) of every measured game."""
    limits = [1, 2] + ([3] if turn_limit_3 else [])
    out = [(f"2p TL{t}", Rules.two_player_selection(turn_limit=t, limit_payoff="influence"), True)
           for t in limits]
    out.append(("3p TL1", Rules.standard(players=3, turn_limit=1, characters="Duke+Captain+Contessa",
                                         copies=2, limit_payoff="influence"), False))
    return out


def features_curves(rules, tree, seed):
    """Probing MCCFR over the features abstraction, one curve per warm start, each named for it; the
    table has room for every key the sampling can make (imperfect recall: fewer than the tree's sets)."""
    curves = []
    for warm in WARM_STARTS:
        game = sampling_game(rules, abstraction="features", warm_start=warm)
        rows = mccfr_curve(game, tree, FEATURES_SCHEDULE, seed=seed, sampling="probe", max_infosets=1 << 20)
        name = f"features-v{KEY_VERSION}" + (f" warm {warm:g}" if warm else "")
        curves.append([r._replace(solver=name) for r in rows])
    return curves


def measure(label, rules, with_cfr, seed, features=False):
    """Every curve of one game, each row labelled with the game."""
    began = time.perf_counter()
    tree = coupsolve.build_tree(rules)
    print(f"{label}: {tree.num_nodes:,} histories, {tree.num_infosets:,} information sets "
          f"(built in {time.perf_counter() - began:.1f} s)", flush=True)
    game = sampling_game(rules)
    curves = [mccfr_curve(game, tree, MCCFR_SCHEDULE, seed=seed, sampling=s)
              for s in ("external", "outcome")]
    if with_cfr:
        curves.append(cfr_curve(tree, CFR_SCHEDULE))
    if features and rules.players == 2:
        curves += features_curves(rules, tree, seed)
    for rows in curves:
        print(format_rows(rows), flush=True)
    return [(label, rows) for rows in curves]


def plot(curves, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = sorted({label for label, _ in curves})
    fig, axes = plt.subplots(1, len(labels), figsize=(4.5 * len(labels), 4), squeeze=False)
    for ax, label in zip(axes[0], labels):
        mine = [rows for game_label, rows in curves if game_label == label]
        for rows in mine:
            ax.loglog([max(r.seconds, 1e-6) for r in rows], [max(r.value, 1e-12) for r in rows],
                      marker="o", label=rows[0].solver)
        ax.set_title(label)
        ax.set_xlabel("seconds iterating")
        exact = any(r.value <= 0.0 for rows in mine for r in rows)  # an exact equilibrium: 0
        ax.set_ylabel(mine[0][0].measure + (" (0 drawn at 1e-12)" if exact else ""))
        ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot saved to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turn-limit-3", action="store_true", help="also turn limit 3 (8 GiB)")
    parser.add_argument("--features", action="store_true",
                        help="also probing MCCFR over the features abstraction (two players)")
    parser.add_argument("--plot", default="mccfr_convergence.png", help="where to save the plot")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    curves = []
    for label, rules, with_cfr in cases(args.turn_limit_3):
        curves += measure(label, rules, with_cfr, args.seed, args.features)
    plot(curves, args.plot)


if __name__ == "__main__":
    main()
