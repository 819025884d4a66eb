"""``coupsolve train``: a strategy for 2 to 6 players by Monte Carlo CFR, and its files.

A run makes the rules as ``solve`` does (plus ``--players``; played to the end unless ``--turn-limit``),
binds them for :class:`solvers.MCCFRSolver` (:func:`coupsolve.sampling_game`), sizes the information-set
table from ``--max-infosets`` or ``--max-memory`` and checks it before allocating, then trains for
``--iterations`` (in all) or ``--minutes`` with :func:`solvers.mccfr.solver.train` (progress bar, Ctrl-C keeps the
finished iterations, ``--checkpoint`` every ``--checkpoint-minutes``, ``--resume``), writes ``--out`` and
prints the bluff table estimated from ``--games`` self-play games (:mod:`coupsolve.analysis.sampled`).

The game, the solver (new or resumed, with its checks), the table's size and the strategy file's format
are the library's (:mod:`coupsolve.strategy.trained`); this module parses, calls it and prints.
"""

from __future__ import annotations

import sys

from coupsolve.cli.args import CliError, command_line, rules_of
from coupsolve.cli.checks import check_outputs, save_output
from coupsolve.cli.solve import printer


def present_sampled(rules, solver, meta, args, human=None):
    """Estimate the bluff table of the strategy from ``args.games`` games (seed ``args.seed``), print it,
    draw ``args.plot`` and write ``args.json`` (the provenance and the table)."""
    from coupsolve.analysis.sampled import sampled_analysis
    from coupsolve.cli.report import rules_title, write_json
    from coupsolve.openspiel.game import load_game
    from coupsolve.strategy.trained import describe, trained_policy

    human = sys.stdout if human is None else human
    game = load_game(rules)
    print(f"estimating the bluff table from {args.games:,} self-play games (seed {args.seed}) ...",
          file=human, flush=True)
    analysis = sampled_analysis(game, trained_policy(solver, game, meta), games=args.games, seed=args.seed,
                                meta={"title": f"{rules_title(rules)} - {describe(meta)}"})
    print(analysis.to_table(), file=human)
    if args.plot:
        analysis.plot(args.plot)
        print(f"plot written to {args.plot}", file=human)
    if args.json:
        keep = ("game_id", "seed", "regret", "average", "iterations", "seconds", "sampling", "abstraction",
                "players", "interrupted", "infosets", "version")
        write_json({**{k: meta.get(k) for k in keep}, "rules": rules.to_dict(),
                    "bluff": analysis.to_dict()["claims"], "analysis": analysis.to_dict()}, args.json, human)
    return analysis


def cmd_train(args) -> int:
    """``coupsolve train``."""
    from solvers.mccfr.solver import TableFull, train

    from coupsolve.plan.training import choose_training
    from coupsolve.strategy.trained import field_words, key_of, make_game, make_solver, save_trained, warm_up

    check_outputs(args)
    if args.iterations is None and args.minutes is None:
        raise CliError("give --iterations N, --minutes M or both; otherwise training would never stop")
    rules = rules_of(args)
    chosen = choose_training(rules, args.sampling, args.abstraction, room=args.max_infosets or 1 << 20,
                             resume=args.resume)
    args.sampling, args.abstraction = chosen.sampling, chosen.abstraction
    if args.sampling == "probe" and args.abstraction != "features":
        raise CliError("--sampling probe is bound to the features information sets: add --abstraction "
                       "features")
    human = sys.stderr if args.json == "-" else sys.stdout
    for name, value, default in (("--warm-start", args.warm_start, 0.0), ("--explore", args.explore, 1.0)):
        if value != default and args.sampling != "probe":
            raise CliError(f"{name} is probing's: add --sampling probe (not {args.sampling})")
    if args.threads > 1 and (args.sampling, args.abstraction) != ("external", "exact"):
        raise CliError(f"--threads runs external sampling over exact information sets only, not "
                       f"{args.sampling} sampling over {args.abstraction} ones: drop --threads")
    game = make_game(rules, args.abstraction, args.field, args.warm_start)
    solver = make_solver(game, resume=args.resume, max_infosets=args.max_infosets,
                         max_memory=args.max_memory, threads=args.threads, regret=args.regret,
                         average=args.average, seed=args.seed, sampling=args.sampling,
                         abstraction=args.abstraction, field=args.field, warm_start=args.warm_start,
                         explore=args.explore)
    print(f"training {rules}: MCCFR, {args.sampling} sampling, {args.abstraction} information sets"
          + ("" if chosen.why == "as given" else f" ({chosen.why})") + ", "
          f"room for {solver.max_infosets:,} information sets ({solver.bytes / 2**20:,.0f} MiB), "
          f"seed {solver.seed}" + (f", {solver.threads} threads in batches of {solver.batch} "
                                   f"iterations each" if solver.batch else "")
          + (f", resumed at iteration {solver.iterations:,}" if args.resume else "")
          + field_words(args.field, args.warm_start, args.explore),
          file=human, flush=True)
    warm_up(solver, printer(human))
    checkpoint = args.checkpoint or args.resume
    try:
        interrupted = train(solver, iterations=args.iterations,
                            seconds=None if args.minutes is None else 60.0 * args.minutes,
                            progress=not args.no_progress, checkpoint=checkpoint,
                            checkpoint_seconds=60.0 * args.checkpoint_minutes if checkpoint else None)
    except TableFull as e:
        raise CliError(f"{e} (here: --max-infosets or --max-memory; resume the last checkpoint with a "
                       "larger table)") from None
    status = " (interrupted: every finished iteration is kept)" if interrupted else ""
    print(f"{solver.iterations:,} iterations in {solver.seconds:.1f} s{status}; "
          f"{solver.num_infosets:,} information sets", file=human)
    if args.out:
        meta = save_output("--out", args.out, lambda path: save_trained(
            solver, path, rules, args.abstraction, args.sampling, interrupted, args.field,
            command=command_line(args)))
        print(f"strategy saved to {args.out}", file=human)
    else:
        meta = {"game_id": game.game_id, "regret": solver.regret, "average": solver.average,
                "seed": solver.seed, "iterations": solver.iterations, "seconds": solver.seconds,
                "sampling": args.sampling, "abstraction": args.abstraction, "players": rules.players,
                "interrupted": interrupted, "infosets": solver.num_infosets, "field": args.field,
                "warm_start": args.warm_start, "explore": solver.explore}
    if checkpoint:
        print(f"checkpoint saved to {checkpoint} (continue with --resume {checkpoint})", file=human)
    args.seed = solver.seed
    if args.field or args.warm_start:  # it plays OpenSpiel games: the plain game's keys (no draws)
        solver.game = make_game(rules, args.abstraction, key=key_of(game))
    present_sampled(rules, solver, meta, args, human)
    return 130 if interrupted else 0
