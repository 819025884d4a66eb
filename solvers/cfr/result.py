"""The result of :func:`solvers.solve`: policies, exploitability curve, value.

Saved as one ``.npz`` (``allow_pickle=False``) holding the arrays below plus a
JSON metadata string with the game id, algorithm, iterations, seed, solver
seconds, whether the run was interrupted, the library version and the
tree's digest (:func:`solvers.cfr.checkpoint.tree_digest`). The infoset layout
(``infoset_num_actions``, ``infoset_actions``) is stored too, so a file is
refused when loaded against a tree of another game, shape or payoffs. Files
are written durably (:func:`solvers.cfr.checkpoint.write_durably`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solvers import npz as _npz
from solvers.history.best_response import policy_values
from solvers.cfr.checkpoint import check_digest, tree_digest, write_durably
from solvers.policy import check_policy
from solvers.policy import from_openspiel_policy as _flat_from_openspiel
from solvers.policy import to_openspiel_policy

__all__ = ["SolveResult"]

_KIND = "coupsolve.solvers.SolveResult"
_ARRAYS = ("average_policy", "current_policy", "curve_iterations", "curve_seconds",
           "curve_exploitability", "game_value", "infoset_num_actions", "infoset_actions")


@dataclass(eq=False)
class SolveResult:
    """Policies and diagnostics of a solve.

    Attributes
    ----------
    game_id : str
        ``tree.game_id`` of the solved tree.
    algorithm : str
        Name in :data:`solvers.ALGORITHMS`.
    iterations : int
        Completed iterations (including any resumed from a checkpoint).
    seed : int
        Seed recorded for reproducibility (the algorithms are deterministic).
    average_policy, current_policy : numpy.ndarray
        Flat float64 policies aligned with ``tree.infoset_offset``; the
        average converges to a Nash equilibrium.
    curve_iterations, curve_seconds, curve_exploitability : numpy.ndarray
        The exploitability curve of the average policy: iteration, solver
        seconds so far (excluding the evaluations), exploitability.
    game_value : numpy.ndarray
        Expected utility ``[v0, v1]`` under the average policy.
    infoset_num_actions, infoset_actions : numpy.ndarray
        The tree's infoset layout (checked when loading).
    seconds : float
        Solver seconds (excluding exploitability evaluations).
    options : dict
        The speed options the solve ran with: ``precision``, ``updates`` and
        ``threads`` (the threads it used, which may be fewer than asked).
        Empty for a result not made by a solver.
    interrupted : bool
        True if the run stopped early on Ctrl-C (``KeyboardInterrupt``).
    version : str
        Library version that produced (or last saved) the result.
    tree : GameTree or None
        The tree, when known (needed by :meth:`policy_for`).
    tree_type : str
        The class of the tree it was solved on (``"GameTree"`` or ``"PublicTree"``), saved with it
        so a reader knows which tree to build before loading it onto one.
    infoset_hash : numpy.ndarray or None
        Optional, uint64 per information set: a key that finds it without the tree (such as a
        hash of the player's observations), saved with it; a strategy too large to rebuild its tree for, such as one
        solved in pieces (:class:`solvers.PublicPieces`), is then usable from the file alone.
    """

    game_id: str
    algorithm: str
    iterations: int
    seed: int
    average_policy: np.ndarray
    current_policy: np.ndarray
    curve_iterations: np.ndarray
    curve_seconds: np.ndarray
    curve_exploitability: np.ndarray
    game_value: np.ndarray
    infoset_num_actions: np.ndarray
    infoset_actions: np.ndarray
    seconds: float = 0.0
    options: dict = field(default_factory=dict)
    interrupted: bool = False
    version: str = field(default_factory=_npz.library_version)
    tree: object = field(default=None, repr=False)
    tree_type: str = ""
    infoset_hash: np.ndarray = None

    def __post_init__(self):
        if self.tree is not None and not self.tree_type:
            self.tree_type = type(self.tree).__name__

    @property
    def exploitability(self):
        """The last exploitability on the curve (NaN if none was computed)."""
        return float(self.curve_exploitability[-1]) if self.curve_exploitability.size else float("nan")

    def _policy(self, which):
        if which == "average":
            return self.average_policy
        if which == "current":
            return self.current_policy
        raise ValueError(f"which must be 'average' or 'current', got {which!r}")

    def _need_tree(self):
        if self.tree is None:
            raise ValueError("this result has no tree; load it with SolveResult.load(path, tree=...)")
        return self.tree

    def policy_for(self, key, which="average"):
        """``{action id: probability}`` at the information set with this key."""
        tree = self._need_tree()
        i = tree.infoset_index(key)
        o = int(tree.infoset_offset[i])
        probs = self._policy(which)[o:o + int(tree.infoset_num_actions[i])]
        return {int(a): float(p) for a, p in zip(tree.actions(i), probs)}

    def to_openspiel_policy(self, game, which="average"):
        """The policy as an OpenSpiel ``TabularPolicy`` for ``game``.

        Matched by information-state strings; OpenSpiel information sets the
        tree lacks stay uniform. ``ValueError`` if ``str(game) != game_id``.
        """
        return to_openspiel_policy(self._need_tree(), self._policy(which), game)

    @classmethod
    def from_policy(cls, tree, policy, algorithm="external", iterations=0, seed=0):
        """A result holding a given flat ``policy`` (as average and current).

        Its curve has one point (``iterations``, 0 seconds, the exploitability)
        and ``game_value`` is computed, so it can be saved, compared and
        converted like a solver's result.
        """
        sigma = check_policy(tree, policy).copy()
        value, ev0 = policy_values(tree, sigma)
        return cls(game_id=tree.game_id, algorithm=str(algorithm), iterations=int(iterations),
                   seed=int(seed), average_policy=sigma, current_policy=sigma.copy(),
                   curve_iterations=np.array([iterations], np.int64),
                   curve_seconds=np.zeros(1),
                   curve_exploitability=np.array([value]),
                   game_value=np.array([ev0, -ev0]),
                   infoset_num_actions=tree.infoset_num_actions.copy(),
                   infoset_actions=tree.infoset_actions.copy(), tree=tree)

    @classmethod
    def from_openspiel_policy(cls, tree, tabular_policy, algorithm="openspiel"):
        """A result holding an OpenSpiel ``TabularPolicy`` read onto ``tree``.

        ``ValueError`` if the policy is for another game or lacks one of the
        tree's information states. See :meth:`from_policy`.
        """
        return cls.from_policy(tree, _flat_from_openspiel(tree, tabular_policy), algorithm)

    # ---------------------------------------------------------------- storage
    def save(self, path):
        """Write the result to ``path`` as ``.npz`` arrays plus JSON metadata."""
        meta = dict(game_id=self.game_id, algorithm=self.algorithm, iterations=int(self.iterations),
                    seed=int(self.seed), seconds=float(self.seconds),
                    interrupted=bool(self.interrupted), options=dict(self.options))
        if hasattr(self.tree, "DIGEST_FIELDS"):  # not without a tree, nor for types without a digest
            meta["tree_digest"] = tree_digest(self.tree)
            meta["tree_type"] = self.tree_type
        arrays = {name: np.asarray(getattr(self, name)) for name in _ARRAYS}
        if self.infoset_hash is not None:
            if np.shape(self.infoset_hash) != np.shape(self.infoset_num_actions):
                raise ValueError("infoset_hash must have one key per information set")
            arrays["infoset_hash"] = np.asarray(self.infoset_hash, np.uint64)
        write_durably(path, _KIND, meta, arrays)

    @classmethod
    def load(cls, path, tree=None):
        """Read a result written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
        tree : GameTree or PublicTree, optional
            If given, the file must be for the same game, infoset layout, tree type and tree
            digest (``ValueError`` otherwise) and the result is attached to it.
        """
        meta, arrays = _npz.load(path, _KIND)
        missing = [name for name in _ARRAYS if name not in arrays]
        if missing:
            raise ValueError(f"{path} lacks arrays {missing}")
        if tree is not None:
            _check_tree(meta, arrays, tree, path)
        return cls(game_id=meta["game_id"], algorithm=meta["algorithm"],
                   iterations=int(meta["iterations"]), seed=int(meta["seed"]),
                   seconds=float(meta["seconds"]), interrupted=bool(meta["interrupted"]),
                   options=dict(meta.get("options", {})),
                   version=meta["version"], tree=tree, tree_type=meta.get("tree_type", "GameTree"),
                   **arrays)

    @staticmethod
    def attach(path, name, document):
        """Keep the JSON-serialisable ``document`` with the result file ``path`` as ``name`` (an
        analysis computed after the file was written): the file is rewritten durably, its arrays
        copied as they are; :meth:`load` ignores attachments, :meth:`attachment` reads one."""
        _npz.attach(path, name, document)

    @staticmethod
    def attachment(path, name):
        """The document attached to the result file ``path`` as ``name`` (:meth:`attach`), or None."""
        return _npz.attachment(path, name)

    @staticmethod
    def check_file(path, tree):
        """Refuse (``ValueError``) a result file that is not for ``tree`` (game, infoset layout, tree
        type and digest, as :meth:`load` with ``tree`` does), reading its tables but not its
        policies."""
        meta, arrays = _npz.load(path, _KIND, skip=("average_policy", "current_policy",
                                                    "infoset_hash"))
        _check_tree(meta, arrays, tree, path)


def _check_tree(meta, arrays, tree, path):
    """The checks of :meth:`SolveResult.load` with a tree."""
    kind = meta.get("tree_type", type(tree).__name__)
    if kind != type(tree).__name__:
        raise ValueError(f"{path} was solved on a {kind}, not on a {type(tree).__name__}")
    _npz.check_layout(tree, meta["game_id"], arrays["infoset_num_actions"], arrays["infoset_actions"],
                      path)
    check_digest(tree, meta.get("tree_digest"), path)
