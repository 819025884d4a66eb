"""A two-player zero-sum game as a *public tree*: public nodes carrying each player's private states.

A history of the game is a public node (the sequence of what everybody observed) together with a
private state of each player (what that player alone observed, their own private actions included).
Instead of one entry per history, the public tree stores each public node once, with the list of each
player's private states at it ("entries"). Counterfactual reach goes down the tree as one number per
entry, values come up the same way, and the chance probabilities (which may couple both players'
private states: card removal) are kept only where the payoffs are read, as one matrix per group of
terminals. This is the vector form of CFR (Johanson, Bard, Lanctot, Gibson and Bowling, "Efficient Nash
equilibrium approximation through Monte Carlo counterfactual regret minimization", AAMAS 2012: public
chance sampling, here without sampling) and the range-vector layout of poker solvers. The solvers over it
are :mod:`solvers.public._kernel` and :class:`solvers.public.rep.PublicTreeRep`.

Layout
------
Public nodes are stored in level order like :class:`~solvers.GameTree`'s histories: node 0 is the root,
the children of a node are contiguous, ``child_start[s] : child_start[s] + num_children[s]``, the
children of the non-terminal nodes of level ``d`` taken in order make level ``d + 1``, so a forward pass
over ``range(num_nodes)`` walks the tree top down and a reversed one bottom up. All histories of a public
node are of one kind: a decision of one player (``node_player``), a chance event, or a terminal.

Entries (private states) live in one global array, ordered by node: node ``s`` owns entries
``entry_start[s] : entry_start[s + 1]``, player 0's first (``num_entries0[s]`` of them), then player 1's.
An entry's *local index* is its position among its player's entries at its node.

===================  ========  ==========================================================================
array                dtype     meaning
===================  ========  ==========================================================================
per public node (``N``):
``level_start``      int64     ``depth + 2`` entries; level ``d`` is ``range(level_start[d], ...[d+1])``
``node_kind``        int8      ``DECISION``, ``CHANCE`` or ``TERMINAL`` (:mod:`solvers.kinds`)
``node_player``      int8      the acting player (0 or 1) at decision nodes, else -1
``child_start``      int64     first child (any value at terminals)
``num_children``     int32     number of children
``entry_start``      int64     ``N + 1`` entries; the node's entries (player 0's, then player 1's)
``num_entries0``     int32     how many of them are player 0's
``term_matrix``      int32     at terminals, the matrix holding its chance weights, else -1
``term_scale``       float64   at terminals, the payoff to player 0 the matrix is scaled by, else 0
                               (a terminal with 0 pays nothing: the solving passes skip it)
per entry (``E``):
``entry_parent``     int32     local index of the same player's entry at the parent node it came from
                               (-1 at the root)
``entry_slot``       int8      when the entry's player acted at the parent: the action's position in
                               that entry's information set; else -1 (so an information set has at
                               most 127 actions: :data:`MAX_ACTIONS`)
``entry_ref``        int32     at a decision node, the entry's information set when its player acts
                               there, else -1; at a terminal, the entry's row (player 0) or column
                               (player 1) in the terminal's matrix; -1 at chance nodes (one field: an
                               entry never needs both, which saves 4 bytes per entry)
per matrix (``M``), stored sparse (only the cells with histories, row by row):
``matrix_start``     int64     ``M + 1`` entries; matrix ``m``'s cells are ``matrix_start[m] : ...[m+1]``
``matrix_cols``      int32     its number of columns
``matrix_rowp``      int64     ``M + 1`` entries; matrix ``m``'s row pointers are
                               ``row_ptr[matrix_rowp[m] : matrix_rowp[m + 1]]`` (rows + 1 of them)
per row pointer (``R + M``, ``R`` the matrices' rows):
``row_ptr``          int64     row ``r`` of matrix ``m`` is cells ``matrix_start[m] + row_ptr[k]`` up to
                               ``matrix_start[m] + row_ptr[k + 1]``, ``k = matrix_rowp[m] + r``
                               (relative to the matrix: 0 first, its number of cells last)
per cell (``C``):
``cell_col``         int32     the cell's column
``matrix_data``      float64   ``U[i, j]``: the sum over the histories of the terminal with player 0's
                               entry of row ``i`` and player 1's of column ``j`` of their chance
                               probability (times their payoff to player 0 when ``term_scale`` is 1 and
                               payoffs are not public); a cell absent is 0
per information set (``I``), as in ``GameTree``: ``infoset_player`` (int8), ``infoset_num_actions``
(int32), ``infoset_offset`` (int32: one tree holds fewer than 2**31 actions; a larger game is held
in pieces, each numbering its own), ``infoset_actions`` (int32, per action), and
``infoset_count``     int32    the number of histories in it (OpenSpiel's average strategy adds the
                               owner's reach once per history)
``infoset_node``      int32    its public node (an information set lies in exactly one)
===================  ========  ==========================================================================

At a decision node an entry of the actor may also have no information set (-1): its histories pass
through the node without a decision (one engine step whose events make several public nodes, the rest
of the step still to come); its entries at the children have slot -1 and it adds up their values like
an opponent's entry. Each information set is one entry of the acting player at one public node; every action of it leads to
the children of that node where an entry of the actor has that entry as parent and the action as slot
(one child when the action is public, several when what follows depends on others' cards, and one
entry per private outcome, e.g. which cards were kept). The opponent's entries at the children of a
decision node, and everybody's at the children of a chance node, have a parent and slot -1: chance
probabilities are not on the edges but in the matrices.

The value of a terminal ``z`` for player 0's entry ``e`` is
``term_scale[z] * sum_f U[entry_ref[e], entry_ref[f]] * reach[f]`` over player 1's entries ``f`` at
``z`` (and minus the transposed sum for player 1), ``U`` the matrix ``term_matrix[z]``
(:meth:`PublicTree.dense_matrix`). The kernels read it row by row: player 1's reach is summed per
column into a scratch vector, each row of player 0 is a sparse dot product with it; for player 1 the
rows are spread into the scratch vector weighted by player 0's reach (a run of consecutive entries of
player 0 sharing a row reads it once). Only the cells with histories are
stored: where chance last moved, most pairs of private states are impossible together (in the largest
tree measured, about one cell in twenty has histories: docs/research/design-measurements.md). Several terminals
may share a matrix (rows and columns are then indices into the entries of a common ancestor), which is
how a game with public payoffs (who won, or a count of what each player has left) stores a chance weight per pair
of private states only where chance last moved, never per terminal history.

Memory (:func:`estimate_public_tree_bytes`): 38 bytes per public node, 9 per entry, 12 per matrix
cell, 8 per row pointer, 20 per matrix, 17 per information set and 4 per action.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.trees.infosets import InfosetTable
from solvers.kinds import DECISION, TERMINAL
from solvers.trees.matrices import check_matrices, dense_matrix, sparse_bytes

__all__ = ["MAX_ACTIONS", "PublicTree", "PublicFlat", "check_num_actions", "estimate_public_tree_bytes",
           "flat_array", "public_flat"]


class PublicFlat(NamedTuple):
    """The arrays of a :class:`PublicTree`, as kernels take them (meanings in the module docstring)."""

    level_start: np.ndarray
    node_kind: np.ndarray
    node_player: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    entry_start: np.ndarray
    num_entries0: np.ndarray
    term_matrix: np.ndarray
    term_scale: np.ndarray
    entry_parent: np.ndarray
    entry_slot: np.ndarray
    entry_ref: np.ndarray
    matrix_start: np.ndarray
    matrix_cols: np.ndarray
    matrix_rowp: np.ndarray
    row_ptr: np.ndarray
    cell_col: np.ndarray
    matrix_data: np.ndarray
    infoset_player: np.ndarray
    infoset_num_actions: np.ndarray
    infoset_offset: np.ndarray
    infoset_count: np.ndarray
    infoset_node: np.ndarray


FLAT_DTYPES = dict(
    level_start=np.int64, node_kind=np.int8, node_player=np.int8, child_start=np.int64,
    num_children=np.int32, entry_start=np.int64, num_entries0=np.int32, term_matrix=np.int32,
    term_scale=np.float64, entry_parent=np.int32, entry_slot=np.int8, entry_ref=np.int32,
    matrix_start=np.int64, matrix_cols=np.int32, matrix_rowp=np.int64,
    row_ptr=np.int64, cell_col=np.int32, matrix_data=np.float64,
    infoset_player=np.int8, infoset_num_actions=np.int32, infoset_offset=np.int32,
    infoset_count=np.int32, infoset_node=np.int32,
)
_BYTES_PER_NODE = 1 + 1 + 8 + 4 + 8 + 4 + 4 + 8  # 38: node arrays, entry_start included
_BYTES_PER_ENTRY = 4 + 1 + 4
_BYTES_PER_INFOSET = 1 + 4 + 4 + 4 + 4
_BYTES_PER_ACTION = 4
#: The most actions an information set of a public tree has: an entry's slot is int8 (a large public
#: tree has hundreds of millions of entries, and few actions per information set).
MAX_ACTIONS = int(np.iinfo(np.int8).max)
_TOO_MANY = (f"a public tree holds at most {MAX_ACTIONS} actions per information set (entry_slot is "
             "int8): solve this game as a history tree (solvers.GameTree)")


def check_num_actions(infoset_num_actions, what="PublicTree"):
    """``ValueError`` naming the largest when an information set has more than :data:`MAX_ACTIONS`
    actions (the layout's ``entry_slot`` is int8)."""
    most = int(infoset_num_actions.max()) if infoset_num_actions.size else 0
    if most > MAX_ACTIONS:
        raise ValueError(f"{what}: an information set has {most} actions; {_TOO_MANY}")


def flat_array(name, a):
    """``a`` as :class:`PublicFlat`'s field ``name`` is held (the layout's dtype, contiguous), or
    ``ValueError`` naming the field when a value does not fit that dtype (a narrowed int32 field of
    a tree too large for one set of arrays: build it in pieces, :mod:`solvers.pieces.local`)."""
    dt = np.dtype(FLAT_DTYPES[name])
    a = np.asarray(a)
    if a.dtype != dt and a.size and dt.kind == "i" and a.dtype.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = int(a.min()), int(a.max())
        if lo < info.min or hi > info.max:
            if name == "entry_slot":
                raise ValueError(f"PublicTree: an action at slot {hi} of its information set; {_TOO_MANY}")
            raise ValueError(f"PublicTree: {name} holds {hi if hi > info.max else lo}, beyond "
                             f"{dt.name}: too large for one public tree; build it in pieces")
    return np.ascontiguousarray(a, dtype=dt)


def public_flat(arrays):
    """The :class:`PublicFlat` of ``arrays`` (a mapping with every field; any other key ignored),
    each as :func:`flat_array` holds it."""
    return PublicFlat(**{name: flat_array(name, arrays[name]) for name in PublicFlat._fields})


def estimate_public_tree_bytes(num_nodes, num_entries, num_cells, num_matrices, num_infosets,
                               num_actions, num_rows):
    """Bytes of a :class:`PublicTree` of these sizes (ints; ``num_cells`` those stored, with histories,
    ``num_rows`` the matrices' rows), before it is allocated."""
    return (_BYTES_PER_NODE * num_nodes + _BYTES_PER_ENTRY * num_entries
            + sparse_bytes(num_cells, num_rows, num_matrices)
            + _BYTES_PER_INFOSET * num_infosets + _BYTES_PER_ACTION * num_actions)


class PublicTree(InfosetTable):
    """A public tree (layout in the module docstring); solved by :class:`solvers.Solver` like a ``GameTree``.

    Parameters
    ----------
    game_id : str
        Identifies the game (strategy files and checkpoints record it).
    keys : callable or sequence of str, optional
        ``keys(i)`` or ``keys[i]``: the key (information-state string) of information set ``i``
        (``"infoset i"`` when not given).
    infoset_actions : ndarray, int32
        The game's action ids, per information set action.
    **arrays
        Every array of :class:`PublicFlat`, by name.

    Raises
    ------
    ValueError
        Arrays of the wrong shape or inconsistent with each other (checked in O(size), vectorised).
    """

    #: What :func:`solvers.cfr.checkpoint.tree_digest` hashes: the shape, the payoffs and the chance.
    DIGEST_FIELDS = ("node_kind", "num_children", "num_entries0", "term_scale", "row_ptr",
                     "cell_col", "matrix_data")

    def __init__(self, game_id, *, infoset_actions, keys=None, **arrays):
        missing = set(PublicFlat._fields) - set(arrays)
        extra = set(arrays) - set(PublicFlat._fields)
        if missing or extra:
            raise TypeError(f"PublicTree: missing arrays {sorted(missing)}, unknown {sorted(extra)}")
        conv = {}
        for name in PublicFlat._fields:
            a = flat_array(name, arrays[name])
            if a.ndim != 1:
                raise ValueError(f"PublicTree: {name} must be 1-D, got shape {a.shape}")
            conv[name] = a
        self.flat = PublicFlat(**conv)
        self.infoset_actions = np.ascontiguousarray(infoset_actions, dtype=np.int32)
        self.game_id = str(game_id)
        self._check()
        self._set_keys(keys if keys is not None else _numbered)

    # -- the GameTree-like infoset table (what Solver, policies and checkpoints read) --
    def __getattr__(self, name):
        flat = self.__dict__.get("flat")
        if flat is not None and name in PublicFlat._fields:
            return getattr(flat, name)
        raise AttributeError(name)

    @property
    def num_nodes(self):
        """Public nodes."""
        return self.flat.node_kind.shape[0]

    @property
    def num_entries(self):
        """Private-state entries, both players, all nodes."""
        return self.flat.entry_parent.shape[0]

    @property
    def num_histories(self):
        """Histories at decision nodes (the sum of ``infoset_count``)."""
        return int(self.flat.infoset_count.sum())

    @property
    def nbytes(self):
        """Bytes held by the arrays."""
        return sum(a.nbytes for a in self.flat) + self.infoset_actions.nbytes

    def __repr__(self):
        return (f"PublicTree({self.game_id!r}: {self.num_nodes} public nodes, {self.num_entries} "
                f"entries, {self.num_infosets} information sets, {self.num_actions} actions, "
                f"{self.flat.matrix_data.shape[0]} matrix cells)")

    def _check(self):
        f = self.flat
        n = f.node_kind.shape[0]
        per_node = ("node_player", "child_start", "num_children", "num_entries0", "term_matrix",
                    "term_scale")
        for name in per_node:
            if getattr(f, name).shape[0] != n:
                raise ValueError(f"PublicTree: {name} has {getattr(f, name).shape[0]} entries, "
                                 f"node_kind {n}")
        e = f.entry_parent.shape[0]
        for name in ("entry_slot", "entry_ref"):
            if getattr(f, name).shape[0] != e:
                raise ValueError(f"PublicTree: {name} has {getattr(f, name).shape[0]} entries, "
                                 f"entry_parent {e}")
        if f.entry_start.shape[0] != n + 1 or f.entry_start[0] != 0 or f.entry_start[-1] != e:
            raise ValueError("PublicTree: entry_start must have num_nodes + 1 entries from 0 to "
                             "the number of entries")
        counts = np.diff(f.entry_start)
        if np.any(counts < 0) or np.any(f.num_entries0 < 0) or np.any(f.num_entries0 > counts):
            raise ValueError("PublicTree: entry_start must increase and num_entries0 fit in it")
        if f.level_start[0] != 0 or f.level_start[-1] != n or np.any(np.diff(f.level_start) < 0):
            raise ValueError("PublicTree: level_start must increase from 0 to num_nodes")
        inner = f.node_kind != TERMINAL
        if np.any(f.node_kind[~inner] != TERMINAL) or np.any((f.node_kind < 0) | (f.node_kind > 2)):
            raise ValueError("PublicTree: node_kind must be DECISION, CHANCE or TERMINAL")
        kids = f.num_children[inner].astype(np.int64)
        if n > 1:
            expect = 1 + np.concatenate(([0], np.cumsum(kids)[:-1]))
            if np.any(f.child_start[inner] != expect) or kids.sum() != n - 1:
                raise ValueError("PublicTree: the children of the non-terminal nodes, in order, "
                                 "must be nodes 1 .. num_nodes-1")
        if np.any(kids <= 0):
            raise ValueError("PublicTree: every non-terminal node needs a child")
        dec = f.node_kind == DECISION
        if np.any((f.node_player[dec] != 0) & (f.node_player[dec] != 1)):
            raise ValueError("PublicTree: decision nodes need node_player 0 or 1")
        ni = f.infoset_player.shape[0]
        check_num_actions(f.infoset_num_actions)
        for name in ("infoset_num_actions", "infoset_offset", "infoset_count", "infoset_node"):
            if getattr(f, name).shape[0] != ni:
                raise ValueError(f"PublicTree: {name} must have one entry per information set")
        if ni:
            offs = np.concatenate(([0], np.cumsum(f.infoset_num_actions[:-1], dtype=np.int64)))
            if np.any(f.infoset_offset != offs) or int(f.infoset_num_actions.sum()) != \
                    self.infoset_actions.shape[0]:
                raise ValueError("PublicTree: infoset_offset must be the cumulative sum of "
                                 "infoset_num_actions, and infoset_actions one per action")
        check_matrices(f)

    def dense_matrix(self, m):
        """Matrix ``m`` as a dense ``rows x columns`` array (zeros where no cell is stored)."""
        return dense_matrix(self.flat, m)

    # -- construction from a history tree --
    @classmethod
    def from_game_tree(cls, tree, public_label, game_id=None):
        """The public tree of a :class:`~solvers.GameTree`, given which edges everybody sees.

        See :func:`solvers.trees.derive.derive` for the meaning of ``public_label``.
        """
        from solvers.trees.derive import derive

        arrays = derive(tree, public_label)
        keys = tree.infoset_key if hasattr(tree, "infoset_key") else None
        return cls(game_id or tree.game_id, infoset_actions=tree.infoset_actions, keys=keys,
                   **arrays)


def _numbered(i):
    return f"infoset {i}"
