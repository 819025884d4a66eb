"""A depth-limited game from a blueprint file, as ``coupsolve solve --leaves`` makes it and
``coupsolve analyse`` remakes it.

The blueprint is a strategy file of the same rules but for a longer turn limit: a training's
(``coupsolve train``, usually the full-length game; its leaves valued by seeded rollouts,
:mod:`coupsolve.depth.rollouts`) or a solve's on a history tree (valued exactly,
:mod:`coupsolve.depth.values`). A strategy solved on the depth-limited game records in its options
where its leaves came from (:func:`record`: the blueprint's path and SHA-256, the continuations, the
rollouts and their seed), so :func:`rebuild` makes the very same tree again, or refuses by name.
"""

from __future__ import annotations

import gc
import hashlib
import os

from solvers.trees.leaves import GRAFT_HISTORY_BYTES, grafted_histories

from coupsolve.depth.continuations import CONTINUATIONS
from coupsolve.depth.game import depth_limited_game
from coupsolve.plan.options import every, progress_lines, silent
from coupsolve.strategy.shipped import SHIPPED, named, resolve, shipped_name
from coupsolve.strategy.solved import StrategyError, leaves_of, load_solved, read_result
from coupsolve.strategy.trained import is_trained, load_trained

__all__ = ["LEAVES", "MOST_CONTINUATIONS", "REPRESENTATIONS", "build", "fit", "graft_bytes", "leaf_values",
           "load_depth_limited", "open_blueprint", "record", "rebuild"]

#: The key of a strategy's options that records its leaves.
LEAVES = "leaves"

#: The trees a depth-limited game is built on (recorded; files from before the public one are history).
REPRESENTATIONS = ("history", "public")
#: The most continuations a player chooses among.
MOST_CONTINUATIONS = len(CONTINUATIONS)
# On the public tree, per cell of a leaf's matrix (a pair of private states and of continuations) while
# it is grafted: the joined values, the graft's rows, columns, data and their sort order; and per leaf
# history, the join of the histories to the public leaves.
_PUBLIC_CELL_BYTES, _PUBLIC_LEAF_BYTES = 48, 64


def _digest(path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _recorded(source) -> str:
    """How a strategy file names its blueprint: a shipped one by its name (found again wherever the
    package is installed), any other by its absolute path."""
    return shipped_name(source) or os.path.abspath(source)


def _check_blueprint(source, rules, cut_rules):
    """:func:`~coupsolve.depth.values.check_blueprint_rules` as a one-line error naming the option."""
    from coupsolve.depth.values import check_blueprint_rules

    try:
        check_blueprint_rules(cut_rules, rules)
    except ValueError as e:
        raise StrategyError(f"--leaves {source}: {e}") from None


def open_blueprint(source, cut_rules):
    """The blueprint file ``source`` checked against the cut game's rules, before anything is built:
    ``("trained", (rules, solver, meta))`` or ``("solved", rules)``; a one-line
    :class:`StrategyError` naming the option if it cannot be used."""
    path, source = resolve(source), named(source)  # the file; what messages call it
    if not os.path.isfile(path):
        raise StrategyError(f"--leaves {source}: {'not a regular file' if os.path.exists(path) else 'no such file'}")
    if is_trained(path):
        loaded = load_trained(path)
        _check_blueprint(source, loaded[0], cut_rules)
        return "trained", loaded
    rules, result = read_result(path)
    if result.tree_type != "GameTree" or leaves_of(result) is not None:
        raise StrategyError(f"--leaves {source}: a strategy solved on a "
                            f"{'depth-limited game' if leaves_of(result) else result.tree_type}; the leaves "
                            "take a training's file or a history tree's")
    _check_blueprint(source, rules, cut_rules)
    return "solved", rules


def leaf_values(cut, source, k, *, rollouts=32, seed=0, say=silent, opened=None, threads=None, cache=True):
    """The values of ``cut``'s leaves (a ``CoupTree`` built with ``leaves=True``) under ``k``
    continuations of the blueprint file ``source`` (``opened``: :func:`open_blueprint`'s answer, when
    already checked); a one-line :class:`StrategyError` if it cannot be used. Rollouts run on
    ``threads`` threads (default: the cores available); their values do not depend on it, and are
    kept in the user's cache folder for the next build of the same game (:mod:`coupsolve.depth.cache`),
    unless ``cache`` is False: then none are read or kept."""
    import time

    from coupsolve.depth.values import values_from_longer_game

    kind, loaded = opened or open_blueprint(source, cut.rules)
    path, source = resolve(source), named(source)  # the file; what messages call it
    if kind == "trained":
        from coupsolve.depth.cache import cached_values, key_of, remember_values

        digest = _digest(path)  # once: the blueprint may be tens of MB
        key = key_of(digest, cut.rules, k, rollouts, seed if rollouts else 0)  # exact: no seed
        values = cached_values(key, cut.leaf_node, k, warn=say) if cache else None
        if values is not None:
            say(f"leaf values of {values.states:,} states read from the cache ("
                + (f"{rollouts} rollouts of {source}, seed {seed})" if rollouts else f"exact values of {source})"))
            if rollouts == 0:
                _keep_turn_starts(cut, loaded, k, digest, values, say)
            return values
        rules, solver, meta = loaded
        t0 = time.monotonic()
        if rollouts == 0:
            values = _exact_values(cut, loaded, k, source, digest if cache else None, threads, say)
        else:
            values = _rollout_values(cut, solver, meta, k, source, rollouts, seed, threads, say)
        say(f"leaf values of {values.states:,} states in {time.monotonic() - t0:.1f} s")
        kept = remember_values(key, values, warn=say) if cache else None
        if kept:
            say(f"kept them for the next build of this game in {kept} ({os.path.getsize(kept) / 2**20:.1f} MiB)")
        return values
    rules, longer, result = load_solved(path, say)
    say(f"valuing {len(cut.leaf_node):,} leaves exactly under {k} continuations of {source} ...")
    return values_from_longer_game(cut.tree, cut.leaf_node, longer, result.average_policy, k)


def _rollout_values(cut, solver, meta, k, source, rollouts, seed, threads, say):
    """:func:`~coupsolve.depth.rollouts.values_from_trained`, saying what it does."""
    from coupsolve.depth.rollouts import rollouts_compiled, values_from_trained
    from coupsolve.plan.options import solve_threads

    if not rollouts_compiled(meta.get("abstraction", "exact")):
        say("compiling the rollouts (first run only, about a minute) ...")
    say(f"valuing {len(cut.leaf_node):,} leaves by {rollouts} rollouts of {source} per state and pair "
        f"of {k} continuations (seed {seed}) ...")
    return values_from_trained(cut, solver, meta, k, rollouts=rollouts, seed=seed, threads=solve_threads(threads)[0],
                               progress=every(10.0, lambda n: n and say(f"  {n:,} leaf states played")), say=say)


def _exact_values(cut, loaded, k, source, digest, threads, say):
    """:func:`~coupsolve.depth.exact.values_exact` on ``threads`` threads (default: the cores
    available), saying what it does; a one-line :class:`StrategyError` for a blueprint whose play is
    not a Markov chain. With the blueprint's ``digest`` (None: no cache), the values of the leaves'
    turn starts are kept for a cut one turn shorter, and those kept by a cut one turn longer are used
    (:func:`coupsolve.depth.cache.remember_turn_starts`)."""
    from coupsolve.depth.cache import cached_turn_starts, turn_starts_key
    from coupsolve.depth.exact import check_markov, exact_compiled, values_exact
    from coupsolve.plan.options import solve_threads

    rules, solver, meta = loaded
    try:
        check_markov(meta)
    except ValueError as e:
        raise StrategyError(f"--rollouts exact: {source}: {e}") from None
    left, known, keep = rules.turn_limit - cut.rules.turn_limit, None, None
    if digest is not None:
        if left > 1:
            known = cached_turn_starts(turn_starts_key(digest, rules, k, left - 1), k, warn=say)
        if known is not None:
            say(f"the exact values of {len(known[0]):,} turn starts one turn later, kept by a cut one turn longer")
        keep = _keeper(turn_starts_key(digest, rules, k, left), say)
    if not exact_compiled():
        say("compiling the blueprint's chain (first run only, under a minute) ...")
    say(f"valuing {len(cut.leaf_node):,} leaves exactly under {k} continuations of {source} ...")
    return values_exact(cut, solver, meta, k, known=known, keep=keep, threads=solve_threads(threads)[0], say=say,
                        progress=every(10.0, lambda done, found: say(f"  {done:,} of {found:,} turn starts found "
                                                                       "so far expanded")))


def _keeper(key, say):
    """``keep(keys, values)``: the leaf turn starts' values kept under ``key`` for a cut one turn
    shorter (:func:`coupsolve.depth.cache.remember_turn_starts`), said."""
    from coupsolve.depth.cache import remember_turn_starts

    def keep(keys, values):
        if remember_turn_starts(key, keys, values, warn=say):
            say(f"kept the values of {len(keys):,} leaf turn starts for a cut one turn shorter")
    return keep


def _keep_turn_starts(cut, loaded, k, digest, values, say):
    """Exact values read from the cache: their leaf states' values kept by key too, for a cut one turn
    shorter, if they are not yet (an earlier version kept the values only)."""
    import numpy as np

    from coupsolve.depth.cache import has_turn_starts, turn_starts_key
    from coupsolve.depth.exact import leaf_keys

    rules, _, meta = loaded
    key = turn_starts_key(digest, rules, k, rules.turn_limit - cut.rules.turn_limit)
    if has_turn_starts(key):
        return
    row_of, keys = leaf_keys(cut, meta, k, say)
    if np.array_equal(row_of, values.row_of) and len(keys) == len(values.values):
        _keeper(key, say)(keys, values.values)


def graft_bytes(cut, k) -> dict:
    """``{representation: bytes}``: about what grafting ``k`` continuations at the leaves of ``cut`` (a
    ``CoupTree`` built with ``leaves=True``) takes on each tree, known before any leaf is valued. Each
    leaf history is at most one pair of private states at a public leaf, so the public figure is an
    upper bound where many histories share a pair."""
    leaves = len(cut.leaf_node)
    return {"history": GRAFT_HISTORY_BYTES * grafted_histories(cut.tree.num_nodes, leaves, k, k),
            "public": leaves * (_PUBLIC_CELL_BYTES * k * k + _PUBLIC_LEAF_BYTES)}


def _check_representation(representation):
    if representation != "auto" and representation not in REPRESENTATIONS:
        raise ValueError(f"representation must be auto or one of {', '.join(REPRESENTATIONS)}, got {representation!r}")


def fit(cut, k=None, representation="auto", budget=None, what="available"):
    """``(k, representation)`` of the depth-limited game on ``cut`` that fits in ``budget`` bytes (None:
    unknown, anything fits), chosen before its leaves are valued, so that a game that cannot be grafted
    is refused at once rather than after its rollouts. ``k`` None: the most continuations that fit, up
    to :data:`MOST_CONTINUATIONS`; ``representation`` ``"auto"``: the history tree when it fits, else the
    public tree (which has the history tree's memory too: it is let go first). A ``k`` that fits on
    neither is refused in one line (:class:`MemoryError`) that names the most that would fit."""
    _check_representation(representation)
    trees = REPRESENTATIONS if representation == "auto" else (representation,)
    room = None if budget is None else {"history": budget, "public": budget + cut.tree.nbytes}

    def first_fit(count):
        need = graft_bytes(cut, count)
        return next((r for r in trees if room is None or need[r] <= room[r]), None)

    for count in ([k] if k else range(MOST_CONTINUATIONS, 0, -1)):
        tree = first_fit(count)
        if tree is not None:
            return count, tree
    from solvers.memory import format_bytes

    most = next((c for c in range(MOST_CONTINUATIONS, 0, -1) if first_fit(c)), None)
    need = min(graft_bytes(cut, k or 1)[r] for r in trees)
    where = "the public or the history tree" if representation == "auto" else f"the {representation} tree"
    raise MemoryError(f"the depth-limited game of {cut.rules} with {k or 1} continuation{'s' if (k or 1) > 1 else ''} "
                      f"needs about {format_bytes(need)} on {where} and {format_bytes(budget)} is {what}"
                      + (f": try --continuations {most}" if most else ": it does not fit even with one"))


def _check_cut_size(rules, cache, max_memory):
    """Refuse at once, in one line, a cut game whose history tree is known (a cached count, the packaged
    table of known sizes, or a shorter turn limit's size) not to fit: the depth-limited game is made from
    that tree on either representation, and counting it first would take minutes. A size not known
    is left to the builder, which counts and refuses before allocating."""
    from coupsolve.plan.options import Options, budget
    from coupsolve.trees import sizecache
    from coupsolve.trees.history.size import MIN_BYTES_PER_HISTORY, estimate_build_bytes
    from solvers.memory import format_bytes

    known = sizecache.lookup(rules, cache)
    if known is None:
        return
    room, what = budget(Options(max_memory=max_memory))  # the planner's: --max-memory, else what is available
    need = (estimate_build_bytes(known.size) if known.size is not None else known.at_least * MIN_BYTES_PER_HISTORY)
    if need > room:
        count = (f"{known.size.nodes:,}" if known.size is not None else f"more than {known.at_least - 1:,}")
        raise MemoryError(f"--leaves: the depth-limited game of {rules} is made from its history tree, {count} "
                          f"histories ({known.source}): about {format_bytes(need)} to build, more than the "
                          f"{format_bytes(room)} {what}; try a lower --turn-limit")


def build(rules, source, k=None, *, rollouts=32, seed=0, say=silent, representation="auto", threads=None,
          cache=True, max_memory=None):
    """The depth-limited game of ``rules`` (cut after ``rules.turn_limit`` turns) with its leaves valued
    by the blueprint file ``source`` (:func:`leaf_values`), the blueprint checked first; on the history
    tree (:class:`~coupsolve.depth.game.DepthLimitedGame`) or, with ``representation="public"``, on
    the public tree (:class:`~coupsolve.depth.public.PublicDepthLimitedGame`: the leaf values are
    still computed on the history tree, which is summed by pair of private states and let go before
    the public tree is built). ``cache``: :func:`leaf_values`'s. ``k`` None or ``representation``
    ``"auto"``: :func:`fit` chooses them in what is available once the cut tree is built (or in
    ``max_memory`` bytes, the cut tree's included), and says so; a ``k`` or tree given that does not
    fit is refused there, before the leaves are valued."""
    from coupsolve.trees.history.tree import build_coup_tree
    from solvers.memory import available_bytes

    if rules.players != 2:
        raise ValueError("--leaves: depth-limited solving is for two players")
    _check_representation(representation)  # before the cut tree is built
    opened = open_blueprint(source, rules)
    _check_cut_size(rules, cache, max_memory)
    say(f"building the tree of {rules} with its turn-limit leaves ...")
    cut = build_coup_tree(rules, leaves=True)
    asked = (k, representation)
    budget, what = ((available_bytes(), "available") if max_memory is None else
                    (max(0, max_memory - cut.tree.nbytes), "left of --max-memory beside the cut tree"))
    k, representation = fit(cut, k, representation, budget, what)
    if (k, representation) != asked:
        reduced = k < (asked[0] or MOST_CONTINUATIONS) or (asked[1] == "auto" and representation != "history")
        say(f"{k} continuation{'s' if k > 1 else ''} a player, on the {representation} tree"
            + (": what fits in memory" if reduced else ""))
    values = leaf_values(cut, source, k, rollouts=rollouts, seed=seed, say=say, opened=opened, threads=threads,
                         cache=cache)
    if representation == "history":
        return depth_limited_game(rules, values, cut=cut)
    from coupsolve.depth.public import history_pairs, join_leaves, public_depth_limited_game

    pairs = history_pairs(cut, values)
    del cut  # the history tree is let go before the public tree is built ...
    gc.collect()  # ... now: frames kept by a reference cycle (a first run's compilation) still hold it
    say(f"building the public tree of {rules} (stepping every history) and joining its leaves ...")
    joined = join_leaves(rules, values, pairs, progress=progress_lines(say))
    del pairs  # and the pairs before the graft
    return public_depth_limited_game(rules, values, joined)


def record(result, game, source, rollouts, seed):
    """Write into ``result.options`` where the leaves of the depth-limited ``game`` came from, for
    :func:`rebuild` (``estimated``: by rollouts, with the largest standard error of a leaf value)."""
    from solvers import PublicTree

    values = game.leaf_values
    worst = None if values.stderr is None else float(values.stderr.max(initial=0.0))
    result.options = {**result.options, LEAVES: {
        "blueprint": _recorded(source), "sha256": _digest(resolve(source)),
        "continuations": len(values.continuations), "rollouts": int(rollouts), "seed": int(seed),
        "estimated": values.stderr is not None and rollouts > 0, "largest_stderr": worst, "leaf_states": values.states,
        "representation": "public" if isinstance(game.tree, PublicTree) else "history"}}
    return result


def rebuild(path, rules, recorded, say=silent):
    """The depth-limited game a strategy file ``path`` was solved on, from its ``recorded`` options
    (:func:`record`); a one-line :class:`StrategyError` when its blueprint is gone or changed."""
    try:
        source, digest = str(recorded["blueprint"]), str(recorded["sha256"])
        k, rollouts, seed = (int(recorded[n]) for n in ("continuations", "rollouts", "seed"))
        representation = str(recorded.get("representation", "history"))
        if representation not in REPRESENTATIONS:
            raise ValueError(representation)
    except (KeyError, TypeError, ValueError):
        raise StrategyError(f"{path}: its record of the leaves is damaged; solve it again") from None
    blueprint = resolve(source)
    if not os.path.isfile(blueprint):
        raise StrategyError(f"{path} was solved with leaves from {source}, which is gone: its tree "
                            "cannot be rebuilt")
    if _digest(blueprint) != digest:
        moved = shipped_name(source) and next((name for name in SHIPPED if _digest(resolve(name)) == digest), None)
        if not moved:
            raise StrategyError(f"{path} was solved with leaves from {source}, which has changed since: "
                                "solve it again")
        say(f"its leaves' blueprint, shipped as {source} when it was solved, is now shipped as {moved}")
        source = moved
    return build(rules, source, k, rollouts=rollouts, seed=seed, say=say, representation=representation)


def load_depth_limited(path, say=silent, read=None):
    """``(rules, DepthLimitedGame, SolveResult)`` of a strategy solved on a depth-limited game, its tree rebuilt
    (:func:`rebuild`) and the file checked against it (``read``: :func:`read_result` of ``path``, when
    already read); a one-line :class:`StrategyError` if not."""
    import solvers
    from solvers.policy import check_policy

    rules, result = read_result(path) if read is None else read
    recorded = leaves_of(result)
    if recorded is None:
        raise StrategyError(f"{path} was not solved on a depth-limited game")
    game = rebuild(path, rules, recorded, say)
    try:
        result = solvers.SolveResult.load(path, tree=game.tree)
        check_policy(game.tree, result.average_policy, "its average policy")
    except ValueError as e:
        raise StrategyError(f"{path} does not fit the depth-limited tree it records: {e}") from None
    return rules, game, result
