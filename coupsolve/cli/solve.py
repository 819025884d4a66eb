"""``coupsolve info`` and ``coupsolve solve``: the options parsed into a plan's
(:class:`coupsolve.plan.Options`), the plan (:func:`coupsolve.plan.choose`: which tree, builder and
precision, decided once) and its figures printed, the tree built, solved with checkpoints, and the
strategy, its analysis, the plot and the JSON report written.

The order of a solve: check every output, then plan (saying so before each long step: compiling,
counting; a tree that cannot fit is refused within seconds), then the stopping rule in the plan's
precision, the build, the solve, the strategy file (recording the tree it was solved on:
:func:`coupsolve.strategy.record`), and the exact analysis (kept with a strategy solved in pieces).
"""

from __future__ import annotations

import sys
import time
import warnings

from coupsolve.cli.args import CliError, given, rules_of
from coupsolve.cli.checks import check_outputs, save_output, stopping_rule, target_warning
from coupsolve.cli.leaves import say_leaves


def plan_options(args):
    """The planner's options from the parsed ``args`` (``info`` has no solve options: the defaults)."""
    from coupsolve.plan import AUTO, Options
    from coupsolve.plan.options import ALGORITHM

    return Options(representation=args.representation, precision=getattr(args, "precision", AUTO),
                   max_memory=args.max_memory, threads=getattr(args, "threads", None),
                   algorithm=getattr(args, "algorithm", ALGORITHM),
                   updates=getattr(args, "updates", "alternating"), cache=not args.no_cache,
                   parts=args.pieces, ray=bool(getattr(args, "ray", None)))


def printer(out):
    """A ``say`` that prints each line to ``out`` at once."""
    return lambda line: print(line, file=out, flush=True)


def cmd_info(args) -> int:
    """``coupsolve info``: the history tree's size, and the public tree's with ``--representation
    public`` or ``pieces`` (:func:`coupsolve.plan.survey`)."""
    from coupsolve.plan import survey

    survey(rules_of(args), plan_options(args), printer(sys.stdout))
    return 0


def _ray_backend(args):
    """The Ray backend ``--ray`` asks for (None without it), connected: a one-line error if not."""
    if not getattr(args, "ray", None):
        return None
    if args.representation == "history":  # before connecting: a refusal starts no cluster
        raise CliError("--ray solves the public tree: drop --representation history")
    try:
        from solvers.pieces.ray import RayBackend

        backend = RayBackend(None if args.ray == "local" else args.ray, workers=args.ray_workers,
                             threads_per_worker=args.threads)
        backend.connect()
    except ImportError as e:
        raise CliError(f"--ray: {e}") from None
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise CliError(f"--ray {args.ray}: cannot connect to the Ray cluster ({e})") from None
    return backend


def _built_line(plan, tree, seconds):
    """The line said once the tree is built (the class walk counts no histories: bytes per
    information set)."""
    per = (f"{tree.nbytes / plan.size.nodes:.1f} bytes per history" if plan.tree == "history" else
           f"{tree.nbytes / tree.num_infosets:.1f} bytes per information set")
    what = "history tree" if plan.tree == "history" else f"public tree ({plan.builder.name})"
    return f"built the {what} in {seconds:.1f} s: {tree.num_infosets:,} information sets, {per}"


def _build(args, rules, options, asked, target, say, human):
    """``(plan, game, tree, analysed, precision, seconds)``: the depth-limited game of ``--leaves``
    (``plan`` None), else the tree the plan chooses (``game`` None), built and said."""
    from coupsolve import plan as planner

    if args.leaves:
        from coupsolve.depth.build import build

        t0 = time.perf_counter()
        ray = bool(getattr(args, "ray", None))  # a Ray cluster solves the public tree, cut into parts
        representation = "public" if ray and args.representation == "auto" else args.representation
        # the leaves are valued here, on this machine's cores, whatever each Ray worker's threads
        threads = planner.solve_threads(None)[0] if ray and not given(args, "threads") else args.threads
        game = build(rules, args.leaves, args.continuations, rollouts=args.rollouts, seed=args.seed, say=say,
                     representation=representation, threads=threads, cache=not args.no_cache,
                     max_memory=options.max_memory)
        seconds = time.perf_counter() - t0
        print(f"built the depth-limited tree in {seconds:.1f} s: {game.describe()}", file=human)
        return None, game, game.tree, game.coup_tree, "float64", seconds
    plan = planner.choose(rules, options, say)
    if plan.precision != asked:  # auto, and a tree in pieces
        target_warning(args, rules, target, plan.precision, human)
    t0 = time.perf_counter()
    tree, analysed = plan.build(say)
    compiling = (getattr(analysed, "build_info", None) or {}).get("compile_seconds", 0.0)
    seconds = time.perf_counter() - t0 - compiling  # compile time is said apart
    if compiling >= 1.0:
        say(f"compiled the tree builder in {compiling:.1f} s (first run only)")
    print(_built_line(plan, tree, seconds), file=human)
    return plan, None, tree, analysed, plan.precision, seconds


def cmd_solve(args) -> int:
    """``coupsolve solve`` (and ``demo``)."""
    import solvers
    from solvers.memory import release_free_memory

    from coupsolve import plan as planner
    from coupsolve import strategy
    from coupsolve.analysis import analyse
    from coupsolve.cli.report import present, title

    check_outputs(args)
    rules = rules_of(args)
    if getattr(args, "selection", False):
        from coupsolve.analysis.selection import check_rules

        check_rules(rules)
    threads, why = planner.solve_threads(args.threads, ray=bool(getattr(args, "ray", None)))
    args.threads = solvers.check_threads(threads)  # before the build, not after it
    options = plan_options(args)  # its refusals before a Ray cluster is started
    backend = _ray_backend(args)  # connected before the build
    human = sys.stderr if args.json == "-" else sys.stdout
    say = printer(human)
    say(f"threads: {threads} ({why}{'' if why == '--threads' else '; --threads N sets them'})")
    asked = planner.asked_precision(options)
    iterations, target = stopping_rule(args, rules, asked, human)  # up front, before any count
    resumed = 0 if args.resume is None else strategy.resume_iterations(args.resume, rules)
    plan, game, tree, analysed, precision, build_s = _build(args, rules, options, asked, target, say, human)
    if resumed:
        print(f"resuming {args.resume} at iteration {resumed:,}", file=human)
    checkpoint = args.checkpoint or args.resume
    with warnings.catch_warnings():  # the target's reach was told up front (stopping_rule)
        warnings.filterwarnings("ignore", message="target_exploitability=")
        result = solvers.solve(
            tree, algorithm=None if args.resume else args.algorithm, iterations=iterations,
            target_exploitability=target, seed=None if args.resume else args.seed,
            check_every=args.check_every, progress=not args.no_progress, precision=precision,
            updates=args.updates, threads=args.threads, checkpoint=checkpoint, resume=args.resume,
            checkpoint_every=args.checkpoint_every if checkpoint else None, backend=backend, say=say)
    if args.leaves:
        from coupsolve.depth.build import record

        record(result, game, args.leaves, args.rollouts, args.seed)  # where its leaves came from
        say_leaves(game, result, human)
    else:
        strategy.record(result, plan, analysed)  # which tree analyse and play rebuild
    status = " (interrupted: the last complete iteration is kept)" if result.interrupted else ""
    print(f"\n{result.algorithm}: {result.iterations:,} iterations in {result.seconds:.1f} s{status}; "
          f"exploitability {result.exploitability:.3g}", file=human)
    if args.out:
        save_output("--out", args.out, result.save)
        print(f"strategy saved to {args.out}", file=human)
    if checkpoint:
        print(f"checkpoint saved to {checkpoint} (continue with --resume {checkpoint})", file=human)
    infosets, meta = tree.num_infosets, {"title": title(rules, result)}
    if plan is not None and plan.tree == "pieces":  # on the pieces, once the solver's state, the saved current policy
        result.tree = result.current_policy = None  # and the keys' pages the save read are let go
        result.infoset_hash, analysed = None, analysed._replace(infoset_hash=None)
        release_free_memory()
        pieces, tree, analysed = (tree, analysed), None, None
        analysis = strategy.analyse_and_keep(pieces, result, meta, say, store=args.out)
        del pieces
    else:
        print("analysing the strategy ...", file=human, flush=True)
        analysis = analyse(analysed, result.average_policy, meta=meta)
    chosen = None
    if getattr(args, "selection", False):
        from coupsolve.analysis.selection import selection

        print("comparing the rates under CFR+, MMD and the epsilon-equilibria ...", file=human, flush=True)
        chosen = selection(rules, say=lambda line: print(f"  {line}", file=human, flush=True))
    present(analysis, result, rules, args, human, selection=chosen,
            histories=tree.num_nodes if plan is None else plan.histories,
            infosets=infosets, build_seconds=build_s)
    return 130 if result.interrupted else 0
