"""Two-player Coup's public tree in pieces, each part built by the Ray worker that solves it.

:class:`ClassRecipe` is the recipe of a :class:`solvers.pieces.remote.RemotePieces` (the protocol is
in that module's docstring): the rules, the level the tree is cut at and the parts' bounds, taken from
a count by parts (:class:`coupsolve.trees.pieces.build.PiecesPlan`), whose per-part figures size every worker
before anything is allocated. The driver walks the levels above the cut
(:func:`coupsolve.trees.pieces.build.walk_trunk`); every worker walks them too (the same walk: a few seconds
at turn limit 4, against the parts' minutes) and then its own parts
(:class:`coupsolve.trees.pieces.build.Walker`), so each part is exactly the piece
:func:`~coupsolve.trees.pieces.build.build_class_pieces` makes of it, padded to as many levels as the deepest
part, as that function pads them.
"""

from __future__ import annotations

import threading

import numpy as np

from solvers.trees.publictree import estimate_public_tree_bytes
from solvers.pieces.groups import STATE, pass_buffer_bytes
from solvers.memory import real_dtype

from coupsolve.trees.classwalk import build as B
from coupsolve.trees.classwalk.count import PartWorker, count_by_parts, walk_above
from coupsolve.trees.pieces.build import PiecesPlan, Walker, fill_leaves, walk_trunk
from coupsolve.rules import Rules

__all__ = ["ClassRecipe", "count_on_ray"]

#: Beside a part's arrays a worker keeps its keys (uint64) and action ids (int32) for the shares.
_KEY_BYTES, _ID_BYTES = 8, 4


class ClassRecipe:
    """The recipe of Coup's public tree cut as ``plan`` (a :class:`PiecesPlan`) says (module
    docstring). Plain data: the rules, the cut, the bounds and the count's per-part figures."""

    def __init__(self, plan: PiecesPlan):
        if not isinstance(plan, PiecesPlan):
            raise TypeError(f"ClassRecipe takes a PiecesPlan (a count by parts), not "
                            f"{type(plan).__name__}")
        self.rules: Rules = plan.size.rules
        self.depth, self.bounds = int(plan.depth), np.asarray(plan.bounds, np.int64)
        self.sizes = sorted(plan.size.parts, key=lambda q: q.first)
        self.levels = max(q.levels for q in self.sizes)
        s, d = plan.size, self.depth
        self._trunk_walk = B.level_walk_bytes(s.level_nodes[:d + 1], s.level_entries[:d + 1])
        self._trunk = (int(np.sum(s.level_nodes[:d + 1])), plan._trunk())
        self.game_id = _game_id(self.rules)

    @property
    def num_parts(self):
        return len(self.sizes)

    def record(self):
        return {"rules": self.rules.to_dict(), "depth": self.depth,
                "bounds": [int(b) for b in self.bounds]}

    def cost(self, k):
        return self.sizes[k].entries + self.sizes[k].actions

    def part_bytes(self, k, precision="float64", predictive=False):
        """Part ``k``'s arrays (its matrices' rows taken as at most its entries), keys and action
        ids, and its share of a solve's per-action state, with a set of pass buffers as long as it."""
        q = self.sizes[k]
        real = np.dtype(real_dtype(precision)).itemsize
        return (estimate_public_tree_bytes(q.nodes, q.entries, q.pair_cells, q.matrices, q.infosets,
                                           q.actions, q.entries)
                + _KEY_BYTES * q.infosets + _ID_BYTES * q.actions + len(STATE) * real * q.actions
                + pass_buffer_bytes(q.entries, q.actions, precision, predictive))

    def worker_bytes(self):
        """A worker's walk: the levels above the cut and one part's walk at a time."""
        return self._trunk_walk + max(q.work_bytes for q in self.sizes)

    def trunk_bytes(self):
        """The driver's walk of the trunk and the trunk (its matrices are few: not counted)."""
        nodes, (entries, actions) = self._trunk
        return self._trunk_walk + estimate_public_tree_bytes(nodes, entries, 0, 0, actions, actions, 0)

    def trunk(self, progress=None):
        return _Trunk(walk_trunk(self.rules, self.depth, progress), self.bounds)

    def builder(self):
        return _Builder(self)


def _game_id(rules):

    return rules.game_string()


class _Trunk:
    """The driver's walk of the trunk (:func:`walk_trunk`), cut at the recipe's bounds."""

    def __init__(self, T, bounds):
        self.T, self.bounds = T, bounds

    def roots(self, k):
        return self.T.part_roots(int(self.bounds[k]), int(self.bounds[k + 1]))

    def piece(self, leaves):
        for k, v in enumerate(leaves):
            fill_leaves(self.T.a, self.T.n, int(self.bounds[k]), int(self.bounds[k + 1]), v)
        return self.T.piece()[0]

    def keys(self):
        return self.T.extra.infoset_hash

    def action_ids(self):
        return self.T.extra.infoset_actions


class _Builder:
    """A worker's walk of its parts: the trunk's walk once, then each part's."""

    def __init__(self, recipe):
        self.recipe = recipe
        T = walk_trunk(recipe.rules, recipe.depth)
        self.walker = Walker(T.P, T.O, T.cur, threading.Event(), recipe.depth, T.e0)

    def part(self, k):
        r = self.recipe
        (piece, _hands), leaves, extra = self.walker.walk(int(r.bounds[k]), int(r.bounds[k + 1]))
        ls = piece.flat.level_start  # as many levels as the deepest part, as build_class_pieces
        if piece.num_levels > r.levels:
            raise ValueError(f"part {k} has {piece.num_levels} levels, more than the count's "
                             f"{r.levels}: the recipe's plan is of other rules")
        ls = np.concatenate((ls, np.full(r.levels - piece.num_levels, ls[-1], ls.dtype)))
        piece = piece._replace(flat=piece.flat._replace(level_start=ls), num_levels=r.levels)
        return piece, leaves, extra.infoset_hash, extra.infoset_actions


def count_on_ray(rules, depth, parts=64, *, tasks=None, progress=None, on_part=None):
    """:func:`coupsolve.trees.classwalk.count.count_by_parts` with its parts counted by Ray tasks (Ray
    initialised already): each task walks the levels above the cut itself, then a run of
    consecutive parts, and sends back only their figures, so the driver holds the levels above the
    cut and the parts' :class:`~coupsolve.trees.classwalk.count.PartSize` (turn limit 5: 3,089 of them).
    ``tasks`` runs of parts (default: the cluster's CPUs, at least 1). The same figures as the count
    in one process (tested), but for one check: the information sets' keys are checked unique within
    each part and within the levels above the cut, not across parts, whose keys no one process
    holds (2.7e9 keys at turn limit 5: 21.6 GB)."""
    import ray

    n = tasks or max(1, int(ray.cluster_resources().get("CPU", 1)))
    return count_by_parts(rules, depth, parts, 1, progress, on_part,
                          walk=lambda *a: _ray_walk(ray, rules, depth, n, *a))


def _ray_walk(ray, rules, depth, tasks, P, O, cur, first, ranges, workers, take):
    """:func:`coupsolve.trees.classwalk.count._walk`'s work dealt out as ``tasks`` Ray tasks (module)."""
    ranges = [(int(a), int(b)) for a, b in ranges]
    runs = np.array_split(np.arange(len(ranges)), min(tasks, len(ranges)))
    count = ray.remote(_count_parts)
    todo = [count.remote(rules, depth, first, [ranges[i] for i in r]) for r in runs if len(r)]
    while todo:
        done, todo = ray.wait(todo, num_returns=1)
        for result in ray.get(done[0]):
            take(result)


def _count_parts(rules, depth, first, ranges):
    """A Ray task: the levels above the cut walked again, then the parts ``ranges``, each part's keys
    checked unique and dropped."""
    P, cur, O, _, _, ln = walk_above(rules, depth, False)
    if len(ln) != first:
        raise ValueError(f"a task cut the tree at level {len(ln)}, the driver at {first}")
    walker, out = PartWorker(P, O, cur, threading.Event()), []
    for a, b in ranges:
        size, g, new, pln, ple, keys = walker.walk(a, b, first)
        B._check_keys(keys)
        out.append((size, g, new, pln, ple, keys[:0]))
    return out
