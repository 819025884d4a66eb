"""A whole game tree stored as flat arrays: two-player zero-sum, or N players with all their payoffs.

Layout
------
Histories (nodes) are stored in level order (breadth first). Node 0 is the
root. The children of a node are contiguous, and the children of the
non-terminal nodes, taken in node order, are exactly the ranges
``1..num_nodes-1`` in that order, so every child has a larger index than its
parent and level ``d + 1`` is the concatenation of the children of level
``d``. A forward pass over ``range(num_nodes)`` therefore walks the tree top
down, a backward pass over the reversed range walks it bottom up, and both
read memory in order.

========================  =======  ============================================
array                     dtype    meaning
========================  =======  ============================================
``level_start``           int64    ``depth + 2`` entries; level ``d`` is
                                   ``range(level_start[d], level_start[d+1])``
``node_kind``             int8     ``DECISION`` (0), ``CHANCE`` (1) or
                                   ``TERMINAL`` (2), :mod:`solvers.kinds`
``node_player``           int8     the acting seat (0 .. N-1) at decision
                                   nodes, -1 otherwise
``node_infoset``          int32    information set of a decision node, else -1
``child_start``           int64    first child (any value at terminals)
``num_children``          int32    children are ``child_start[i] :
                                   child_start[i] + num_children[i]``
``chance_prob``           float64  probability of the edge into the node if its
                                   parent is a chance node, else 1.0
``payoff``                float64  utility to player 0 at terminals, else 0
                                   (player 1 receives minus that)
``infoset_player``        int8     owner (0 .. N-1) of each information set
``infoset_num_actions``   int32    number of legal actions
``infoset_offset``        int64    start of the infoset's slice in flat
                                   per-action arrays (cumulative sum of
                                   ``infoset_num_actions``, starting at 0)
``infoset_actions``       int32    the game's action ids, in child order: child
                                   ``k`` of a node in infoset ``I`` is action
                                   ``infoset_actions[infoset_offset[I] + k]``
========================  =======  ============================================

A two-player zero-sum tree stops there: player 1 receives ``-payoff``. Any
other game (three or more players, or two players whose payoffs do not sum
to zero) also carries ``payoffs`` (float64, shape ``(num_nodes, N)``, row
``i`` every player's utility at terminal ``i``, zeros elsewhere; its column 0
equals ``payoff``), and ``num_players`` is ``N``. Such a tree is for the
exact best response and NashConv (:func:`solvers.history.best_response.nash_conv`);
the CFR solvers, whose passes assume two players and a zero sum, refuse it
(:mod:`solvers.history.layout`).

Memory: 34 bytes per history (1 + 1 + 4 + 8 + 4 + 8 + 8), 13 bytes per
information set (1 + 4 + 8) and 4 bytes per infoset action, plus
``8 * (depth + 2)`` for ``level_start``; see
:func:`solvers.memory.estimate_tree_bytes`.
Validation uses a transient 8 bytes per history and per information set.
Infoset keys are either a sequence of strings or a callable rendering the key
of infoset ``i`` on demand (so a huge tree needs no per-infoset Python
objects). Policies, regrets and other per-action quantities are flat float64
arrays of length ``num_actions`` aligned with ``infoset_offset``.

The tree must have perfect recall (checked on construction): all histories of
an information set share the owner's previous information set and action.

Kernels take the twelve arrays as one :class:`FlatTree` named tuple
(:attr:`GameTree.flat`), not as positional arguments.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.trees import check as _tree_check, build
from solvers.kinds import TERMINAL
from solvers.trees.infosets import InfosetTable
from solvers.memory import BYTES_PER_ACTION, BYTES_PER_INFOSET, BYTES_PER_NODE, check_fits
from solvers.memory import estimate_tree_bytes

__all__ = ["GameTree", "FlatTree", "BYTES_PER_NODE", "BYTES_PER_INFOSET", "BYTES_PER_ACTION"]


class FlatTree(NamedTuple):
    """The arrays of a :class:`GameTree`, as kernels take them (numba accepts named tuples).

    Per node (``num_nodes`` entries): ``node_kind`` (int8), ``node_player`` (int8),
    ``node_infoset`` (int32), ``child_start`` (int64), ``num_children`` (int32),
    ``chance_prob`` (float64), ``payoff`` (float64). ``level_start`` (int64, ``depth + 2``).
    Per information set: ``infoset_player`` (int8), ``infoset_num_actions`` (int32),
    ``infoset_offset`` (int64). Per action: ``infoset_actions`` (int32). Meanings in the
    module docstring.
    """

    node_kind: np.ndarray
    node_player: np.ndarray
    node_infoset: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    chance_prob: np.ndarray
    payoff: np.ndarray
    level_start: np.ndarray
    infoset_player: np.ndarray
    infoset_num_actions: np.ndarray
    infoset_offset: np.ndarray
    infoset_actions: np.ndarray

_NODE_FIELDS = (
    ("node_kind", np.int8),
    ("node_player", np.int8),
    ("node_infoset", np.int32),
    ("child_start", np.int64),
    ("num_children", np.int32),
    ("chance_prob", np.float64),
    ("payoff", np.float64),
)
_INFOSET_FIELDS = (
    ("infoset_player", np.int8),
    ("infoset_num_actions", np.int32),
    ("infoset_offset", np.int64),
)


def _as_array(name, value, dtype):
    """1-D C-contiguous array of ``dtype``; no copy when it already is one."""
    if not isinstance(value, np.ndarray):
        try:
            value = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a 1-D numpy array, got {type(value).__name__}") from exc
    if value.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {value.shape}")
    target = np.dtype(dtype)
    if value.size == 0:
        return np.zeros(0, dtype=target)
    if target.kind == "f":
        if value.dtype.kind not in "fiu":
            raise TypeError(f"{name} must hold numbers ({target}), got dtype {value.dtype}")
    else:
        if value.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integers ({target}), got dtype {value.dtype}")
        if value.dtype != target:
            info = np.iinfo(target)
            if value.min() < info.min or value.max() > info.max:
                raise ValueError(f"{name} has values outside the range of {target}")
    return np.ascontiguousarray(value, dtype=target)


class GameTree(InfosetTable):
    """An extensive-form game as flat arrays (two-player zero-sum, or N players with ``payoffs``).

    All arguments are keyword-only; see the module docstring for the layout.
    The arrays are validated (dtypes, level order, consistency of nodes and
    information sets, chance probabilities, perfect recall) and a
    ``ValueError``/``TypeError`` naming the offending array and index is raised
    when they are not a valid tree. Arrays that already have the right dtype
    and are C-contiguous are kept without copying.

    Parameters
    ----------
    node_kind, node_player, node_infoset, child_start, num_children, chance_prob, payoff, level_start
        Per-node arrays (``level_start`` has one entry per level plus one).
    infoset_player, infoset_num_actions, infoset_offset, infoset_actions
        Per-infoset arrays and the flat action ids.
    game_id : str
        Identifies the game (an OpenSpiel game string or a JSON rules string);
        strategies saved for another ``game_id`` are refused.
    infoset_keys : sequence of str or callable
        Either ``num_infosets`` strings or ``key_fn(i) -> str``.
    payoffs : ndarray, float64, shape (num_nodes, N), optional
        Every player's payoff at the terminals, for a game that is not two-player zero-sum
        (``N >= 2``; column 0 equal to ``payoff``). ``None`` (the default): two players, zero-sum.
    """

    #: What :func:`solvers.cfr.checkpoint.tree_digest` hashes: the shape, the chance and the payoffs.
    DIGEST_FIELDS = ("node_kind", "num_children", "chance_prob", "payoff")

    def __init__(self, *, node_kind, node_player, node_infoset, child_start, num_children,
                 chance_prob, payoff, level_start, infoset_player, infoset_num_actions,
                 infoset_offset, infoset_actions, game_id, infoset_keys, payoffs=None):
        if not isinstance(game_id, str) or not game_id:
            raise TypeError(f"game_id must be a non-empty str, got {game_id!r}")
        given = dict(node_kind=node_kind, node_player=node_player, node_infoset=node_infoset,
                     child_start=child_start, num_children=num_children,
                     chance_prob=chance_prob, payoff=payoff, infoset_player=infoset_player,
                     infoset_num_actions=infoset_num_actions, infoset_offset=infoset_offset)
        for name, dtype in _NODE_FIELDS + _INFOSET_FIELDS:
            setattr(self, name, _as_array(name, given[name], dtype))
        self.level_start = _as_array("level_start", level_start, np.int64)
        self.infoset_actions = _as_array("infoset_actions", infoset_actions, np.int32)
        self.game_id = game_id
        self.payoffs = None if payoffs is None else self._check_payoffs(payoffs)
        if self.payoffs is not None:  # every player's payoff is part of what a policy means
            self.DIGEST_FIELDS = GameTree.DIGEST_FIELDS + ("payoffs",)
        self._check_shapes()
        self._set_keys(infoset_keys)
        self._check_structure()

    # ------------------------------------------------------------------ checks
    def _check_shapes(self):
        n = self.node_kind.shape[0]
        if n == 0:
            raise ValueError("the tree needs at least one node (the root)")
        for name, _ in _NODE_FIELDS:
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"{name} has length {getattr(self, name).shape[0]}, expected "
                                 f"num_nodes = {n} (the length of node_kind)")
        m = self.infoset_player.shape[0]
        for name, _ in _INFOSET_FIELDS:
            if getattr(self, name).shape[0] != m:
                raise ValueError(f"{name} has length {getattr(self, name).shape[0]}, expected "
                                 f"num_infosets = {m} (the length of infoset_player)")
        ls = self.level_start
        if ls.shape[0] < 2 or ls[0] != 0 or ls[1] != 1 or ls[-1] != n:
            raise ValueError("level_start must start with 0, 1 (the root alone at level 0) and "
                             f"end with num_nodes = {n}")
        if np.any(np.diff(ls) <= 0):
            raise ValueError("level_start must be strictly increasing (no empty level)")
        if m:
            if np.any((self.infoset_player < 0) | (self.infoset_player >= self.num_players)):
                raise ValueError(f"infoset_player must be a seat 0 .. {self.num_players - 1}")
            if np.any(self.infoset_num_actions < 1):
                raise ValueError("infoset_num_actions must be at least 1")
            if self.infoset_offset[0] != 0 or np.any(
                    self.infoset_offset[1:] != self.infoset_offset[:-1] + self.infoset_num_actions[:-1]):
                raise ValueError("infoset_offset must be the cumulative sum of infoset_num_actions "
                                 "starting at 0")
        total = int(self.infoset_offset[-1] + self.infoset_num_actions[-1]) if m else 0
        if self.infoset_actions.shape[0] != total:
            raise ValueError(f"infoset_actions has length {self.infoset_actions.shape[0]}, expected "
                             f"sum(infoset_num_actions) = {total}")
        if total and self.infoset_actions.min() < 0:
            raise ValueError("infoset_actions must be non-negative action ids")

    def _check_payoffs(self, payoffs):
        """``payoffs`` as a C-contiguous float64 (num_nodes, N) array agreeing with ``payoff``."""
        arr = np.ascontiguousarray(payoffs, dtype=np.float64)
        n = self.node_kind.shape[0]
        if arr.ndim != 2 or arr.shape[0] != n or not 2 <= arr.shape[1] <= 127:
            raise ValueError(f"payoffs must have shape (num_nodes, players) = ({n}, N) with "
                             f"2 <= N <= 127, got {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("payoffs has non-finite entries")
        if not np.array_equal(arr[:, 0], self.payoff):
            raise ValueError("payoffs[:, 0] must equal payoff (player 0's utility)")
        if np.any(arr[self.node_kind != TERMINAL] != 0.0):
            raise ValueError("payoffs must be 0 at the non-terminal nodes")
        return arr

    def _check_structure(self):
        n, m = self.num_nodes, self.num_infosets
        check_fits(8 * (n + m), "validating the game tree")
        code, index = _tree_check.check_tree(self.flat, np.empty(n, np.int64),
                                             np.empty(max(m, 1), np.int64), self.num_players)
        if code != _tree_check.OK:
            raise ValueError("invalid game tree: " + _tree_check.MESSAGES[code].format(i=index))

    # -------------------------------------------------------------- properties
    @property
    def flat(self):
        """The tree's arrays as a :class:`FlatTree` (no copies), the form kernels take."""
        return FlatTree(*(getattr(self, name) for name in FlatTree._fields))

    @property
    def num_players(self):
        """Number of players: 2 for a two-player zero-sum tree, else ``payoffs.shape[1]``."""
        return 2 if self.payoffs is None else int(self.payoffs.shape[1])

    @property
    def two_player_zero_sum(self):
        """Whether the tree is two-player zero-sum (``payoff`` alone), what the CFR solvers take."""
        return self.payoffs is None

    @property
    def num_nodes(self):
        """Number of histories (nodes)."""
        return int(self.node_kind.shape[0])

    @property
    def depth(self):
        """Index of the deepest level (the root is level 0)."""
        return int(self.level_start.shape[0] - 2)

    @property
    def nbytes(self):
        """Bytes held by the tree's arrays (infoset keys not included)."""
        extra = 0 if self.payoffs is None else self.payoffs.nbytes
        return int(sum(a.nbytes for a in self.flat)) + extra

    @staticmethod
    def estimate_bytes(num_nodes, num_infosets, num_actions, depth=0):
        """Bytes the arrays of a tree of this size occupy; :func:`solvers.memory.estimate_tree_bytes`."""
        return estimate_tree_bytes(num_nodes, num_infosets, num_actions, depth)

    # ---------------------------------------------------------------- builders
    @classmethod
    def from_openspiel(cls, game):
        """Enumerate a sequential OpenSpiel game: two-player zero-sum, or three or more players.

        Parameters
        ----------
        game : pyspiel.Game or str
            The game (or a string for ``pyspiel.load_game``).

        Returns
        -------
        GameTree
            Infoset keys are ``state.information_state_string(player)``, children
            follow ``legal_actions()`` / ``chance_outcomes()`` order, and
            ``game_id = str(game)``; with three or more players it carries
            ``payoffs`` (every player's returns).

        Raises
        ------
        ValueError
            If the game is not sequential, enumerable and with information-state
            strings, has two players but is not zero-sum, or if its tree lacks
            perfect recall.
        """
        return cls(**build.openspiel_arrays(game))

    @classmethod
    def from_nested(cls, root, game_id):
        """Build a tree from nested tuples (see :mod:`solvers.trees.build`).

        Parameters
        ----------
        root : tuple
            ``("terminal", u)``, ``("chance", [(p, child), ...])`` or
            ``("decision", player, key, [(action, child), ...])``.
        game_id : str
            Identifier stored in the tree.
        """
        return cls(**build.nested_arrays(root, game_id))

    def __repr__(self):
        players = "" if self.payoffs is None else f"num_players={self.num_players}, "
        return (f"GameTree(game_id={self.game_id!r}, {players}num_nodes={self.num_nodes}, "
                f"num_infosets={self.num_infosets}, num_actions={self.num_actions}, "
                f"depth={self.depth})")
