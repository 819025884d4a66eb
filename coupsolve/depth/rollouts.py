"""Leaf values from a strategy trained by sampling (``coupsolve train``): seeded rollouts to the end.

A blueprint of the full-length game is a table of a sampling game (:mod:`coupsolve.sampling`), keyed by
the features of the state (or, for a game short enough, by the exact observation sequence).
:func:`values_from_trained` walks the cut game's tree beside that sampling game to collect its leaves'
states (:func:`solvers.mccfr.rollout.leaf_rows`), then from each plays the rest of the game
``rollouts`` times for each pair of continuations (:mod:`coupsolve.depth.continuations`, the same
biases as :func:`~coupsolve.depth.continuations.biased` applies to a tree policy, here applied move by
move by :func:`weigh`) with :func:`solvers.mccfr.rollout.play_rows`, on as many threads as asked.
Each value carries its standard error. With the features keys the rest of the game depends on the
leaf's state alone, so leaves with the same state (many histories reach it) are played once.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, types

from solvers.mccfr.kernel import OK, call_kernel
from solvers.memory import check_fits
from solvers.mccfr.rollout import STOPPED, leaf_rows, play_rows

from coupsolve import engine as E
from coupsolve.engine.core import bluffs
from coupsolve.depth.continuations import BIAS, CONTINUATIONS, check_count
from coupsolve.depth.values import LeafValues, check_blueprint_rules
from coupsolve.sampling.keys import FEATURES
from coupsolve.sampling.steps import FUNCTIONS
from coupsolve.trees.background import run_interruptibly, run_together

__all__ = ["leaf_states", "play_states", "values_from_trained", "weigh"]


@njit(cache=True)
def weigh(P, s, p, a, c):
    """The weight continuation ``c`` gives seat ``p``'s action ``a`` in state ``s`` (1: unchanged)."""
    if c == 0 or a >= E.NUM_ACTIONS:
        return 1.0
    if c == 1:
        return BIAS if bluffs(s, p, a) else 1.0
    if a == E.ACT_CHALLENGE:
        return BIAS if c == 2 else 1.0 / BIAS
    return 1.0


@njit(cache=True, nogil=True)
def _features_rows(P, W, n, state_size, max_moves, max_depth, num_children, child_start, leaf_of, by_state,
                   memo, row_of, states, hashes, keys, control):
    """:func:`solvers.mccfr.rollout.leaf_rows` for Coup's features game."""
    return leaf_rows(FEATURES, P, W, n, state_size, max_moves, max_depth, num_children, child_start, leaf_of,
                     by_state, memo, row_of, states, hashes, keys, control)


@njit(cache=True, nogil=True)
def _exact_rows(P, W, n, state_size, max_moves, max_depth, num_children, child_start, leaf_of, by_state,
                memo, row_of, states, hashes, keys, control):
    """:func:`solvers.mccfr.rollout.leaf_rows` for Coup's exact-keys game."""
    return leaf_rows(FUNCTIONS, P, W, n, state_size, max_moves, max_depth, num_children, child_start, leaf_of,
                     by_state, memo, row_of, states, hashes, keys, control)


@njit(cache=True, nogil=True)
def _features_play(P, W, n, state_size, max_moves, states, hashes, keys, first, stride, table, stats, avg,
                   prior, R, seed, total, sq, max_steps, control):
    """:func:`solvers.mccfr.rollout.play_rows` for Coup's features game."""
    return play_rows(FEATURES, weigh, P, W, n, state_size, max_moves, states, hashes, keys, first, stride,
                     table, stats, avg, prior, R, seed, total, sq, max_steps, control)


@njit(cache=True, nogil=True)
def _exact_play(P, W, n, state_size, max_moves, states, hashes, keys, first, stride, table, stats, avg,
                prior, R, seed, total, sq, max_steps, control):
    """:func:`solvers.mccfr.rollout.play_rows` for Coup's exact-keys game."""
    return play_rows(FUNCTIONS, weigh, P, W, n, state_size, max_moves, states, hashes, keys, first, stride,
                     table, stats, avg, prior, R, seed, total, sq, max_steps, control)


#: Per abstraction, the kernels that find the leaves' rows and play them.
KERNELS = {"features": (_features_rows, _features_play), "exact": (_exact_rows, _exact_play)}


def _kernels(abstraction):
    """The kernels of ``abstraction``'s game: the features game's, or the exact keys' for any other."""
    return KERNELS["features" if abstraction == "features" else "exact"]


def rollouts_compiled(abstraction: str) -> bool:
    """Whether the rollout kernel for ``abstraction`` is compiled (else the first use compiles it,
    for about a minute)."""
    from coupsolve.engine.jit import kernel_ready

    return all(kernel_ready(k) for k in _kernels(abstraction))


def values_from_trained(cut, solver, meta, k: int = 1, *, rollouts: int = 32, seed: int = 0,
                        threads: int = 1, progress=None, say=None) -> LeafValues:
    """The values of ``cut``'s leaves under ``k`` continuations of a trained strategy, by rollouts.

    Parameters
    ----------
    cut : CoupTree
        The cut game, built with ``leaves=True``.
    solver, meta
        A trained strategy as :func:`coupsolve.strategy.trained.load_trained` gives it (with its rules
        in ``meta["rules"]``), of the same rules but for a longer turn limit.
    k : int
        Continuations per player (:data:`~coupsolve.depth.continuations.CONTINUATIONS`).
    rollouts : int
        Games per leaf state and pair of continuations.
    seed : int
        The rollouts' seed (the results depend on it and on nothing else).
    threads : int
        Threads that share the states (the values do not depend on how many).
    progress : callable, optional
        ``progress(states played)``, about once a second; Ctrl-C stops within a state's rollouts.
    say : callable, optional
        Told, in a line, what is being done before each walk of the tree.

    Returns
    -------
    LeafValues
        One row per distinct leaf state played (``row_of``: each leaf's), with ``stderr`` (the
        standard error of each value) and ``states`` (how many).
    """
    from coupsolve.rules import Rules
    from coupsolve.strategy.trained import key_version, make_game

    say = say or (lambda line: None)
    k = check_count(k)
    if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or not 1 <= rollouts <= 1 << 20:
        raise ValueError(f"rollouts must be a whole number from 1 to {1 << 20:,}, not {rollouts!r}")
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be a whole number of at least 1, not {threads!r}")
    rules = Rules.from_dict(meta["rules"])
    check_blueprint_rules(cut.rules, rules)
    abstraction = meta.get("abstraction", "exact")
    warm = float(meta.get("warm_start", 0.0) or 0.0)
    game = make_game(rules, abstraction, None, warm, key=key_version(meta))  # no field: the cut tree draws no bots
    table = solver.lookup_arrays()
    rows, row_of, states, hashes, keys = leaf_states(cut, game, abstraction, k, say)
    say(f"{rows:,} distinct leaf states: playing {rows * rollouts * k * k:,} games on {threads} "
        f"thread{'s' if threads > 1 else ''} ...")
    mean, stderr = play_states(game, abstraction, table, warm > 0, states, hashes, keys, k, rollouts=rollouts,
                               seed=seed, threads=threads, progress=progress)
    return LeafValues(cut.leaf_node.copy(), mean, CONTINUATIONS[:k],
                      f"{rollouts} rollouts (seed {seed}) of a trained strategy of {rules.turn_limit} turns",
                      stderr=stderr, states=rows, row_of=row_of)


def play_states(game, abstraction, table, prior, states, hashes, keys, k, *, rollouts, seed, threads=1,
                progress=None):
    """``(mean, stderr)`` of player 0's payoff from each row of ``states`` (the sampling ``game``'s
    states, of the information sets of ``abstraction``, with their ``hashes`` and ``keys``, as :func:`solvers.mccfr.rollout.leaf_rows` writes them),
    ``(rows, k, k)``: ``rollouts`` games per row and pair of continuations of the strategy in ``table``
    (:meth:`~solvers.mccfr.solver.MCCFRSolver.lookup_arrays`; ``prior``: its warm start's), on
    ``threads`` threads that share the rows (the results do not depend on how many). Ctrl-C stops
    within a row's games (``KeyboardInterrupt``)."""
    rows = states.shape[0]
    total, sq = np.zeros((rows, k, k)), np.zeros((rows, k, k))
    max_steps = int(E.game_bounds(game.params)[0]) + 1
    controls = [np.zeros(3, np.int64) for _ in range(int(threads))]
    # each thread its own control and its own copy of the game's scratch (the engine writes into it)
    jobs = [(game.params, tuple(a.copy() for a in game.scratch), game.num_players, game.state_size,
             game.max_moves, states, hashes, keys, t, len(controls), table["table"], table["stats"],
             table["average"], bool(prior), int(rollouts), int(seed) & (2**63 - 1), total, sq, max_steps, control)
            for t, control in enumerate(controls)]
    report = None if progress is None else (lambda: progress(sum(int(c[1]) for c in controls)))
    play = _kernels(abstraction)[1]
    statuses = run_together(lambda *a: call_kernel(play, *a), jobs, controls, report)
    if STOPPED in statuses:
        raise KeyboardInterrupt
    if any(status != OK for status in statuses):
        raise RuntimeError(f"the rollouts failed with status {max(statuses)} (a rollout past the game's length)")
    mean = total / rollouts
    var = np.maximum(sq / rollouts - mean ** 2, 0.0) * rollouts / max(rollouts - 1, 1)
    return mean, np.sqrt(var / rollouts)


def leaf_states(cut, game, abstraction, k, say):
    """``(rows, row_of, states, hashes, keys)``: the distinct leaf states of ``cut`` to play
    (:func:`solvers.mccfr.rollout.leaf_rows`), by two walks of its tree: one counts them, so that
    their memory is checked before it is taken, the other writes them."""
    L, tree = len(cut.leaf_node), cut.tree
    leaf_of = np.full(tree.num_nodes, -1, np.int64)
    leaf_of[cut.leaf_node] = np.arange(L)
    row_of = np.full(L, -1, np.int64)
    find = _kernels(abstraction)[0]
    n, size = game.num_players, game.state_size

    def walk(rows):
        states, hashes = np.zeros((rows, size), np.int32), np.zeros((rows, n, 2), np.uint64)
        keys, control = np.zeros(rows, np.uint64), np.zeros(3, np.int64)
        memo = numba.typed.Dict.empty(key_type=types.uint64, value_type=types.int64)
        args = (game.params, game.scratch, n, size, game.max_moves, game.max_depth, tree.num_children,
                tree.child_start, leaf_of, abstraction == "features", memo, row_of, states, hashes, keys, control)
        status = run_interruptibly(lambda *a: call_kernel(find, *a), args, control)
        if status == STOPPED:
            raise KeyboardInterrupt
        if status != OK:
            raise RuntimeError(f"the leaves' walk failed at node {status - 100} (its children are not the "
                               "game's moves)")
        return int(control[1]), states, hashes, keys

    say(f"finding the distinct states of {L:,} leaves ...")
    rows = walk(0)[0]
    check_fits(8 * tree.num_nodes + 8 * L + rows * (4 * size + 16 * n + 8 + 32 * k * k),
               f"the rollouts' tables for {L:,} leaves in {rows:,} states")
    _, states, hashes, keys = walk(rows)
    return rows, row_of, states, hashes, keys
