"""The public tree of two-player Coup rooted at any public state, with a range for each player.

The tree's root is a chance node over the pairs of private states at the :class:`PublicRoot`, each
weighted by :meth:`PublicRoot.weights` (the histories' chance probabilities, so card removal, times
both ranges, normalised); its one child is the public state, and below it the walk is the walk of
:mod:`coupsolve.trees.stepwalk.build` from the game's start, started from the histories there
(:class:`coupsolve.trees.stepwalk.pools.Start`). When each player has a single private state at the
root (the game's start) there is nothing for chance to choose and no chance node is put above it, so
the tree rooted at the start is the ordinary public tree, array for array.

The result is a :class:`~coupsolve.trees.stepwalk.build.CoupPublicTree` whose ``tree`` is a plain
:class:`solvers.PublicTree`: every solver, the best response and exploitability, the strategy files and
the analysis take it as they take the tree from the start. Its information sets keep the token hashes
they have in the tree from the start (``infoset_hash``), so a strategy of the whole game is read onto
it by hash (:func:`restrict_policy`), and a strategy of it onto the whole game the same way.

Turns are counted from the game's start: the tree stops where the game of ``rules`` stops, at the
end of turn ``rules.turn_limit`` (its limit payoff there), so a tree that looks ``k`` turns ahead of a
root in turn ``t`` takes ``rules.replace(turn_limit=root.turn_limit_ahead(k))``; the rules may differ
from the root's only in the turn limit.

Memory: counted before it is built (:func:`count_rooted_public_tree`, the walk's count pass), and
:func:`build_public_tree <coupsolve.trees.stepwalk.build.build_public_tree>` checks that the tree and
the walk's pools fit (:func:`solvers.memory.check_fits`) before it allocates them; the chance root adds
one node and two entries.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers import CHANCE, PublicTree
from solvers.memory import check_fits, format_bytes
from solvers.trees.derive import within

from coupsolve.rules import Rules
from coupsolve.trees import check_rules
from coupsolve.trees.rooted.root import PublicRoot, public_root
from coupsolve.trees.stepwalk.build import (LEAF_HISTORY_BYTES, CoupPublicTree, PublicSize, build_public_tree,
                                            count_public_tree)
from coupsolve.trees.stepwalk.pools import Start

__all__ = ["RootedSize", "build_rooted_public_tree", "count_rooted_public_tree", "restrict_policy",
           "rooted_start"]

_CHANCE_ROOT_BYTES = 38 + 2 * (9 + 2)  # one public node, two entries (with their hands)


def _check_rules(rules, root):
    """``ValueError`` unless ``rules`` are the root's but for a turn limit that reaches the root."""
    check_rules(rules, two_players=True)
    if not isinstance(root, PublicRoot):
        raise TypeError(f"root must be a PublicRoot (coupsolve.trees.rooted.public_root), got "
                        f"{type(root).__name__}")
    if rules.replace(turn_limit=root.rules.turn_limit) != root.rules:
        differ = [k for k, v in rules.to_dict().items() if k != "turn_limit" and root.rules.to_dict()[k] != v]
        raise ValueError(f"the rules differ from the root's in {', '.join(differ)} (only the turn limit may)")
    if rules.turn_limit < root.turn:
        raise ValueError(f"turn_limit {rules.turn_limit} ends the game before the root's turn {root.turn}")


def _under(rules, root):
    """``root`` as the game of ``rules`` reaches it: a history in transit there (mid-step, its forced
    steps pending) finishes its step under the tree's rules, whose turn limit may end the game at once."""
    if rules == root.rules or not root.node.start.pending.any():
        return root
    return public_root(rules, root.actions)


def rooted_start(root: PublicRoot, range0, range1, prune: float = 0.0, keep=(True, True)) -> Start:
    """The walk's start at ``root``: its histories, each weighted by its chance probability times both
    players' ranges at its private states, normalised (:meth:`PublicRoot.weights` spread over the
    histories of each pair). With ``prune`` > 0, the lightest histories that together weigh at most
    ``prune`` are left out (the rest renormalised), all but the first history of each private state
    ``keep`` names for its player (its first history of positive weight), so that it keeps its entry
    and information sets in the tree: ``keep[p]`` is True (every private state of player ``p`` with a
    history of positive weight; in the same order then), False (none), or the private states'
    indices."""
    r0, r1 = root.check_range(0, range0), root.check_range(1, range1)
    root.weights(r0, r1)  # refuses ranges that no pair allows
    if not 0.0 <= prune < 1.0:
        raise ValueError(f"prune must be a share of the root's weight in [0, 1), got {prune:g}")
    s, e = root.node.start, root.node.entry
    w = s.prob * r0[e[:, 0]] * r1[e[:, 1]]
    w = w / w.sum()
    if prune > 0:
        keep_private = keep
        order = np.argsort(w, kind="stable")
        keep = np.ones(w.size, bool)
        keep[order[np.cumsum(w[order]) <= prune]] = False
        live = np.flatnonzero(w > 0)  # a kept history must weigh something: a pair the tree weighs 0 has no leaf
        for p in (0, 1):
            hands, first = np.unique(e[live, p], return_index=True)
            first = live[first]  # each hand's first history of positive weight
            if keep_private[p] is True:
                keep[first] = True
            elif keep_private[p] is not False:
                keep[first[np.isin(hands, np.asarray(keep_private[p], np.int64))]] = True
        rows = np.repeat(keep, s.pending)
        s = Start(s.states[keep], s.hashes[keep], w[keep], s.pending[keep], s.rows[rows])
        w = s.prob
    return s._replace(prob=w / w.sum())


def _keep_key(keep):
    """``keep`` (of :func:`rooted_start`) as a comparable tuple."""
    return tuple(k if isinstance(k, bool) else tuple(int(i) for i in k) for k in keep)


class RootedSize(NamedTuple):
    """The size of a rooted public tree: the walk's count (:class:`PublicSize`) below the root, and
    whether a chance root goes above it (some player with more than one private state there)."""

    rules: Rules
    root: PublicRoot
    start: Start
    walk: PublicSize
    chance_root: bool
    prune: float = 0.0
    keep: tuple = (True, True)

    @property
    def nodes(self) -> int:
        return self.walk.nodes + int(self.chance_root)

    @property
    def entries(self) -> int:
        return self.walk.entries + 2 * int(self.chance_root)

    @property
    def infosets(self) -> int:
        return self.walk.infosets

    def tree_bytes(self) -> int:
        """Bytes of the tree as filled (:meth:`PublicSize.tree_bytes`) and its chance root."""
        return self.walk.tree_bytes() + _CHANCE_ROOT_BYTES * self.chance_root

    def peak_bytes(self, precision="float64", predictive=False) -> int:
        """Peak bytes of a build and then a solve (:meth:`PublicSize.peak_bytes`) and the chance root."""
        return self.walk.peak_bytes(precision, predictive) + _CHANCE_ROOT_BYTES * self.chance_root

    def describe(self) -> str:
        """One line: where the tree is rooted and the walk's figures."""
        return f"rooted at turn {self.root.turn}, public path {list(self.root.public_path)}: " + \
            self.walk.describe() + (" (+ the chance root)" if self.chance_root else "")


def count_rooted_public_tree(rules: Rules, root: PublicRoot, range0, range1, progress=None,
                             prune: float = 0.0, keep=(True, True)) -> RootedSize:
    """The exact size of the public tree of ``rules`` rooted at ``root`` with these ranges (and the
    lightest histories pruned, :func:`rooted_start`).

    Raises
    ------
    ValueError
        Rules other than the root's (but for the turn limit), a turn limit before the root's turn, or
        ranges refused by :meth:`PublicRoot.weights` (one line naming the problem).
    """
    _check_rules(rules, root)
    root = _under(rules, root)
    start = rooted_start(root, range0, range1, prune, keep)
    walk = count_public_tree(rules, progress, start)
    return RootedSize(rules, root, start, walk, max(root.num_private) > 1, prune, _keep_key(keep))


def build_rooted_public_tree(rules: Rules, root: PublicRoot, range0, range1, size: RootedSize | None = None,
                             progress=None, leaf_states: bool = False, prune: float = 0.0,
                             keep=(True, True)) -> CoupPublicTree:
    """The public tree of ``rules`` rooted at ``root``: a chance node over the pairs of private states
    weighted by ``range0`` and ``range1`` (one non-negative weight per private state of each player, in
    the order of :meth:`PublicRoot.hands`), then the game from that public state (module docstring).

    Parameters
    ----------
    rules : Rules
        The root's rules, or the same with another turn limit (counted from the game's start).
    root : PublicRoot
        From :func:`coupsolve.trees.rooted.public_root`.
    range0, range1 : array_like, float
        The players' ranges (any scale; normalised with the chance probabilities).
    size : RootedSize, optional
        :func:`count_rooted_public_tree` of the same arguments, when already counted.
    progress : callable, optional
        ``progress(stage, histories_done, histories_total)``, as the ordinary builder's.
    leaf_states : bool
        Record every history at a terminal public node (``leaf_histories``, its node numbered in the
        rooted tree; as the ordinary builder's).
    prune : float
        Leave out the lightest histories at the root that together weigh at most this share
        (:func:`rooted_start`); 0 keeps them all.
    keep : pair
        With ``prune``, the private states of each player that keep a history (:func:`rooted_start`).

    Returns
    -------
    CoupPublicTree

    Raises
    ------
    ValueError
        As :func:`count_rooted_public_tree`, or ``size`` of another root or other ranges.
    MemoryError
        Before allocating, when the tree will not fit.
    """
    if size is None:
        size = count_rooted_public_tree(rules, root, range0, range1, progress, prune, keep)
    elif not isinstance(size, RootedSize) or size.rules != rules or size.root.actions != root.actions or \
            (size.prune, size.keep) != (prune, _keep_key(keep)) or \
            not np.array_equal(size.start.prob, rooted_start(size.root, range0, range1, prune, keep).prob):
        raise ValueError("size must be count_rooted_public_tree of these very rules, root and ranges")
    root = size.root
    recorded = size.walk.terminal_histories * LEAF_HISTORY_BYTES if leaf_states else 0
    check_fits(size.tree_bytes() + max(size.walk.work_bytes, size.walk.sparse_bytes()) + recorded,
               f"the public tree of {rules} rooted at turn {root.turn} ({size.nodes:,} public nodes, "
               f"{format_bytes(size.tree_bytes())})")
    built = build_public_tree(rules, size.walk, progress, size.start, leaf_states)
    path = root.public_path
    game_id = rules.game_string() + (f"+root({'.'.join(map(str, path))})" if path else "")
    tree = _with_chance_root(built.tree, game_id) if size.chance_root else built.tree
    if not size.chance_root and game_id != tree.game_id:
        tree = PublicTree(game_id, infoset_actions=tree.infoset_actions, **tree.flat._asdict())
    hand, hashes = built.entry_hand, built.entry_hash
    if size.chance_root:  # the root's two entries: no cards dealt yet, nothing observed
        hand = np.concatenate(([0, 0], hand)).astype(np.uint16)
        hashes = np.concatenate((np.zeros(2, np.uint64), hashes))
    info = dict(built.build_info, public_path=list(path), turn=root.turn, chance_root=size.chance_root)
    leaves = built.leaf_histories
    if leaves is not None and size.chance_root:
        leaves = leaves._replace(node=leaves.node + 1)
    return built._replace(tree=tree, entry_hand=hand, entry_hash=hashes, build_info=info, leaf_histories=leaves)


def _with_chance_root(tree: PublicTree, game_id: str) -> PublicTree:
    """``tree`` under a chance node with one child (it) and one entry per player, the parent of every
    entry at its root: the pair weights of its root's matrix become that chance node's."""
    f = tree.flat._asdict()
    n0_root = int(f["entry_start"][1])
    parent = f["entry_parent"].copy()
    parent[:n0_root] = 0
    arrays = dict(f)
    arrays.update(
        level_start=np.concatenate(([0], f["level_start"] + 1)),
        node_kind=np.concatenate(([CHANCE], f["node_kind"])),
        node_player=np.concatenate(([-1], f["node_player"])),
        child_start=np.concatenate(([1], f["child_start"] + 1)),
        num_children=np.concatenate(([1], f["num_children"])),
        entry_start=np.concatenate(([0], f["entry_start"] + 2)),
        num_entries0=np.concatenate(([1], f["num_entries0"])),
        term_matrix=np.concatenate(([-1], f["term_matrix"])),
        term_scale=np.concatenate(([0.0], f["term_scale"])),
        entry_parent=np.concatenate(([-1, -1], parent)),
        entry_slot=np.concatenate(([-1, -1], f["entry_slot"])),
        entry_ref=np.concatenate(([-1, -1], f["entry_ref"])),
        infoset_node=f["infoset_node"] + 1,
    )
    return PublicTree(game_id, infoset_actions=tree.infoset_actions, **arrays)


def restrict_policy(whole: CoupPublicTree, policy, rooted: CoupPublicTree, default=None) -> np.ndarray:
    """A flat ``policy`` of the tree ``whole`` (any public tree of the same rules but for the turn
    limit), read onto the ``rooted`` tree's information sets by their keys (``infoset_hash``).

    An information set of ``rooted`` that ``whole`` lacks (below ``whole``'s turn limit) takes
    ``default`` (a flat policy of ``rooted``), or ``ValueError`` when none is given; so does one whose
    actions differ between the two trees.
    """
    keys = np.asarray(whole.infoset_hash)
    order = np.argsort(keys, kind="stable")
    want = np.asarray(rooted.infoset_hash)
    at = np.minimum(np.searchsorted(keys[order], want), max(len(keys) - 1, 0))
    found = (keys[order][at] == want) if len(keys) else np.zeros(len(want), bool)
    if default is None and not found.all():
        raise ValueError(f"{int((~found).sum())} information sets of the rooted tree are not in the whole "
                         "tree: give a default policy for them")
    R, W = rooted.tree, whole.tree
    mine, theirs = np.flatnonzero(found), order[at[found]]
    k = R.infoset_num_actions[mine].astype(np.int64)
    slot = within(k)
    to = np.repeat(R.infoset_offset[mine].astype(np.int64), k) + slot
    src = np.repeat(W.infoset_offset[theirs].astype(np.int64), k) + slot
    if (W.infoset_num_actions[theirs] != k).any() or (W.infoset_actions[src] != R.infoset_actions[to]).any():
        raise ValueError("an information set has other actions in the rooted tree than in the whole tree")
    out = np.array(default, np.float64) if default is not None else np.zeros(R.num_actions)
    out[to] = np.asarray(policy, np.float64)[src]
    return out
