"""The re-solving player's time per move (``coupsolve.search``): what a move of ``play --search K`` costs.

The shipped blueprint plays itself for a few seeded games; every decision met with more than one legal
move is then re-solved (``coupsolve.search.resolve``, default settings but the lookahead and the
threads), one after another. The first re-solve compiles (first run only) and is timed apart, as are
the openings' solves (two turns ahead or more, one per seat: ``coupsolve.search.opening``); the
table counts the moves played from the opening and those that looked as far ahead as asked
(``SearchSettings.most_histories`` shortens the others), and gives the median and 95th percentile of
the rest, each stage's median (finding the root and its ranges, the tree, the leaves' rollouts, with
``--safe`` the gadget's values, the solve), the largest root met, the solver's iterations and what
they buy: the exploitability of each re-solve's own solve in the subgame it solved (the depth-limited
game, held to the opponent model where it is on), in the game's payoff units. The budget the issue
sets is 2 s median and 5 s at the 95th percentile, two turns ahead, on this machine.

With ``--seeds N`` (N > 1) every move is also re-solved under N - 1 more rollout seeds, and the table
gives how far the move played moves with the seed: the total variation distance between the
re-solves' distributions over the legal actions, averaged over pairs of seeds (its mean over the
moves, and the share of moves where it passes 0.3). A move the rollouts' noise chooses moves with the
seed; one the game chooses does not (up to ties between equally good moves, which also move it).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from .common import bench_parser, load_average, machine_line, print_table, timed_main, write_csv


def decisions(games, seed):
    """The histories of the decisions with a choice in ``games`` games of the blueprint against itself."""
    from coupsolve.evaluation.arena import play_one
    from coupsolve.strategy import load

    loaded = load("blueprint")
    game = loaded.game()
    policy = loaded.policy(game)
    out = []

    def visit(state):
        if len(state.legal_actions()) > 1:
            out.append(list(state.history()))

    rng = np.random.default_rng(seed)
    for _ in range(games):
        play_one(game, [policy, policy], rng, visit=visit)
    return out


#: The stages of a re-solve timed apart (``Resolution.seconds``; "gadget" with ``--safe`` only).
STAGES = ("root", "tree", "leaves", "gadget", "solve")


def _parser():
    from coupsolve.search.resolve import ROOTS, SAFE

    parser = bench_parser("resolve", __doc__, "one game, lookahead 1 only")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--lookahead", type=int, action="append", default=None,
                        help="turns ahead (repeat for several; default 1, and 2 unless --quick)")
    parser.add_argument("--threads", type=int, default=1, help="rollout threads")
    parser.add_argument("--most", type=int, default=None, help="re-solve at most this many decisions")
    parser.add_argument("--seeds", type=int, default=1, help="rollout seeds per move (module docstring)")
    parser.add_argument("--root", choices=ROOTS, default=ROOTS[0],
                        help="where the re-solves are rooted (coupsolve.search.SearchSettings.root)")
    parser.add_argument("--safe", nargs="?", const="blueprint", default=False, choices=[k for k in SAFE if k],
                        help="with the gadget, its weights (coupsolve.search.SearchSettings.safe)")
    return parser


def spread(distributions):
    """The total variation distance between ``{action: probability}`` distributions, averaged over
    their pairs (0 for fewer than two)."""
    pairs = [(a, b) for i, a in enumerate(distributions) for b in distributions[:i]]
    if not pairs:
        return 0.0
    return float(np.mean([sum(abs(a.get(x, 0.0) - b.get(x, 0.0)) for x in set(a) | set(b)) / 2 for a, b in pairs]))


def run(args, info):
    """Re-solve every decision of the seeded games at each lookahead; print the table; the CSV's path."""
    from coupsolve.search import Blueprint, SearchSettings, resolve
    from coupsolve.search.resolve import solve_opening

    blueprint = Blueprint.load("blueprint")
    histories = decisions(1 if args.quick else args.games, args.seed)[:args.most]
    rows, csv_rows = [], []
    for k in args.lookahead or ((1,) if args.quick else (1, 2)):
        settings = SearchSettings(lookahead=k, threads=args.threads, root=args.root, safe=args.safe)
        t = time.perf_counter()
        for seat in (0, 1) if k > 1 and settings.opening else ():
            solve_opening(blueprint, settings, seat)
        openings = time.perf_counter() - t
        t = time.perf_counter()
        resolve(blueprint, histories[0], settings)
        first = time.perf_counter() - t
        seconds, stages, largest, tv, ahead, opened, gaps = [], [], (0, 0), [], [], [], []
        for i, history in enumerate(histories[1:]):
            t = time.perf_counter()
            r = resolve(blueprint, history, settings)
            seconds.append(time.perf_counter() - t)
            stages.append(r.seconds)
            ahead.append(r.lookahead)
            opened.append(r.opening)
            if not r.opening:
                gaps.append(float(r.result.exploitability))
            others = [resolve(blueprint, history, settings._replace(seed=seed)) for seed in range(1, args.seeds)]
            tv.append(spread([r.probabilities] + [o.probabilities for o in others]))
            largest = max(largest, r.root.num_private)
            print(f"lookahead {k}, move {i + 1}/{len(histories) - 1}: {seconds[-1]:.2f} s", file=sys.stderr,
                  flush=True)
            csv_rows.append(dict(lookahead=k, move=i + 1, seconds=seconds[-1], private0=r.root.num_private[0],
                                 private1=r.root.num_private[1], seed_tv=tv[-1], looked=r.lookahead,
                                 opening=int(r.opening), exploitability="" if r.opening else gaps[-1],
                                 **{f"{s}_seconds": v for s, v in r.seconds.items()}))
        s = np.asarray(seconds)
        med = {name: float(np.median([x.get(name, 0.0) for x in stages])) for name in STAGES}
        rows.append([f"{k}", f"{len(s)}", f"{first:.1f} s", f"{openings:.1f} s" if k > 1 else "",
                     f"{sum(opened)}", f"{sum(a == k for a in ahead)}", f"{np.median(s):.2f} s",
                     f"{np.percentile(s, 95):.2f} s", f"{s.max():.2f} s"] + [f"{med[n]:.2f} s" for n in STAGES]
                    + [f"{largest[0]} x {largest[1]}", f"{settings.iterations}",
                       f"{np.median(gaps):.2e} / {np.percentile(gaps, 95):.2e}" if gaps else ""]
                    + ([f"{np.mean(tv):.3f} ({np.mean(np.asarray(tv) > 0.3):.0%} > 0.3)"] if args.seeds > 1 else []))
    print_table("The re-solving player's seconds per move (shipped blueprint, default settings)",
                ["turns ahead", "moves", "first (compiles)", "openings", "from the opening",
                 "looked that far", "median", "95th pct", "max", *STAGES, "largest root", "iterations",
                 "subgame exploitability (median / 95th pct)"]
                + (["move's TV between seeds"] if args.seeds > 1 else []), rows,
                note=f"{machine_line(info)}; {args.threads} rollout thread(s); rooted {args.root}"
                     f"{f', safe ({args.safe})' if args.safe else ''}; "
                     f"load average {load_average():.2f}")
    return write_csv("resolve", csv_rows, info)


def main(argv=None):
    timed_main(_parser(), argv, run)


if __name__ == "__main__":
    main()
