"""Game-agnostic equilibrium solvers for two-player zero-sum games.

Whole game trees are stored as flat arrays (:class:`GameTree`) and solved by
numba-compiled members of the CFR family; exact best responses give the
exploitability. Nothing here depends on Coup.

Public API
----------
GameTree
    Flat-array game tree; ``GameTree(...)`` from arrays (layout in
    :mod:`solvers.tree`), ``GameTree.from_openspiel(game)``,
    ``GameTree.from_nested(root, game_id)``, ``GameTree.estimate_bytes``.
solve(tree, algorithm=None, iterations=None, target_exploitability=None, seed=None, ...)
    Run ``"cfr"``, ``"cfr+"`` (the default), ``"lcfr"``, ``"dcfr"`` or
    ``"pcfr+"``; returns a :class:`SolveResult`. Supports a progress bar,
    Ctrl-C, checkpoints (``checkpoint=``, ``checkpoint_every=``) and
    ``resume=``.
ALGORITHMS
    Read-only mapping from algorithm name to :class:`AlgorithmSpec`.
SolveResult
    Average/current policies, exploitability curve, game value;
    ``save``/``load`` (``.npz`` + JSON, no pickle), ``to_openspiel_policy``,
    ``policy_for``.
best_response, nash_conv, exploitability, expected_values
    Exact best response (``BestResponse``), NashConv, exploitability
    (``NashConv / 2``, OpenSpiel's convention) and per-player values of a flat
    policy.
check_policy, to_openspiel_policy, from_openspiel_policy
    Flat policies and OpenSpiel ``TabularPolicy`` conversion
    (``SolveResult.from_openspiel_policy`` wraps one in a result).
reach_and_values
    Per-history reach probabilities and player 0's values under a policy
    (:mod:`solvers.evaluate`).
check_fits, estimate_solve_bytes
    Memory estimates; ``check_fits`` raises ``MemoryError`` naming the
    estimate and the memory available.

Flat policies are float64 arrays with one probability per infoset action,
aligned with ``tree.infoset_offset``.
"""

import os as _os

from ._cache_guard import guard as _guard

_guard(_os.path.dirname(__file__))  # before any kernel loads from the cache

from .algorithms import ALGORITHMS, AlgorithmSpec
from .best_response import BestResponse, best_response, expected_values, exploitability, nash_conv
from .cfr import solve
from .evaluate import reach_and_values
from .memory import check_fits, estimate_solve_bytes
from .policy import check_policy, from_openspiel_policy, to_openspiel_policy
from .result import SolveResult
from .tree import GameTree

__all__ = [
    "ALGORITHMS",
    "AlgorithmSpec",
    "BestResponse",
    "GameTree",
    "SolveResult",
    "best_response",
    "check_fits",
    "check_policy",
    "estimate_solve_bytes",
    "expected_values",
    "exploitability",
    "from_openspiel_policy",
    "nash_conv",
    "reach_and_values",
    "solve",
    "to_openspiel_policy",
]
