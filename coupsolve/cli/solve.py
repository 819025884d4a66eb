"""``coupsolve info`` and ``coupsolve solve``: size a tree on a memory budget, build it, solve it.

The order of a solve: check every output and the stopping rule, then (saying so before each long step)
compile, count the tree once with a budget of histories (so a tree that cannot fit is refused within
seconds of passing the budget, not after the whole count; a size known already, from the cache of
earlier counts or the table packaged with coupsolve, answers at once: :mod:`coupsolve.trees.sizecache`),
refuse it if its estimated peak does not fit, build it from that count, solve it with checkpoints,
then write the strategy, the analysis, the plot and the JSON report.

Which tree (:func:`choose_tree`, the one place that chooses): ``--representation history`` the history
tree; ``public`` the public tree (counted, with its memory, then built); ``auto`` the history tree when
it fits, else the public tree when the history tree is small enough for a public count to take
minutes (:data:`~coupsolve.cli.public.AUTO_PUBLIC_MAX_HISTORIES`, by the class walk
:data:`~coupsolve.cli.public.AUTO_CLASS_MAX_HISTORIES`), else a refusal that says what a public count
would cost.
The public tree is built by the class walk (:mod:`coupsolve.trees.classwalk.build`, which steps no history)
whenever it takes the rules, else by stepping every history (:mod:`coupsolve.trees.stepwalk.build`: marked
cards, the event mat); :func:`public_builder` chooses, and says which. The strategy file records the
tree it was solved on and, for a public tree, its builder (the two trees have the same information
sets in different layouts); ``analyse`` and ``play`` rebuild that one (:mod:`coupsolve.cli.strategy`).

When the whole public tree does not fit (turn limit 4), ``auto`` and ``public`` build it in pieces
(:class:`~coupsolve.trees.pieces.build.PiecesPlan`, cut where the count by parts cut; ``--representation
pieces`` asks for that directly, ``--pieces`` sets the number of parts): a trunk and parts held
apart and solved that way (:class:`solvers.PublicPieces`), then analysed exactly on them
(:mod:`coupsolve.analysis.pieces`). Its strategy file carries each information set's key
(``SolveResult.infoset_hash``), so ``play`` (and ``analyse --sampled``) read it without any tree, and
where the tree was cut (``options["pieces"]``: :meth:`~coupsolve.trees.pieces.build.PiecesPlan.record`), so
``analyse`` rebuilds the pieces, with no count, for the exact analysis.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

from coupsolve.cli.args import AUTO_PRECISION, CliError, rules_difference, rules_of, solve_precision
from coupsolve.cli.checks import check_outputs, save_output, stopping_rule
from coupsolve.cli.public import (AUTO_CLASS_MAX_HISTORIES, AUTO_PUBLIC_MAX_HISTORIES, _budget,
                         _build_pieces, _every, _fmt, _plan_pieces, _public_hint, builder_of,
                         measure_public, public_builder)


def compile_needed() -> bool:
    """Whether the tree builder's kernel is compiled neither in this process nor in numba's disk cache."""
    from coupsolve.trees.history.builder import _walk

    if _walk.signatures:
        return False
    cache = getattr(getattr(_walk, "_cache", None), "_cache_file", None)
    return not (cache is not None and os.path.exists(getattr(cache, "_index_path", "")))


def say_compiling(out):
    """Say so before the tree builder's kernel is compiled (by a count, or by a build from a cached one)."""
    if compile_needed():
        print("compiling the tree builder (first run only, about a minute) ...", file=out, flush=True)


def _too_large(at_least, budget, what, source):
    from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY as least

    return CliError(f"the tree has more than {at_least - 1:,} histories ({source}), so it needs more than "
                    f"{_fmt(at_least * least)} (at least {least} bytes a history), more than the "
                    f"{_fmt(budget)} {what}; try a lower --turn-limit")


def _count(rules, max_nodes, cache, out):
    """Count the tree of ``rules`` with a budget of ``max_nodes`` histories (None: none), saying so first;
    the count, or the lower bound its budget proved (``TreeTooLarge``), goes into the cache if ``cache``."""
    from coupsolve.trees import sizecache
    from coupsolve.trees.history.builder import count_tree
    from coupsolve.trees.history.size import TreeTooLarge

    say_compiling(out)
    print("counting the histories (Ctrl-C stops) ...", file=out, flush=True)
    report = _every(5.0, lambda n: n and print(f"  {n:,} histories so far", file=out, flush=True))
    try:
        size = count_tree(rules, max_nodes=max_nodes, progress=report)
    except TreeTooLarge as e:
        if cache:
            sizecache.remember(rules, at_least=e.at_least)
        raise
    if cache:
        sizecache.remember(rules, size)
    return size


def _where(source, size):
    from coupsolve.trees import sizecache

    return {sizecache.COUNTED: f"counted in {size.seconds:.1f} s",
            sizecache.CACHED: f"a cached count (counted in {size.seconds:.1f} s on an earlier run)",
            sizecache.KNOWN: "a known size, packaged with coupsolve"}[source]


def measure(rules, args, out, build=False):
    """Size the tree of ``rules`` within the memory budget and print its size and memory.

    A size known without counting (:mod:`coupsolve.trees.sizecache`: a cached count, or the table of known
    sizes) answers at once, unless ``--no-cache``: a tree known to have more histories than the budget
    holds is refused before anything is counted. Otherwise the tree is counted with a budget, and the
    count (or the bound it proved) cached. With ``build``, the size returned is one the tree may be
    built from: a count of this very code (a cached or a fresh one), a known size of the table only
    when it does not fit (the caller then refuses it).

    Returns
    -------
    (TreeSize, (build, solve, peak) bytes, budget in bytes or None)
    """
    from coupsolve.trees import sizecache
    from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY, TreeTooLarge, estimate_peak_bytes

    budget, what = _budget(args)
    max_nodes = None if budget is None else budget // MIN_BYTES_PER_HISTORY
    options = {k: getattr(args, k) for k in ("updates", "threads") if hasattr(args, k)}
    options["precision"] = solve_precision(args, False)
    options["predictive"] = getattr(args, "algorithm", "") == "pcfr+"
    cache = not getattr(args, "no_cache", False)
    print(f"rules: {rules}", file=out)
    known = sizecache.lookup(rules, cache)
    size, source = (None, None) if known is None else (known.size, known.source)
    if size is None and source is not None and max_nodes is not None and known.at_least > max_nodes:
        raise _too_large(known.at_least, budget, what, source)
    if build and size is not None and source == sizecache.KNOWN and (
            budget is None or estimate_peak_bytes(size, **options)[2] <= budget):
        size = None  # it fits: built only from a count of this very code
    if size is None:
        try:
            size, source = _count(rules, max_nodes, cache, out), sizecache.COUNTED
        except TreeTooLarge as e:
            raise _too_large(e.at_least, budget, what, "counted") from None
    need = estimate_peak_bytes(size, **options)
    print(f"tree ({_where(source, size)}): {size.nodes:,} histories ({size.decision_nodes:,} decisions) "
          f"in {len(size.levels)} levels, about {size.infosets:,} information sets; memory: "
          f"about {_fmt(need[0])} to build the tree, {_fmt(need[1])} for the solve, {_fmt(need[2])} at "
          "the peak", file=out)
    if budget is not None:
        verdict = "fits" if need[2] <= budget else "does NOT fit"
        print(f"memory {what}: {_fmt(budget)}: a build and solve {verdict}", file=out)
    return size, need, budget


def cmd_info(args) -> int:
    """``coupsolve info``: the history tree's size, and the public tree's with ``--representation
    public`` or ``pieces`` (counted by its builder, :func:`measure_public`: minutes from turn limit
    3 on; and, for the class walk's count by parts, built in pieces)."""
    rules = rules_of(args)
    if args.representation not in ("public", "pieces"):
        measure(rules, args, sys.stdout)
        print("(coupsolve info --representation public also counts the public tree)")
        return 0
    try:
        measure(rules, args, sys.stdout)
    except CliError as e:
        print(f"history tree: {e}")
    size, peak, budget = measure_public(rules, args, sys.stdout)
    if builder_of(size) == "classbuild" and (size.parts or args.representation == "pieces"):
        try:  # and in pieces, as a solve would build it when the whole tree does not fit
            _plan_pieces(size, args, sys.stdout, budget, peak)
        except CliError as e:
            print(e)
    return 0


def choose_tree(rules, args, out):
    """Size the tree a solve runs on, as ``--representation`` says (the one place that chooses it):
    the history tree when asked or, under ``auto``, when it fits; else the public tree, whole when it
    fits, else in pieces (class walk only). Refuses, with the figures, what does not fit. Returns the
    count to build from (``TreeSize``, or the public builder's ``ClassSize`` or ``PublicSize``:
    :func:`public_builder`), or a :class:`~coupsolve.trees.pieces.build.PiecesPlan`. Sets ``args.precision``
    to the one the solve runs in (``--precision auto``: :func:`~coupsolve.cli.args.solve_precision`)."""
    size = _choose_tree(rules, args, out)
    pieces = builder_of(size) == "classpieces"
    if getattr(args, "precision", None) == AUTO_PRECISION:
        args.precision = solve_precision(args, pieces)
        if pieces:
            print("precision: float32 (--precision auto: a tree in pieces is solved in float32, for "
                  "its memory)", file=out)
    return size


def _choose_tree(rules, args, out):
    rep = args.representation
    if getattr(args, "ray", None) and rep != "pieces":
        rep = "public"  # --representation history was refused by _ray_backend; pieces when too large
    if rep in ("public", "pieces"):
        print(f"rules: {rules}", file=out)
    else:
        try:
            size, need, budget = measure(rules, args, out, build=True)
        except CliError as e:  # more histories than the budget holds: not tried on the public tree
            raise CliError(f"{e} ({_public_hint(rules)})") from None
        if budget is None or need[2] <= budget:
            return size
        cap = AUTO_CLASS_MAX_HISTORIES if public_builder(rules)[0] == "classbuild" else \
            AUTO_PUBLIC_MAX_HISTORIES
        if rep == "history" or size.nodes > cap:
            hint = "--representation public" if rep == "history" else _public_hint(rules, size.nodes)
            raise CliError(f"the build and solve need about {_fmt(need[2])}, more than the "
                           f"{_fmt(budget)} of memory; try a lower --turn-limit or {hint}")
        print("the history tree does not fit: trying the public tree", file=out)
    if rep == "pieces" and public_builder(rules)[0] != "classbuild":
        raise CliError(f"--representation pieces builds by the class walk, which does not take "
                       f"{public_builder(rules)[1]}; try --representation public")
    size, peak, budget = measure_public(rules, args, out)
    if rep != "pieces" and (budget is None or peak <= budget):
        return size
    if builder_of(size) != "classbuild":
        raise CliError(f"the public tree's build and solve need about {_fmt(peak)}, more than the "
                       f"{_fmt(budget)} of memory; try a lower --turn-limit")
    return _plan_pieces(size, args, out, budget, peak)


def pick_tree(rules, size, out):
    """The tree a solve of ``rules`` runs on, built from the count ``size`` (:func:`choose_tree`'s).

    Returns ``(tree for the solver, CoupTree or CoupPublicTree for the analysis)``.
    """
    from coupsolve.cli.strategy import PUBLIC_BUILDERS, public_functions

    builder = builder_of(size)
    if builder == "classpieces":
        return _build_pieces(rules, size, out)
    if builder is None:
        from coupsolve.trees.history.tree import build_coup_tree as build

        say_compiling(out)
    else:
        build = public_functions(builder)[1]
    what = "tree" if builder is None else f"public tree by {PUBLIC_BUILDERS[builder]}"
    print(f"building the {what} (Ctrl-C stops) ...", file=out, flush=True)
    stage = "{}: " if builder == "classbuild" else ""  # the class walk's share is of a level's nodes
    report = _every(5.0, lambda *a: print(f"  {stage.format(a[0])}{100 * a[-2] / a[-1]:.0f}% built",
                                          file=out, flush=True))
    coup_tree = build(rules, size=size, progress=report)
    return coup_tree.tree, coup_tree


def _resume_check(args, rules):
    """Refuse ``--resume`` for other rules before anything is built; returns the checkpoint's iterations."""
    from solvers.cfr.checkpoint import load_checkpoint

    from coupsolve.trees.history.tree import rules_game_id

    if args.resume is None:
        return 0
    try:
        saved = load_checkpoint(args.resume)
    except (ValueError, KeyError, OSError) as e:
        raise CliError(f"--resume {args.resume}: not a checkpoint of this solver ({e})") from None
    if saved["game_id"] != rules_game_id(rules):
        raise CliError(f"--resume {args.resume}: a checkpoint of other rules; give the rules it was "
                       f"solved with: {rules_difference(saved['game_id'], rules)}")
    return saved["iterations"]


def _solve(solvers, tree, args, iterations, target, checkpoint, backend=None):
    """``solvers.solve`` with the command line's options (the checkpoint's algorithm and seed on --resume)."""
    return solvers.solve(tree, algorithm=None if args.resume else args.algorithm, iterations=iterations,
                         target_exploitability=target, seed=None if args.resume else args.seed,
                         check_every=args.check_every, progress=not args.no_progress,
                         precision=args.precision, updates=args.updates, threads=args.threads,
                         checkpoint=checkpoint, resume=args.resume,
                         checkpoint_every=args.checkpoint_every if checkpoint else None,
                         backend=backend)


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


def cmd_solve(args) -> int:
    """``coupsolve solve`` (and ``demo``)."""
    import solvers
    from solvers.memory import release_free_memory

    from coupsolve.cli.report import present, title
    from coupsolve.cli.strategy import analyse_any, analyse_exactly_in_pieces

    check_outputs(args)
    rules = rules_of(args)
    solvers.check_threads(args.threads)  # before the build, not after it
    backend = _ray_backend(args)  # connected before the build
    human = sys.stderr if args.json == "-" else sys.stdout
    iterations, target = stopping_rule(args, rules, human)
    resumed = _resume_check(args, rules)
    size = choose_tree(rules, args, human)
    t0 = time.perf_counter()
    tree, coup_tree = pick_tree(rules, size, human)
    build_s = time.perf_counter() - t0
    builder = builder_of(size)  # the class walk counts no histories: bytes per information set
    histories = size.nodes if builder is None else getattr(size, "histories", None)
    per = (f"{tree.nbytes / size.nodes:.1f} bytes per history" if builder is None else
           f"{tree.nbytes / tree.num_infosets:.1f} bytes per information set")
    print(f"built the {'history tree' if builder is None else f'public tree ({builder})'} in "
          f"{build_s:.1f} s: {tree.num_infosets:,} information sets, {per}", file=human)
    if resumed:
        print(f"resuming {args.resume} at iteration {resumed:,}", file=human)
    checkpoint = args.checkpoint or args.resume
    with warnings.catch_warnings():  # the target's reach was told up front (stopping_rule)
        warnings.filterwarnings("ignore", message="target_exploitability=")
        result = _solve(solvers, tree, args, iterations, target, checkpoint, backend)
    if builder is not None:  # which tree analyse and play rebuild (cli_strategy.load_strategy)
        result.options = {**result.options, "tree_builder": builder}
    if builder == "classpieces":  # no tree is rebuilt to play: the keys go with the strategy, and
        result.infoset_hash = coup_tree.infoset_hash  # where it was cut, to rebuild it to analyse
        result.options = {**result.options, "pieces": size.record()}
    status = " (interrupted: the last complete iteration is kept)" if result.interrupted else ""
    print(f"\n{result.algorithm}: {result.iterations:,} iterations in {result.seconds:.1f} s{status}; "
          f"exploitability {result.exploitability:.3g}", file=human)
    if args.out:
        save_output("--out", args.out, result.save)
        print(f"strategy saved to {args.out}", file=human)
    if checkpoint:
        print(f"checkpoint saved to {checkpoint} (continue with --resume {checkpoint})", file=human)
    infosets = tree.num_infosets
    if builder == "classpieces":  # on the pieces, once the solver's state, the saved current
        result.tree = result.current_policy = None  # policy and the keys' pages the save read
        result.infoset_hash, coup_tree = None, coup_tree._replace(infoset_hash=None)  # are let go
        release_free_memory()
        analysis = analyse_exactly_in_pieces(tree, coup_tree, result, human, store=args.out)
        tree = coup_tree = None
    else:
        print("analysing the strategy ...", file=human, flush=True)
        analysis = analyse_any(coup_tree, result.average_policy, meta={"title": title(rules, result)})
    present(analysis, result, rules, args, human, histories=histories, infosets=infosets,
            build_seconds=build_s)
    return 130 if result.interrupted else 0
