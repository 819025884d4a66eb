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
Solver(tree, algorithm="cfr+", precision=..., updates=..., threads=..., seed=...)
    The solver object: ``step(n)``, ``iterations``, ``exploitability()``,
    ``average_policy()``, ``current_policy()``, ``save(path)`` /
    ``Solver.load(path, tree)``, ``result()``.
solve(tree, algorithm=None, iterations=None, target_exploitability=None, seed=None, ...)
    Run ``"cfr"``, ``"cfr+"`` (the default), ``"lcfr"``, ``"dcfr"`` or
    ``"pcfr+"`` to a number of iterations or a target; returns a
    :class:`SolveResult`. A driver over :class:`Solver` with a progress bar,
    Ctrl-C, checkpoints (``checkpoint=``, ``checkpoint_every=``) and
    ``resume=``.
PRECISIONS, UPDATES, check_threads
    The speed options' accepted values and the threads check.
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
check_fits, estimate_solve_bytes, estimate_tree_bytes
    Memory estimates; ``check_fits`` raises ``MemoryError`` naming the
    estimate and the memory available.
PublicTree
    A game as public nodes carrying each player's private states (layout in
    :mod:`solvers.public`): ``PublicTree.from_game_tree(tree, labels)`` for
    small games, built directly for large ones; solved by the same
    :class:`Solver` (vector CFR, :mod:`solvers.public_rep`).
PublicPieces
    A public tree held as a trunk and parts, never whole (:mod:`solvers.public_pieces`): for trees
    too large to build at once; the same ``Solver``, iterating the parts one after the other.
RemotePieces
    A public tree named by a recipe and built by the Ray workers that solve it, the driver holding
    only the trunk (:mod:`solvers.remote_pieces`; ``Solver(..., backend=RayBackend(...))``).
DECISION, CHANCE, TERMINAL
    The node kinds of ``GameTree.node_kind`` (:mod:`solvers.kinds`).

A solver reaches the arrays it iterates through a *representation* chosen by
the type of the tree (:mod:`solvers.representation`): ``GameTree`` is
iterated by :class:`solvers.history.HistoryTree`; another tree type plugs in
with ``solvers.representation.register(TreeType, RepresentationClass)``.

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
from .kinds import CHANCE, DECISION, TERMINAL
from .memory import check_fits, estimate_solve_bytes, estimate_tree_bytes
from .mccfr import MCCFRSolver, SamplingGame, TableFull  # external-sampling MCCFR (solvers/mccfr.py)
from .public import PublicTree
from .public_rep import PublicTreeRep
from .public_pieces import PublicPieces  # registers its representation
from .remote_pieces import RemotePieces
from .policy import check_policy, from_openspiel_policy, to_openspiel_policy
from .result import SolveResult
from .solver import PRECISIONS, UPDATES, Solver, check_threads
from .tree import GameTree

__all__ = [
    "ALGORITHMS",
    "AlgorithmSpec",
    "BestResponse",
    "CHANCE",
    "DECISION",
    "GameTree",
    "PRECISIONS",
    "PublicPieces",
    "PublicTree",
    "PublicTreeRep",
    "RemotePieces",
    "SolveResult",
    "Solver",
    "TERMINAL",
    "UPDATES",
    "best_response",
    "check_fits",
    "check_policy",
    "check_threads",
    "estimate_solve_bytes",
    "estimate_tree_bytes",
    "expected_values",
    "exploitability",
    "from_openspiel_policy",
    "nash_conv",
    "reach_and_values",
    "solve",
    "to_openspiel_policy",
]
__all__ += ["MCCFRSolver", "SamplingGame", "TableFull"]
