"""The seam between a :class:`~solvers.cfr.solver.Solver` and the arrays it iterates.

A solver object (:class:`solvers.Solver`) keeps the algorithm's bookkeeping:
the iteration count, the clock, the exploitability curve, checkpoints and the
:class:`~solvers.SolveResult`. Everything that depends on how the game is
stored (which buffers exist, their layout and the kernels that iterate them)
lives behind a *representation*: an object made for one tree, one algorithm
and one set of speed options, chosen by the type of the tree the solver is
given (:func:`representation_for`). :class:`~solvers.history.rep.HistoryTree`
iterates a :class:`~solvers.GameTree` (every history, level by level); a
public-tree representation registers itself beside it for its own tree type
with :func:`register`, and :func:`solvers.solve`, the command line and the
analyses need no change.

The interface (:class:`Representation`) is small. Policies cross it in the
*tree's order*: flat float64 arrays of ``game_tree.num_actions``
probabilities aligned with ``game_tree.infoset_offset``, whatever order the
representation keeps internally.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Representation", "register", "representation_for", "check_state"]


@runtime_checkable
class Representation(Protocol):
    """What a :class:`~solvers.Solver` needs from the storage of a game.

    Constructed as ``cls(tree, spec, precision, updates, threads)``
    (``spec`` an :class:`~solvers.AlgorithmSpec`; the options validated by
    the solver); the constructor checks that its working memory fits
    (:func:`solvers.check_fits`) before allocating it, and starts from the
    uniform strategy at iteration 0.

    Attributes
    ----------
    game_tree : GameTree
        The tree whose flat order policies, checkpoints and results use (its
        ``game_id``, ``num_actions``, ``infoset_num_actions``,
        ``infoset_actions``).
    iterations : int
        Completed iterations.
    threads : int
        The threads it runs on (may be fewer than asked, for example on a small tree).
    """

    game_tree: object
    iterations: int
    threads: int

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads) -> int:
        """Bytes of working memory the constructor will allocate (nothing allocated here)."""

    def iterate(self, count: int) -> None:
        """Run ``count`` iterations in place. After a ``KeyboardInterrupt`` the state is that of
        the last complete iteration (and ``iterations`` counts it)."""

    def evaluate(self) -> tuple:
        """``(br0, br1, ev0)`` of the average policy: each player's best-response value and
        player 0's on-policy value (:func:`solvers.history.best_response.exploitability_of` turns
        them into the exploitability)."""

    def average_policy(self) -> np.ndarray:
        """The normalised average policy, tree order (a new float64 array)."""

    def current_policy(self) -> np.ndarray:
        """The current (last iterate's) policy, tree order (a new float64 array)."""

    def get_state(self) -> dict:
        """``{"regret", "cumulative", "sigma"}``: arrays of ``num_actions`` (float64, or float32 where
        the representation keeps them so), tree order, from which :meth:`set_state` restores the
        iterates bit for bit."""

    def set_state(self, state: dict, iterations: int) -> None:
        """Restore what :meth:`get_state` returned, at iteration ``iterations``."""


def check_state(state, num_actions):
    """Refuse a :meth:`Representation.get_state` dict whose arrays are not one per action.

    Raises
    ------
    ValueError
        Naming the array and its shape.
    """
    for name in ("regret", "cumulative", "sigma"):
        if state[name].shape != (num_actions,):
            raise ValueError(f"checkpoint array {name} has shape {state[name].shape}, "
                             f"expected {(num_actions,)}")


_REGISTRY: list = []  # (tree type, family, representation class), most recently registered first


def register(tree_type, representation, family="cfr"):
    """Make :func:`representation_for` choose ``representation`` for trees of ``tree_type``.

    Parameters
    ----------
    tree_type : type
        The class of trees this representation iterates (subclasses included).
    representation : type
        A class implementing :class:`Representation`.
    family : str
        The algorithms it runs: ``"cfr"`` (an :class:`~solvers.AlgorithmSpec`) or the ``family``
        of another spec (``"mmd"``: :class:`~solvers.cfr.mmd.MMDSpec`).
    """
    if not isinstance(tree_type, type) or not isinstance(representation, type):
        raise TypeError("register(tree_type, representation) takes two classes")
    _REGISTRY.insert(0, (tree_type, family, representation))


#: The modules that register the solvers' own representations (imported by :func:`representation_for`
#: on first use: ``import solvers`` imports no kernel module). Each registers after what it imports, so a
#: tree type registers after its base type and is found first.
_BUILTIN = ("solvers.history.rep", "solvers.history.mmd", "solvers.public.rep", "solvers.public.mmd",
            "solvers.pieces.local",
            "solvers.pieces.remote")


def _register_builtin():
    import importlib

    for name in _BUILTIN:
        importlib.import_module(name)


def representation_for(tree, spec=None):
    """The representation class registered for ``tree``'s type and ``spec``'s family (the CFR
    family when ``spec`` is None or has none; the latest registration wins).

    Raises
    ------
    TypeError
        If no representation takes trees of this type (for this family).
    """
    family = getattr(spec, "family", "cfr")
    _register_builtin()
    for tree_type, fam, representation in _REGISTRY:
        if isinstance(tree, tree_type) and fam == family:
            return representation
    known = ", ".join(t.__name__ for t, f, _ in reversed(_REGISTRY) if f == family) or "none"
    what = "" if family == "cfr" else f" for {spec.name}"
    raise TypeError(f"tree must be a GameTree (or a type with a registered representation{what}: "
                    f"{known}), got {type(tree).__name__}")
