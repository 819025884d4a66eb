"""How often should you bluff the Duke with 3, 4 or 6 players, in games played to the end?

Trains a strategy for each number of players by Monte Carlo CFR over the engine (probing and the
"features" information sets by default: external sampling and exact information sets do not reach a
full-length game, and outcome sampling's importance weights drown what it learns there), then estimates its bluff and challenge table from seeded self-play, each rate
with its 95% interval (Wilson for the rates, normal for the claims per game). The features are an
imperfect-recall abstraction: there is no equilibrium guarantee, and a strategy trained for minutes is
far from converged, so these are the rates of that strategy, measured with their sampling error.

Run: python examples/multiplayer_bluff.py [--players 3 4 6] [--minutes 2] [--seed 0] [--games 1000]
                                          [--sampling probe|outcome|external] [--abstraction features|exact]
                                          [--turn-limit 100] [--max-infosets N]
"""

import argparse

from coupsolve import Rules, load_game, sampling_game
from coupsolve.analysis.sampled import sampled_analysis
from solvers.mccfr.solver import MCCFRSolver, train
from solvers.mccfr.policy import SampledPolicy


def bluff_table(players, minutes, seed, games, sampling, abstraction, turn_limit, max_infosets):
    """Train ``players``-player Coup for ``minutes`` and return ``(solver, sampled analysis)``."""
    rules = Rules.standard(players=players, turn_limit=turn_limit)
    solver = MCCFRSolver(sampling_game(rules, abstraction=abstraction), max_infosets=max_infosets,
                         max_actions=8 * max_infosets, sampling=sampling, seed=seed)
    compiling = solver.step(0)  # compile (or load) the kernel outside the time budget
    solver.seconds -= compiling
    start = solver.seconds
    # in slices of 5 s, stopping before the table fills (a full table stops a run mid-iteration)
    while solver.seconds - start < 60.0 * minutes and solver.num_infosets < 0.9 * max_infosets:
        train(solver, seconds=min(5.0, 60.0 * minutes - (solver.seconds - start)), progress=False)
    game = load_game(rules)
    title = f"{players} players, {solver.iterations:,} iterations"
    return solver, sampled_analysis(game, SampledPolicy(solver, game), games=games, seed=seed,
                                    meta={"title": title})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 6])
    parser.add_argument("--minutes", type=float, default=2.0, help="training per number of players")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=1000, help="self-play games behind each table")
    parser.add_argument("--sampling", choices=["probe", "outcome", "external"], default="probe")
    parser.add_argument("--abstraction", choices=["features", "exact"], default="features")
    parser.add_argument("--turn-limit", type=int, default=100, help="100: played to the end")
    parser.add_argument("--max-infosets", type=int, default=1 << 22,
                        help="room for information sets (and 8 actions each): about 1 GiB")
    args = parser.parse_args(argv)
    for n in args.players:
        solver, a = bluff_table(n, args.minutes, args.seed, args.games, args.sampling, args.abstraction,
                                args.turn_limit, args.max_infosets)
        duke = next(s for s in a.claims if s.claim == "Tax")
        print(f"\n=== {n} players: {solver.iterations:,} iterations in {solver.seconds:.0f} s, "
              f"{solver.num_infosets:,} information sets ({args.sampling} sampling, {args.abstraction}) ===")
        print(f"Duke (Tax) bluff rate: {100 * duke.bluff.value:.1f}% "
              f"[{100 * duke.bluff.low:.1f}-{100 * duke.bluff.high:.1f}] from {duke.bluff.events:,} claims, "
              f"{duke.made.value:.2f} claims a game")
        print(a.to_table())


if __name__ == "__main__":
    main()
