"""Leaf values from a strategy trained by sampling (``coupsolve train``): seeded rollouts to the end.

A blueprint of the full-length game is a table of a sampling game (:mod:`coupsolve.sampling`), keyed by
the features of the state (or, for a game short enough, by the exact observation sequence).
:func:`values_from_trained` walks the cut game's tree beside that sampling game, and from each leaf
plays the rest of the game ``rollouts`` times for each pair of continuations
(:mod:`coupsolve.depth.continuations`, the same biases as :func:`~coupsolve.depth.continuations.biased`
applies to a tree policy, here applied move by move by :func:`weigh`), with
:func:`solvers.mccfr.rollout.leaf_rollouts`. Each value carries its standard error. With the features
keys the rest of the game depends on the leaf's state alone, so leaves with the same state (many
histories reach it) are played once.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, types

from solvers.mccfr.kernel import OK, call_kernel
from solvers.memory import check_fits
from solvers.mccfr.rollout import STOPPED, leaf_rollouts

from coupsolve import engine as E
from coupsolve.engine.core import holds_claim
from coupsolve.depth.continuations import BIAS, CONTINUATIONS, check_count
from coupsolve.depth.values import LeafValues, check_blueprint_rules
from coupsolve.sampling.keys import FEATURES
from coupsolve.sampling.steps import FUNCTIONS
from coupsolve.trees.background import run_interruptibly

__all__ = ["values_from_trained", "weigh"]


@njit(cache=True)
def weigh(P, s, p, a, c):
    """The weight continuation ``c`` gives seat ``p``'s action ``a`` in state ``s`` (1: unchanged)."""
    if c == 0 or a >= E.NUM_ACTIONS:
        return 1.0
    if c == 1:
        ph = s[E.S_PHASE]
        claim = E.ACTION_CLAIM[a]
        if claim >= 0 and (ph == E.PH_TURN or ph == E.PH_BLOCK or ph == E.PH_BLOCK_CHALLENGE):
            return 1.0 if holds_claim(s, p, claim) else BIAS
        return 1.0
    if a == E.ACT_CHALLENGE:
        return BIAS if c == 2 else 1.0 / BIAS
    return 1.0


@njit(cache=True, nogil=True)
def _features(P, W, n, state_size, max_moves, max_depth, num_children, child_start, leaf_of, table,
              stats, avg, prior, R, seed, by_state, memo, row_of, total, sq, max_steps, control):
    """:func:`solvers.mccfr.rollout.leaf_rollouts` for Coup's features game."""
    return leaf_rollouts(FEATURES, weigh, P, W, n, state_size, max_moves, max_depth, num_children,
                         child_start, leaf_of, table, stats, avg, prior, R, seed, by_state, memo,
                         row_of, total, sq, max_steps, control)


@njit(cache=True, nogil=True)
def _exact(P, W, n, state_size, max_moves, max_depth, num_children, child_start, leaf_of, table,
           stats, avg, prior, R, seed, by_state, memo, row_of, total, sq, max_steps, control):
    """:func:`solvers.mccfr.rollout.leaf_rollouts` for Coup's exact-keys game."""
    return leaf_rollouts(FUNCTIONS, weigh, P, W, n, state_size, max_moves, max_depth, num_children,
                         child_start, leaf_of, table, stats, avg, prior, R, seed, by_state, memo,
                         row_of, total, sq, max_steps, control)


def rollouts_compiled(abstraction: str) -> bool:
    """Whether the rollout kernel for ``abstraction`` is compiled (else the first use compiles it,
    for about a minute)."""
    from coupsolve.engine.jit import kernel_ready

    return kernel_ready(_features if abstraction == "features" else _exact)


def values_from_trained(cut, solver, meta, k: int = 1, *, rollouts: int = 32, seed: int = 0,
                        progress=None) -> LeafValues:
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
    progress : callable, optional
        ``progress(states played)``, about once a second; Ctrl-C stops within a leaf's rollouts.

    Returns
    -------
    LeafValues
        With ``stderr`` (the standard error of each value) and ``states`` (the distinct leaf states
        played).
    """
    from coupsolve.rules import Rules
    from coupsolve.strategy.trained import make_game

    k = check_count(k)
    if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or not 1 <= rollouts <= 1 << 20:
        raise ValueError(f"rollouts must be a whole number from 1 to {1 << 20:,}, not {rollouts!r}")
    rules = Rules.from_dict(meta["rules"])
    check_blueprint_rules(cut.rules, rules)
    abstraction = meta.get("abstraction", "exact")
    warm = float(meta.get("warm_start", 0.0) or 0.0)
    game = make_game(rules, abstraction, None, warm)  # no field: the cut tree has no draws of bots
    table = solver.lookup_arrays()
    L, tree = len(cut.leaf_node), cut.tree
    check_fits(8 * tree.num_nodes + L * (16 + 16 * k * k), f"the rollouts' tables for {L:,} leaves")
    leaf_of = np.full(tree.num_nodes, -1, np.int64)
    leaf_of[cut.leaf_node] = np.arange(L)
    row_of = np.full(L, -1, np.int64)
    total, sq = np.zeros((L, k, k)), np.zeros((L, k, k))
    memo = numba.typed.Dict.empty(key_type=types.uint64, value_type=types.int64)
    control = np.zeros(3, np.int64)
    kernel = _features if abstraction == "features" else _exact
    max_steps = int(E.game_bounds(rules.params())[0]) + 1
    args = (game.params, game.scratch, game.num_players, game.state_size, game.max_moves, game.max_depth,
            tree.num_children, tree.child_start, leaf_of, table["table"], table["stats"], table["average"],
            warm > 0, int(rollouts), int(seed) & (2**63 - 1), abstraction == "features", memo, row_of, total,
            sq, max_steps, control)
    report = None if progress is None else (lambda: progress(int(control[1])))
    status = run_interruptibly(lambda *a: call_kernel(kernel, *a), args, control, report)
    if status == STOPPED:
        raise KeyboardInterrupt
    if status != OK:
        raise RuntimeError(f"the rollouts failed with status {status} (a tree node whose children are not "
                           "the game's moves, or a rollout past the game's length)")
    rows = int(control[1])
    mean = total[:rows] / rollouts
    var = np.maximum(sq[:rows] / rollouts - mean ** 2, 0.0) * rollouts / max(rollouts - 1, 1)
    return LeafValues(cut.leaf_node.copy(), mean[row_of], CONTINUATIONS[:k],
                      f"{rollouts} rollouts (seed {seed}) of a trained strategy of {rules.turn_limit} turns",
                      stderr=np.sqrt(var / rollouts)[row_of], states=rows)
