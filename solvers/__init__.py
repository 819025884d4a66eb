"""Game-agnostic equilibrium solvers for two-player zero-sum games.

Whole game trees are stored as flat arrays (:class:`GameTree`) and solved by
numba-compiled members of the CFR family; exact best responses give the
exploitability. Nothing here depends on a particular game.

Public API
----------
GameTree
    Flat-array game tree; ``GameTree(...)`` from arrays (layout in
    :mod:`solvers.trees.gametree`), ``GameTree.from_openspiel(game)``,
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
    (:mod:`solvers.history.evaluate`).
check_fits, estimate_solve_bytes, estimate_tree_bytes
    Memory estimates; ``check_fits`` raises ``MemoryError`` naming the
    estimate and the memory available.
PublicTree
    A game as public nodes carrying each player's private states (layout in
    :mod:`solvers.trees.publictree`): ``PublicTree.from_game_tree(tree, labels)`` for
    small games, built directly for large ones; solved by the same
    :class:`Solver` (vector CFR, :mod:`solvers.public.rep`).
PublicPieces
    A public tree held as a trunk and parts, never whole (:mod:`solvers.pieces.local`): for trees
    too large to build at once; the same ``Solver``, iterating the parts one after the other.
RemotePieces
    A public tree named by a recipe and built by the Ray workers that solve it, the driver holding
    only the trunk (:mod:`solvers.pieces.remote`; ``Solver(..., backend=RayBackend(...))``).
DECISION, CHANCE, TERMINAL
    The node kinds of ``GameTree.node_kind`` (:mod:`solvers.kinds`).

A solver reaches the arrays it iterates through a *representation* chosen by
the type of the tree (:mod:`solvers.cfr.representation`): ``GameTree`` is
iterated by :class:`solvers.history.rep.HistoryTree`; another tree type plugs in
with ``solvers.cfr.representation.register(TreeType, RepresentationClass)``.

Flat policies are float64 arrays with one probability per infoset action,
aligned with ``tree.infoset_offset``.
"""

import os as _os

from solvers.cache_guard import guard as _guard

_guard(_os.path.dirname(__file__))  # before any kernel loads from the cache

from solvers.cfr.algorithms import ALGORITHMS, AlgorithmSpec
from solvers.history.best_response import BestResponse, best_response, expected_values, exploitability, nash_conv
from solvers.cfr.drive import solve
from solvers.history.evaluate import reach_and_values
from solvers.kinds import CHANCE, DECISION, TERMINAL
from solvers.memory import check_fits, estimate_solve_bytes, estimate_tree_bytes
from solvers.mccfr.solver import MCCFRSolver, SamplingGame, TableFull  # external-sampling MCCFR (solvers/mccfr/solver.py)
from solvers.trees.publictree import PublicTree
from solvers.public.rep import PublicTreeRep
from solvers.pieces.local import PublicPieces  # registers its representation
from solvers.pieces.remote import RemotePieces
from solvers.policy import check_policy, from_openspiel_policy, to_openspiel_policy
from solvers.cfr.result import SolveResult
from solvers.cfr.solver import PRECISIONS, UPDATES, Solver, check_threads
from solvers.trees.gametree import GameTree

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
