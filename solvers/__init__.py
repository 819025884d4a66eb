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
    Run ``"cfr"``, ``"cfr+"`` (the default), ``"lcfr"``, ``"dcfr"``, ``"pcfr+"``,
    ``"hs-dcfr"``, ``"hs-pcfr+"`` or Magnetic Mirror Descent (``"mmd"``,
    ``"mmd-qre"``, or an :class:`~solvers.cfr.mmd.MMDSpec`; history and public
    trees, not pieces) to a number of iterations or a target; returns a
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

import importlib as _importlib
import os as _os

from solvers.cache_guard import guard as _guard

_guard(_os.path.dirname(__file__))  # before any kernel loads from the cache

# The passes' parallel loops run on OpenMP (numba's default threading layer here). Its threads wait
# for the next loop spinning by default: with another process on the cores, the spinning threads
# take the time the descheduled one needs and every level's loop waits for it, so a solve on all
# the cores of a busy machine ran many times slower than on one. Asleep they cost a wake-up per loop
# (docs/research/public-speed.md). Set before numba loads OpenMP; a user's setting wins.
if not {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"} & set(_os.environ):
    _os.environ["OMP_WAIT_POLICY"] = "passive"

#: Each public name and the module it is imported from on first use (numba, and every kernel module,
#: load only when a name that needs them is asked for: a command line's parser reads none).
_LAZY = {
    "ALGORITHMS": "solvers.cfr.algorithms", "AlgorithmSpec": "solvers.cfr.algorithms",
    "BestResponse": "solvers.history.best_response", "best_response": "solvers.history.best_response",
    "expected_values": "solvers.history.best_response", "exploitability": "solvers.history.best_response",
    "nash_conv": "solvers.history.best_response",
    "solve": "solvers.cfr.drive",
    "reach_and_values": "solvers.history.evaluate",
    "CHANCE": "solvers.kinds", "DECISION": "solvers.kinds", "TERMINAL": "solvers.kinds",
    "check_fits": "solvers.memory", "estimate_solve_bytes": "solvers.memory",
    "estimate_tree_bytes": "solvers.memory",
    "MCCFRSolver": "solvers.mccfr.solver", "SamplingGame": "solvers.mccfr.solver",
    "TableFull": "solvers.mccfr.solver",  # external-sampling MCCFR (solvers/mccfr/solver.py)
    "PublicTree": "solvers.trees.publictree",
    "PublicTreeRep": "solvers.public.rep",
    "PublicPieces": "solvers.pieces.local",
    "RemotePieces": "solvers.pieces.remote",
    "check_policy": "solvers.policy", "from_openspiel_policy": "solvers.policy",
    "to_openspiel_policy": "solvers.policy",
    "SolveResult": "solvers.cfr.result",
    "PRECISIONS": "solvers.options", "UPDATES": "solvers.options",
    "Solver": "solvers.cfr.solver", "check_threads": "solvers.cfr.solver",
    "GameTree": "solvers.trees.gametree",
}


def __getattr__(name):
    """A public name (:data:`_LAZY`), or a subpackage, imported on first use."""
    if name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = sorted(_LAZY)
