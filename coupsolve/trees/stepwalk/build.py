"""Two-player Coup's public tree (:class:`solvers.trees.publictree.PublicTree`), built from the compiled engine.

The history tree of :mod:`coupsolve.trees.history.builder` stores every history; this module walks the *public*
tree instead (:mod:`coupsolve.trees.stepwalk.walk`): one frame per public node holding its histories
(engine states, token hashes, entries, chance probabilities) only while the walk is below it, so no
history is ever stored and the history tree is never walked. A public node is a sequence of public
tokens (what a non-player sees of every event); a player's *entries* at a node are their distinct own
token sequences, in order of first appearance, and at a decision node each of the actor's entries is
one information set, keyed by the same first hash as :func:`coupsolve.trees.history.builder._walk`'s dictionary.

Histories in transit: :func:`coupsolve.engine.apply` takes forced steps (a one-choice decision, a
one-outcome draw) inside the step before it, so one step of a history can emit what is two steps of
another's (losing a challenge with two copies of one character: the loss is forced; with two
characters, it is a decision of its own). The history tree keys information sets by token sequence and
so merges histories of different depths; the public tree cuts public nodes at every token sequence
where some history stops, and a history whose step reaches past such a node passes through it *in
transit*: it has entries there (an actor's entry in transit has no information set, its children's
entries slot -1) and its pending events are absorbed on the way down.

Chance weights: a node is an *anchor* at the root, at every child of a chance node, and wherever its
histories are not exactly its anchor's matrix read at its entries' inherited rows (e.g. a public outcome
that depends on both players' cards). A terminal's matrix is its anchor's (dense, rows player 0's
entries at the anchor, columns player 1's), scaled by the terminal's payoff to player 0, which is public
in Coup; a terminal whose histories pay differently gets a matrix of its own (probability x payoff,
scale 1). Only anchors that some terminal uses are stored.

Two passes, as in :mod:`coupsolve.trees.history.builder`: :func:`count_public_tree` (sizes per level, the matrix
cells, the work pools' peak) and the fill in :func:`build_public_tree`, after
:func:`solvers.memory.check_fits` has accepted the tree, the information-set extras and the work pools.
Both run in chunks of public nodes (Ctrl-C stops them within a fraction of a second) and report
``progress(stage, histories_done, histories_total)`` between chunks. Rules whose histories do not
decompose this way (a public node whose stopping histories mix kinds or actors, an information set in
two public nodes, a step nobody observes) are refused with the reason.

Memory: the tree as filled, its matrices dense (then kept sparse,
:func:`solvers.trees.matrices.sparse_matrices`;
:func:`solvers.trees.publictree.estimate_public_tree_bytes`) plus 12 bytes per information set
(hash and context) and 10 per entry (hand and hash); while building, the work pools (:mod:`coupsolve.trees.stepwalk.node`), about 96 bytes
per child history of the nodes on the current path and ``4 * S_SIZE`` per history of those nodes, plus
the dense anchor matrices on the path, grown by doubling (each growth checked with ``check_fits``).
"""

from __future__ import annotations

import time
from collections import namedtuple
from typing import NamedTuple

import numpy as np

from solvers.memory import check_fits, format_bytes
from solvers.trees.publictree import FLAT_DTYPES as _PUBLIC_DTYPES
from solvers.trees.publictree import PublicFlat, PublicTree, estimate_public_tree_bytes
from solvers.trees.matrices import dense_bytes, sparse_bytes, sparse_matrices
from solvers.public.rep import estimate_public_solve_bytes

from coupsolve import engine as E
from coupsolve.trees.stepwalk import node as N
from coupsolve.trees.stepwalk.pools import LeafOut, Start, grow, leaf_out, new_work, seed
from coupsolve.trees import check_rules, max_depth
from coupsolve.trees.stepwalk.walk import init, replay, run
from coupsolve.rules import Rules

__all__ = ["PublicSize", "CoupPublicTree", "Start", "count_public_tree", "build_public_tree",
           "sequence_hashes", "coup_tree_bytes"]

_EXTRA_PER_INFOSET = 8 + 4  # infoset_hash (uint64) and infoset_context (CTX_DTYPE)
_EXTRA_PER_ENTRY = 2  # entry_hand (uint16)
_FIRST_BUDGET = 64  # public nodes in the first chunk; then sized to take about a quarter second


def coup_tree_bytes(nodes, entries, infosets, actions, matrix_bytes):
    """Bytes of a :class:`CoupPublicTree` of these sizes whose matrices take ``matrix_bytes``: the
    public tree (:func:`solvers.trees.publictree.estimate_public_tree_bytes`) and the information-set extras."""
    return (estimate_public_tree_bytes(nodes, entries, 0, 0, infosets, actions, 0) + matrix_bytes
            + _EXTRA_PER_INFOSET * infosets + _EXTRA_PER_ENTRY * entries)


class PublicSize(NamedTuple):
    """The exact size of a public tree, from the count pass (:func:`count_public_tree`)."""

    rules: Rules
    nodes: int
    entries: int
    infosets: int
    actions: int
    matrices: int
    cells: int
    cells_by_reason: tuple  # cells of matrices whose node is an anchor as the root or a chance
    # child, because its weights differ from its anchor's, because its histories' payoffs differ
    histories: int  # all histories (the history tree's nodes)
    decision_histories: int  # the sum of infoset_count
    level_nodes: np.ndarray  # int64, public nodes per level
    level_entries: np.ndarray  # int64, entries per level
    work_bytes: int  # the walk's pools at their peak
    seconds: float
    terminal_histories: int = 0  # histories at terminal public nodes (what ``leaf_states`` records)

    def tree_bytes(self) -> int:
        """Bytes of the :class:`CoupPublicTree` as filled: the public tree with its matrices dense (8
        bytes per cell; the tree keeps the non-zero ones, sparse, at most :meth:`sparse_bytes`) and the
        information-set extras."""
        return coup_tree_bytes(self.nodes, self.entries, self.infosets, self.actions,
                               dense_bytes(self.cells, self.matrices)) + 8 * self.entries  # entry_hash

    def sparse_bytes(self) -> int:
        """At most the bytes of the built tree's sparse matrices (every cell non-zero)."""
        return sparse_bytes(self.cells, self.cells, self.matrices)

    def peak_bytes(self, precision="float64", predictive=False) -> int:
        """Peak bytes of a build and then a solve: the tree as filled, plus the largest of the walk's
        pools (freed after the fill), the sparse matrices made from the dense ones, and the solve's
        working memory (:func:`solvers.public.rep.estimate_public_solve_bytes`) on a tree whose
        sparse matrices may outweigh the dense ones they replace (12 bytes per cell against 8)."""
        solve = estimate_public_solve_bytes(self.entries, self.actions, precision, predictive)
        return self.tree_bytes() + max(self.work_bytes, self.sparse_bytes(),
                                       solve + self.sparse_bytes() - 8 * self.cells)

    def describe(self) -> str:
        """One line of sizes (what ``coupsolve info`` prints)."""
        return (f"public tree: {self.nodes:,} public nodes, {self.entries:,} entries, "
                f"{self.cells:,} matrix cells in {self.matrices:,} matrices (anchors at chance: "
                f"{self.cells_by_reason[0]:,}, by weights: {self.cells_by_reason[1]:,}, by payoffs: "
                f"{self.cells_by_reason[2]:,}), {self.infosets:,} "
                f"information sets, {self.actions:,} actions; {format_bytes(self.tree_bytes())} "
                f"(+{format_bytes(self.work_bytes)} to build; count {self.seconds:.1f} s)")


class CoupPublicTree(NamedTuple):
    """A Coup public tree and what the analysis needs beside it.

    Attributes
    ----------
    tree : solvers.trees.publictree.PublicTree
    infoset_hash : ndarray, uint64, shape (num_infosets,)
        The first token hash of each information set (:func:`sequence_hashes`, ``[player, 0]``).
    infoset_context : ndarray, uint32 (``tables.CTX_DTYPE``), shape (num_infosets,)
        The packed decision context of each (``coupsolve.engine.node_context``).
    entry_hand : ndarray, uint16, shape (num_entries,)
        The face-down cards of each entry's player at its node, 3 bits per character
        (:func:`coupsolve.engine.core.pack_hand`), as the first history of the entry has them
        (all its histories hold the same cards: they are its player's private state). Only for the
        analysis, which needs the hands of players who do not decide (a claimant facing a
        challenge, both seats' hands at the first turn).
    rules : Rules
    build_info : dict
        ``count_seconds``, ``fill_seconds``, ``bytes``, ``work_bytes``.
    entry_hash : ndarray, uint64, shape (num_entries,), or None
        The first token hash of each entry's player there (as :attr:`infoset_hash`, at every node: at a
        turn-limit terminal it names the player's information set there, which depth-limited solving
        joins with the history tree's ``leaf_key``). Written by the walk that steps every history; the
        class walk leaves it None.
    weights : PublicTree or None
        The tree again with every terminal's matrix holding only chance weights, where ``tree``'s do
        not (a depth-limited game's leaves hold weight times value): what the analysis reads reach
        from. None: ``tree`` itself.
    leaf_histories : LeafOut or None
        Every history at a terminal public node (its node, entries, chance probability and state),
        when built with ``leaf_states``; else None.
    """

    tree: PublicTree
    infoset_hash: np.ndarray
    infoset_context: np.ndarray
    entry_hand: np.ndarray
    rules: Rules
    build_info: dict
    entry_hash: np.ndarray | None = None
    weights: PublicTree | None = None
    leaf_histories: LeafOut | None = None


# The arrays the fill writes: the ``solvers.trees.publictree`` layout (but ``level_start``, from the count) and
# the information-set extras, as one named tuple the kernels take. The fields the tree holds narrower
# are written in int64 (``solvers.trees.publictree.flat_array`` checks them when the tree is made).
OUT_DTYPES = {k: v for k, v in _PUBLIC_DTYPES.items()
               if k not in ("level_start", "matrix_rowp", "row_ptr", "cell_col")}  # matrices dense
OUT_DTYPES.update(infoset_offset=np.int64, infoset_count=np.int64, infoset_node=np.int64,
                   infoset_actions=np.int32, infoset_hash=np.uint64, infoset_context=E.CTX_DTYPE,
                   entry_hand=np.uint16, entry_hash=np.uint64)
PublicOut = namedtuple("PublicOut", list(OUT_DTYPES))
#: Bytes of one recorded terminal history (:class:`~coupsolve.trees.stepwalk.pools.LeafOut`).
LEAF_HISTORY_BYTES = 8 + 8 + 8 + 4 * E.S_SIZE


def _out(size=None):
    """Empty output arrays (the count pass), or arrays for a tree of ``size``."""
    if size is None:
        return PublicOut(**{k: np.zeros(0, dt) for k, dt in OUT_DTYPES.items()})
    length = dict.fromkeys(OUT_DTYPES, size.nodes)
    length.update(dict.fromkeys(("entry_parent", "entry_slot", "entry_ref", "entry_hand", "entry_hash"), size.entries))
    length.update({k: size.infosets for k in OUT_DTYPES if k.startswith("infoset_")})
    length.update(entry_start=size.nodes + 1, matrix_start=size.matrices + 1,
                  matrix_cols=size.matrices, matrix_data=size.cells, infoset_actions=size.actions)
    return PublicOut(**{k: np.zeros(length[k], dt) for k, dt in OUT_DTYPES.items()})


_ERRORS = {
    N.ERR_COLLISION: "a token-hash collision (two information sets would merge): please report it",
    N.ERR_RECALL: "a perfect-recall error: one information state reached from two parent states "
                  "or actions",
    N.ERR_ACTIONS: "a perfect-recall error: one information set sees two different legal action "
                   "lists",
    N.ERR_MIXED: "these rules do not decompose into a public tree: one public node holds histories "
                 "of different kinds or actors",
    N.ERR_SPLIT: "these rules do not decompose into a public tree: one information set lies in "
                 "two public nodes",
    N.ERR_EVENTS: "a step emitted more events than the walk's child table holds",
    N.ERR_SILENT: "these rules do not decompose into a public tree: a step that nobody observes",
}


def _walk(rules, size, out, progress, start=None, leaves=None):
    """Run the walk to the end (count pass without ``size``, fill pass with) from the game's start or
    from ``start``, writing the terminal histories into ``leaves`` (a ``LeafOut``) when given; return
    (W, G, seconds)."""
    P = rules.params()
    fill = size is not None
    W = new_work(max_depth(rules) + 2)
    G = np.zeros(N.NG, np.int64)
    if fill:
        nl = len(size.level_nodes)
        W.free_node[:nl] = np.concatenate(([0], np.cumsum(size.level_nodes)[:-1]))
        W.free_ent[:nl] = np.concatenate(([0], np.cumsum(size.level_entries)[:-1]))
    if start is None:
        init(P, W, G)
    else:
        W = seed(W, G, start)
    stage, total = ("fill", size.histories) if fill else ("count", None)
    leaves = leaf_out() if leaves is None else leaves
    budget, t0 = _FIRST_BUDGET, time.perf_counter()
    while True:
        t = time.perf_counter()
        status = run(P, W, out, G, fill, budget, leaves)
        if status == N.DONE:
            return W, G, time.perf_counter() - t0
        if status == N.MORE:
            dt = time.perf_counter() - t
            budget = max(16, int(budget * min(4.0, 0.25 / max(dt, 1e-3))))
            if progress is not None:
                progress(stage, int(G[N.G_HISTORIES]), total)
        elif status in _ERRORS:
            raise ValueError(f"{rules}: {_ERRORS[status]} (public depth {G[N.G_DEPTH]}, "
                             f"{G[N.G_NODES]:,} public nodes into the walk)")
        else:
            W = grow(W, status, int(G[N.G_NEED]))


def _work_bytes(W):
    return int(sum(a.nbytes for a in W))


def count_public_tree(rules: Rules, progress=None, start: Start | None = None) -> PublicSize:
    """Walk the public tree once without storing it: its exact size (:class:`PublicSize`).

    Parameters
    ----------
    rules : Rules
        Two-player rules.
    progress : callable, optional
        ``progress(stage, histories_done, histories_total)`` between chunks (``stage`` "count",
        ``histories_total`` None).
    start : Start, optional
        Root the tree at these histories instead of the game's start.

    Raises
    ------
    TypeError, ValueError
        Not a ``Rules``, not two players, or rules that do not decompose (the reason is given).
    """
    check_rules(rules, two_players=True)
    W, G, seconds = _walk(rules, None, _out(), progress, start)
    lv = W.lvl_nodes
    depth = int(np.count_nonzero(lv))
    return PublicSize(rules, int(G[N.G_NODES]), int(G[N.G_ENTRIES]), int(G[N.G_INFOSETS]),
                      int(G[N.G_ACTIONS]), int(G[N.G_MATRICES]), int(G[N.G_CELLS]),
                      tuple(int(x) for x in G[N.G_CELLS_WHY:N.G_CELLS_WHY + 3]),
                      int(G[N.G_HISTORIES]), int(G[N.G_DECHIST]), lv[:depth].copy(),
                      W.lvl_ent[:depth].copy(), _work_bytes(W), seconds, int(G[N.G_TERMHIST]))


def build_public_tree(rules: Rules, size: PublicSize | None = None, progress=None,
                      start: Start | None = None, leaf_states: bool = False) -> CoupPublicTree:
    """The public tree of two-player ``rules`` (counted first unless ``size`` is given).

    Parameters
    ----------
    rules : Rules
    size : PublicSize, optional
        ``count_public_tree(rules)``, when the caller already counted.
    progress : callable, optional
        ``progress(stage, histories_done, histories_total)`` between chunks of both passes.
    start : Start, optional
        Root the tree at these histories instead of the game's start (``size`` must be their count).
    leaf_states : bool
        Also record every history at a terminal public node, with its state
        (:attr:`CoupPublicTree.leaf_histories`): what the leaves of a tree cut before the game's end
        are valued from (:mod:`coupsolve.search.leaves`).

    Returns
    -------
    CoupPublicTree

    Raises
    ------
    MemoryError
        Before allocating, when the tree and the walk's pools will not fit (both figures named).
    ValueError
        As :func:`count_public_tree`, or ``size`` of other rules.
    """
    check_rules(rules, two_players=True)
    if size is None:
        size = count_public_tree(rules, progress, start)
    elif not isinstance(size, PublicSize) or size.rules != rules:
        raise ValueError("size must be count_public_tree(rules) of these very rules")
    recorded = size.terminal_histories if leaf_states else 0
    check_fits(size.tree_bytes() + max(size.work_bytes, size.sparse_bytes()) + recorded * LEAF_HISTORY_BYTES,
               f"the public tree of {rules} ({size.nodes:,} public nodes, {size.infosets:,} "
               f"information sets{f', {recorded:,} leaf histories' if recorded else ''})")
    out, leaves = _out(size), leaf_out(recorded)
    W, G, seconds = _walk(rules, size, out, progress, start, leaves)
    got = (int(G[N.G_NODES]), int(G[N.G_ENTRIES]), int(G[N.G_INFOSETS]), int(G[N.G_CELLS]))
    if got != (size.nodes, size.entries, size.infosets, size.cells):
        raise RuntimeError(f"the fill pass found {got} (nodes, entries, information sets, cells), "
                           f"the count pass {(size.nodes, size.entries, size.infosets, size.cells)}")
    work = _work_bytes(W)
    del W
    out.entry_start[-1] = size.entries
    level_start = np.concatenate(([0], np.cumsum(size.level_nodes)))
    arrays = {k: getattr(out, k) for k in PublicFlat._fields if k in out._fields}
    arrays.update(sparse_matrices(out.matrix_start, out.matrix_cols, out.matrix_data))
    tree = PublicTree(rules.game_string(), infoset_actions=out.infoset_actions,
                      level_start=level_start, **arrays)
    info = dict(count_seconds=size.seconds, fill_seconds=seconds, bytes=tree.nbytes
                + out.infoset_hash.nbytes + out.infoset_context.nbytes + out.entry_hand.nbytes
                + out.entry_hash.nbytes, work_bytes=work)
    return CoupPublicTree(tree, out.infoset_hash, out.infoset_context, out.entry_hand, rules, info,
                          out.entry_hash, leaf_histories=leaves if leaf_states else None)


def sequence_hashes(rules: Rules, actions, by_index: bool = False) -> np.ndarray:
    """Both players' two token hashes after an action sequence, as the builder keys information sets.

    Parameters
    ----------
    rules : Rules
    actions : sequence of int, or int array of shape (n, L) padded with -1
        Action and chance outcome ids from the initial state (with ``by_index``, positions in each
        node's legal action or chance outcome list, as ``KeyRenderer.path`` gives them).
    by_index : bool

    Returns
    -------
    ndarray, uint64
        Shape (2, 2) for one sequence, (n, 2, 2) for rows: ``[..., player, k]``, hash ``k`` of that
        player's token sequence; ``[player, 0]`` is :attr:`CoupPublicTree.infoset_hash`'s key.

    Raises
    ------
    ValueError
        An action not legal where it is played.
    """
    paths = np.asarray(actions, dtype=np.int32)
    one = paths.ndim == 1
    paths = np.ascontiguousarray(paths.reshape(1, -1) if one else paths)
    out = np.zeros((paths.shape[0], 2, 2), np.uint64)
    bad = replay(rules.params(), paths, bool(by_index), out)
    if bad >= 0:
        raise ValueError(f"sequence {bad}: an action that is not legal where it is played")
    return out[0] if one else out
