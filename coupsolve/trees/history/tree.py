"""A Coup game tree: the game-agnostic ``solvers.GameTree`` and what only Coup knows about it.

:func:`build_tree` returns the ``GameTree`` alone (what the solvers take). :func:`build_coup_tree`
returns a :class:`CoupTree`, which *holds* that ``GameTree`` (``.tree``) beside the Coup-side extras
the analysis needs: the rules, the packed decision context of every history, one representative
history per information set, the OpenSpiel state of any history, and the sizes and seconds of the
build. Both run the compiled walk of :mod:`coupsolve.trees.history.builder`; both take the ``TreeSize`` of an
earlier :func:`coupsolve.count_tree` so the tree is counted once.
"""

from __future__ import annotations

import time

import numpy as np

from solvers import GameTree

from coupsolve.trees.history.builder import TreeSize, fill_tree
from coupsolve.rules import Rules

__all__ = ["CoupTree", "KeyRenderer", "build_coup_tree", "build_tree"]


class KeyRenderer:
    """Render an information set's key by replaying one of its histories through the OpenSpiel state.

    Parameters
    ----------
    rules : Rules
    level_start, child_start : ndarray, int64
        The tree's arrays (to find a history's path).
    rep : ndarray, int64, shape (num_infosets,)
        A history of each information set.
    """

    def __init__(self, rules, level_start, child_start, rep):
        self.rules, self.level_start, self.child_start, self.rep = rules, level_start, child_start, rep
        self._game = None

    def path(self, v: int) -> list[int]:
        """Child indices from the root to node v (parents found by binary search per level)."""
        ls, cs = self.level_start, self.child_start
        out = []
        d = int(np.searchsorted(ls, v, side="right")) - 1
        while d > 0:
            lo, hi = ls[d - 1], ls[d]
            parent = lo + int(np.searchsorted(cs[lo:hi], v, side="right")) - 1
            out.append(v - int(cs[parent]))
            v, d = parent, d - 1
        return out[::-1]

    def state(self, v: int):
        """The OpenSpiel state of history ``v`` (replayed from the root)."""
        from coupsolve.openspiel.game import load_game

        if self._game is None:
            self._game = load_game(self.rules)
        state = self._game.new_initial_state()
        for k in self.path(v):
            moves = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                     else state.legal_actions())
            state.apply_action(moves[k])
        return state

    def __call__(self, i: int) -> str:
        state = self.state(int(self.rep[i]))
        return state.information_state_string(state.current_player())


def _game_tree(rules, out, iset, counts):
    """The ``GameTree`` of a filled walk, with its key renderer."""
    m, na = int(counts[3]), int(counts[4])
    num_act = iset.nact[:m].copy()
    offset = np.zeros(m, dtype=np.int64)
    offset[1:] = np.cumsum(num_act)[:-1]
    renderer = KeyRenderer(rules, out.level_start, out.child_start, iset.rep[:m].copy())
    tree = GameTree(node_kind=out.node_kind, node_player=out.node_player,
                    node_infoset=out.node_infoset, child_start=out.child_start,
                    num_children=out.num_children, chance_prob=out.chance_prob, payoff=out.payoff,
                    level_start=out.level_start, infoset_player=iset.player[:m].copy(),
                    infoset_num_actions=num_act, infoset_offset=offset,
                    infoset_actions=iset.actions[:na].copy(), game_id=rules.game_string(),
                    infoset_keys=renderer, payoffs=out.payoffs if rules.players > 2 else None)
    return tree, renderer


def build_tree(rules: Rules, *, size: TreeSize | None = None, verbose: bool = False) -> GameTree:
    """The whole game tree of ``rules`` as a game-agnostic :class:`solvers.GameTree`.

    Parameters
    ----------
    rules : Rules
        Rules of any number of players; with three or more the tree carries every player's payoffs
        (``payoffs``), for :func:`solvers.history.best_response` and :func:`solvers.nash_conv` (the CFR
        solvers take two players only and say so).
    size : TreeSize, optional
        ``count_tree(rules)``, when the caller already counted (else it is counted here).
    verbose : bool
        Print the size and the memory bound before filling.

    Raises
    ------
    MemoryError
        Naming the estimate and the memory available, before allocating a tree that will not fit.

    For the Coup-side extras use :func:`build_coup_tree`.
    """
    out, iset, counts, _ = fill_tree(rules, size, verbose=verbose)
    return _game_tree(rules, out, iset, counts)[0]


class CoupTree:
    """A Coup game tree: a :class:`solvers.GameTree` (``tree``) and the Coup-side extras.

    Made by :func:`build_coup_tree`. Pass ``coup_tree.tree`` to the solvers.

    Attributes
    ----------
    tree : solvers.GameTree
    rules : Rules
    node_context : ndarray, int32, shape (num_nodes,), or None
        The packed decision context of every history (``coupsolve.engine.node_context``), when built
        with ``context=True``.
    infoset_rep : ndarray, int64, shape (num_infosets,)
        One history of each information set.
    build_info : dict
        ``histories``, ``infosets``, ``levels``, ``count_seconds``, ``fill_seconds``, ``seconds``,
        ``compile_seconds`` (the fill's kernel compiled or read from numba's cache first; not in
        ``seconds``), ``bytes``, ``bytes_per_history``.
    leaf_node : ndarray, int64, or None
        With ``leaves=True``: the histories that end at the turn limit (with no winner), ascending.
    leaf_key : ndarray, uint64, shape (len(leaf_node), players, 2), or None
        Each player's two observation hashes at each of those histories: two leaves with the same
        pair for a player are one information set of that player.
    """

    def __init__(self, tree, rules, node_context, infoset_rep, build_info, renderer,
                 leaf_node=None, leaf_key=None):
        self.tree, self.rules, self.node_context = tree, rules, node_context
        self.infoset_rep, self.build_info, self._renderer = infoset_rep, build_info, renderer
        self.leaf_node, self.leaf_key = leaf_node, leaf_key

    def state_at(self, v: int):
        """The OpenSpiel state of history ``v`` (replayed from the root)."""
        return self._renderer.state(v)

    def infoset_hashes(self) -> np.ndarray:
        """Each information set's first observation hash (uint64), as the public trees key theirs
        (``CoupPublicTree.infoset_hash``): replayed from the root along one history of each, so a
        strategy moves between the two trees by hash."""
        from solvers.trees.derive import parents

        from coupsolve.trees.stepwalk.build import sequence_hashes

        t = self.tree
        n = t.node_kind.shape[0]
        parent = parents(t)
        index = np.zeros(n, np.int64)
        index[1:] = np.arange(1, n) - t.child_start[parent[1:]]
        depth = np.searchsorted(t.level_start, np.arange(n), side="right") - 1
        rep = np.asarray(self.infoset_rep)
        paths = np.full((rep.shape[0], max(int(depth.max()), 1)), -1, np.int32)
        cur, d = rep.copy(), depth[rep].copy()
        while np.any(d > 0):
            live = d > 0
            paths[live, d[live] - 1] = index[cur[live]]
            cur[live] = parent[cur[live]]
            d[live] -= 1
        h = sequence_hashes(self.rules, paths, by_index=True)
        return h[np.arange(rep.shape[0]), t.infoset_player, 0]

    def __repr__(self):
        return f"CoupTree({self.tree!r}, context={self.node_context is not None})"


def build_coup_tree(rules: Rules, *, context: bool = True, size: TreeSize | None = None,
                    verbose: bool = False, progress=None, leaves: bool = False) -> CoupTree:
    """The whole game tree of ``rules`` (any number of players) with its Coup-side extras (:class:`CoupTree`).

    Parameters
    ----------
    rules : Rules
    context : bool
        Record every history's packed decision context (4 bytes per history), which
        :func:`coupsolve.analysis.history.analyse` needs.
    size : TreeSize, optional
        ``count_tree(rules)``, when the caller already counted.
    verbose : bool
        Print the size and the memory bound before filling.
    progress : callable, optional
        ``progress(histories filled, histories)``, called about once a second while the tree is
        filled (Ctrl-C stops the fill within about a second).
    leaves : bool
        List the histories that end at the turn limit and each player's observation there
        (``leaf_node``, ``leaf_key``), for depth-limited solving (:mod:`coupsolve.depth`): 40 bytes
        per terminal history and player pair.
    """
    out, iset, counts, info = fill_tree(rules, size, context=context, leaves=leaves, verbose=verbose,
                                        progress=progress)
    began = time.perf_counter()
    tree, renderer = _game_tree(rules, out, iset, counts)
    info.update(seconds=info["count_seconds"] + info["fill_seconds"] + time.perf_counter() - began,
                bytes=tree.nbytes, bytes_per_history=tree.nbytes / tree.num_nodes)
    k = int(counts[8])
    return CoupTree(tree, rules, out.context if context else None, renderer.rep, info, renderer,
                    out.leaf_node[:k].copy() if leaves else None, out.leaf_key[:k].copy() if leaves else None)
