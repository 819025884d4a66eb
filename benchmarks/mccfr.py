"""External-sampling MCCFR: coupsolve's compiled kernel against OpenSpiel's Python solver, same game.

For each game (two and four players at the longest turn limits whose tables fit in about 2 GiB over
the run: a full-length game's single iteration walks millions of information sets, since external
sampling walks every action of the updated player), both solvers run on the same ``python_coup`` game
for a fixed wall time (OpenSpiel's ``OPENSPIEL_FACTOR`` times coupsolve's, as its rate is the noisier),
after one warm-up iteration (coupsolve compiles or loads its cache there);
the table gives iterations per second and their ratio. OpenSpiel warms up with one iteration too
(the compiled engine behind ``python_coup`` loads there). OpenSpiel's solver always finishes the
iteration it is in, so its rate is its whole iterations over their time. coupsolve runs on one thread
(the serial solver, OpenSpiel's algorithm) and on ``THREADS`` (two workers in deterministic batches,
:mod:`solvers.mccfr.batch`), against the same OpenSpiel figure. Then two-player turn limit 2 is
trained for ``--seconds`` (external sampling with RM and RM+, on one thread and on two; outcome
sampling with RM) and its exact exploitability computed on the history tree.

Run ``python -m benchmarks.mccfr`` (``--quick`` for shorter runs); writes ``results/mccfr.csv``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from .common import machine_info, machine_line, print_table, versions_line, write_csv

#: (players, turn limit) of the speed comparison.
GAMES = ((2, 2), (4, 2), (2, 4), (4, 4))
TABLE_INFOSETS = 16_000_000  # about 2 GiB with the default room for actions
THREADS = 2  # the workers of the threaded rows (this machine's cores)
#: OpenSpiel runs this many times coupsolve's wall time: its iterations vary widely in length (20 s
#: at turn limit 4 were 60 to 80 of them), and its rate moved by a quarter between runs.
OPENSPIEL_FACTOR = 3


def _ours(rules, seconds, threads):
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.solver import MCCFRSolver, TableFull

    solver = MCCFRSolver(sampling_game(rules), max_infosets=TABLE_INFOSETS, seed=0,
                         threads=threads)
    setup = solver.touch_pages()  # its page faults paid before the clock starts, reported apart
    solver.step(1)
    done, spent, chunk = 0, 0.0, 1
    try:
        while spent < seconds:
            before = solver.iterations
            elapsed = solver.step(chunk)  # with threads: whole batches, perhaps more than chunk
            spent, done = spent + elapsed, done + solver.iterations - before
            chunk = max(1, int(chunk * 0.2 / max(elapsed, 1e-9)))
    except TableFull:  # the chunk that filled the table is not counted
        pass
    return done, spent, solver.num_infosets, setup


def _openspiel(rules, seconds):
    from open_spiel.python.algorithms import external_sampling_mccfr as es

    import coupsolve

    np.random.seed(0)
    solver = es.ExternalSamplingSolver(coupsolve.load_game(rules))
    solver.iteration()  # warm-up: the engine behind python_coup compiles or loads its cache here
    began = time.perf_counter()
    done = 0
    while done == 0 or time.perf_counter() - began < seconds:
        solver.iteration()
        done += 1
    return done, time.perf_counter() - began


def speed(seconds):
    """Rows of the speed table: iterations per second of both solvers and the ratio."""
    import coupsolve

    rows = []
    for players, limit in GAMES:
        rules = coupsolve.Rules(players=players, turn_limit=limit)
        runs = [(threads, _ours(rules, seconds, threads)) for threads in (1, THREADS)]
        m, u = _openspiel(rules, OPENSPIEL_FACTOR * seconds)
        theirs = m / u
        for threads, (n, t, infosets, setup) in runs:
            rows.append({"players": players, "turn_limit": limit, "threads": threads,
                         "coupsolve_iterations": n, "coupsolve_seconds": round(t, 2),
                         "coupsolve_it_per_s": round(n / t, 1), "infosets": infosets,
                         "coupsolve_table_setup_seconds": round(setup, 2),
                         "openspiel_iterations": m, "openspiel_seconds": round(u, 2),
                         "openspiel_it_per_s": round(theirs, 4), "ratio": round(n / t / theirs)})
    return rows


def convergence(seconds):
    """Two players, turn limit 2: the exact exploitability after ``seconds`` of training."""
    import coupsolve
    import solvers
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.solver import MCCFRSolver, train
    from solvers.mccfr.policy import tree_policy

    rules = coupsolve.Rules(turn_limit=2)
    tree = coupsolve.build_tree(rules)
    rows = []
    for sampling, regret, average, threads in (
            ("external", "rm", "uniform", 1), ("external", "rm+", "linear", 1),
            ("external", "rm", "uniform", THREADS), ("external", "rm+", "linear", THREADS),
            ("outcome", "rm", "uniform", 1)):
        solver = MCCFRSolver(sampling_game(rules), max_infosets=2 * tree.num_infosets,
                             max_actions=2 * tree.num_actions, regret=regret, average=average, seed=0,
                             sampling=sampling, threads=threads)
        warm = solver.step(1)  # the kernel compiles (or loads its cache) here: not counted
        train(solver, seconds=seconds, progress=False)
        value = solvers.exploitability(tree, tree_policy(solver, tree))
        rows.append({"sampling": sampling, "regret": regret, "average": average, "threads": threads,
                     "iterations": solver.iterations,
                     "seconds": round(solver.seconds - warm, 1), "infosets": solver.num_infosets,
                     "tree_infosets": tree.num_infosets, "exploitability": value})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 s per solver, 10 s of training")
    parser.add_argument("--seconds", type=float, default=None,
                        help="training time for the turn-limit-2 exploitability (default 60)")
    args = parser.parse_args(argv)
    info = machine_info()
    per_solver = 5.0 if args.quick else 20.0
    train_seconds = args.seconds if args.seconds is not None else (10.0 if args.quick else 60.0)
    rows = speed(per_solver)
    print_table(f"External-sampling MCCFR, iterations per second (coupsolve {per_solver:g} s, "
                f"OpenSpiel {OPENSPIEL_FACTOR * per_solver:g} s)",
                ["players", "turn limit", "threads", "coupsolve it/s", "OpenSpiel it/s", "ratio",
                 "coupsolve infosets", "table set-up s"],
                [[r["players"], r["turn_limit"], r["threads"], r["coupsolve_it_per_s"],
                  r["openspiel_it_per_s"], f"{r['ratio']:,}", f"{r['infosets']:,}",
                  r["coupsolve_table_setup_seconds"]] for r in rows],
                note=f"{machine_line(info)}; {versions_line(info)}")
    conv = convergence(train_seconds)
    print_table(f"Two players, turn limit 2: exact exploitability after {train_seconds:g} s",
                ["sampling", "regret", "average", "threads", "iterations", "seconds",
                 "infosets visited", "exploitability"],
                [[r["sampling"], r["regret"], r["average"], r["threads"], f"{r['iterations']:,}",
                  r["seconds"],
                  f"{r['infosets']:,} of {r['tree_infosets']:,}", f"{r['exploitability']:.4g}"]
                 for r in conv])
    print("wrote", write_csv("mccfr", rows + conv, info))


if __name__ == "__main__":
    main()
