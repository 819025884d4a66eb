"""A public tree built where it is solved: the trunk by the driver, each part by the worker that runs it.

:class:`~solvers.pieces.ray.RayBackend` can solve a :class:`~solvers.PublicPieces` that the driver
built and ships out part by part; but a tree whose pieces do not fit in one machine (hundreds of
gigabytes) cannot be built by the driver at all. :class:`RemotePieces` names such a tree by a
*recipe*: each Ray actor builds its own parts from the recipe and keeps them, their regrets, average
weights and strategy, and their information sets' keys and action ids, for the whole run. The driver
walks only the trunk, and holds only the trunk and, per part, its roots and how many information sets
and actions it has. The iterates, checkpoints and policies are those of the ``PublicPieces`` the same
recipe builds in one process (same numbering: the trunk's information sets and actions first, then
each part's in the order of its roots; the same pieces, so the same digests), bit for bit.

The recipe is the game's side (a game package provides one); it is pickled to every
worker and has

- ``game_id`` (str), ``num_parts`` (int) and ``record()`` (a JSON-able dict naming the game and the cut);
- ``cost(k)``: part ``k``'s entries and actions, from a count (to deal the parts out to workers);
- ``part_bytes(k, precision, predictive)``: a worker's memory for part ``k`` and its share of a solve,
  and ``worker_bytes()``, what a worker holds beside its parts while it builds them; ``trunk_bytes()``,
  the driver's: all estimated before anything is allocated;
- ``trunk(progress)``: the driver's walk, an object with ``roots(k)`` (the tree's entries that are part
  ``k``'s roots), ``piece(leaves)`` (the trunk's :class:`~solvers.pieces.split.Piece` once every part's
  ``leaves`` is known, with its ids from 0), and ``keys()`` and ``action_ids()`` (the trunk's);
- ``builder()``: a worker's walker, whose ``part(k)`` is ``(piece, leaves, keys, action_ids)``: the
  part with its ids from 0, what the trunk's leaves take from it (a few small arrays), its information
  sets' keys (uint64) and its actions' ids (int32).

Policies: a result's policies and the whole information-set table are gathered from the workers only
when asked (a small tree's result, a test). :meth:`solvers.pieces.ray.RayPartsRep.save_shares` has
every worker write its parts' average policy, keys and action ids (a *share*) and the driver the
trunk's, with a manifest naming the recipe; :func:`load_shares` reads them back whole.
"""

from __future__ import annotations

import functools
import json
import os

import numpy as np

from solvers import npz as _npz
from solvers.trees.infosets import InfosetTable
from solvers.pieces.groups import Group, group
from solvers.cfr.representation import register

__all__ = ["RemotePieces", "build_group", "load_shares", "SHARE_KIND"]

SHARE_KIND = "coupsolve.solvers.PolicyShare"
MANIFEST = "manifest.json"


def _numbered(i):
    return f"infoset {i}"


class RemotePieces(InfosetTable):
    """A public tree named by a recipe, built by the workers that solve it (module docstring).

    Solve it with ``solvers.Solver(tree, ..., backend=RayBackend(...))``: the backend builds it and
    binds it (:meth:`bind`); until then its sizes are unknown.
    """

    DIGEST_FIELDS = ("piece_digests",)

    def __init__(self, recipe):
        self.recipe = recipe
        self.game_id = str(recipe.game_id)
        self.trunk, self.parts, self._sizes, self._fetch = None, None, None, None
        self._set_keys(_numbered)

    def bind(self, trunk, parts, sizes, fetch):
        """Built: the ``trunk`` piece, the ``parts`` (:class:`~solvers.pieces.groups.Group` stubs
        with their ids in the tree, one per worker), ``(infosets, actions)`` in all, and
        ``fetch(name)``, which gathers a per-information-set or per-action array of the tree
        (``infoset_player``, ``infoset_num_actions``, ``infoset_actions``) or the pieces' digests
        (``digest``) from the driver and the workers, in the tree's order."""
        self.trunk, self.parts, self._sizes, self._fetch = trunk, list(parts), tuple(sizes), fetch

    def _bound(self):
        if self._sizes is None:
            # an AttributeError: hasattr() is False until then (Solver.load checks a checkpoint
            # against the tree's table only once the workers have built it)
            raise AttributeError(f"{self!r} is built by the workers that solve it: solve it with a "
                                 "Ray backend first (solvers.Solver(tree, ..., backend=RayBackend()))")

    @property
    def num_infosets(self):
        self._bound()
        return self._sizes[0]

    @property
    def num_actions(self):
        self._bound()
        return self._sizes[1]

    @functools.cached_property
    def infoset_player(self):
        self._bound()
        return self._fetch("infoset_player")

    @functools.cached_property
    def infoset_num_actions(self):
        self._bound()
        return self._fetch("infoset_num_actions")

    @functools.cached_property
    def infoset_actions(self):
        self._bound()
        return self._fetch("infoset_actions")

    @functools.cached_property
    def infoset_offset(self):
        out = np.zeros(self.num_infosets, np.int64)
        np.cumsum(self.infoset_num_actions[:-1], out=out[1:])
        return out

    @functools.cached_property
    def piece_digests(self):
        """As :attr:`solvers.PublicPieces.piece_digests`: the trunk's, then every part's."""
        self._bound()
        return self._fetch("digest")

    def __repr__(self):
        state = "not built yet" if self._sizes is None else \
            f"{len(self.parts)} workers, {self._sizes[0]} information sets"
        return f"RemotePieces({self.game_id!r}: {self.recipe.num_parts} parts, {state})"


class _NeedsBackend:
    """The representation of a :class:`RemotePieces` without a backend: a clear refusal (its
    parts exist only in the workers of a Ray backend)."""

    def __init__(self, tree, *_):
        raise TypeError(f"{tree!r} is built by the Ray workers that solve it: pass "
                        "backend=solvers.pieces.ray.RayBackend(...)")


register(RemotePieces, _NeedsBackend)


def build_group(recipe, lo, hi):
    """Parts ``lo .. hi - 1`` of ``recipe`` built here (in a worker): ``(group, summary, keys,
    action_ids)``, the group's parts numbered one after the other from 0, ``summary`` per part its
    ``(information sets, actions, leaves)``."""
    builder = recipe.builder()
    pieces, summary, keys, ids = [], [], [], []
    i0 = a0 = 0
    for k in range(lo, hi):
        piece, leaves, k_keys, k_ids = builder.part(k)
        ni, na = int(k_keys.shape[0]), int(k_ids.shape[0])
        pieces.append(piece._replace(infosets=slice(i0, i0 + ni), actions=slice(a0, a0 + na)))
        summary.append((ni, na, leaves))
        keys.append(k_keys)
        ids.append(k_ids)
        i0, a0 = i0 + ni, a0 + na
    return group(pieces), summary, np.concatenate(keys), np.concatenate(ids)


def stubs(trunk, summaries, bounds):
    """The driver's view of the workers' groups: per worker a :class:`Group` with no pieces, its
    parts' ids in the tree (after the trunk's) and their roots; and ``(infosets, actions)`` in all."""
    i0, a0 = trunk.flat.infoset_player.shape[0], int(trunk.flat.infoset_num_actions.sum())
    out = []
    for summary, (lo, hi) in zip(summaries, bounds):
        ni, na = sum(s[0] for s in summary), sum(s[1] for s in summary)
        out.append(Group((), slice(i0, i0 + ni), slice(a0, a0 + na), (lo, hi)))
        i0, a0 = i0 + ni, a0 + na
    return out, (i0, a0)


def write_share(path, average, keys, action_ids, num_actions, meta):
    """One share: a piece's (or a worker's parts') average policy, keys, action ids and numbers of
    actions, with ``meta`` (its first information set and action in the tree among them)."""
    _npz.save(path, SHARE_KIND, meta, dict(average_policy=np.asarray(average, np.float64),
                                           infoset_hash=keys, infoset_actions=action_ids,
                                           infoset_num_actions=num_actions))


def write_manifest(folder, game_id, record, shares, **meta):
    """The manifest of a folder of shares (in the tree's order), written last and durably."""
    text = json.dumps(dict(meta, kind=SHARE_KIND, game_id=game_id, recipe=record, shares=shares),
                      indent=1, sort_keys=True)
    _npz.replace_durably(os.path.join(folder, MANIFEST), lambda h: h.write(text.encode()))


def load_shares(folder):
    """A folder of shares read back whole: ``(manifest, arrays)``, the arrays (``average_policy``,
    ``infoset_hash``, ``infoset_actions``, ``infoset_num_actions``) in the tree's numbering.

    Raises
    ------
    ValueError
        A folder with no manifest, a share of another game, or shares that do not follow each other.
    """
    path = os.path.join(folder, MANIFEST)
    if not os.path.exists(path):
        raise ValueError(f"{folder} holds no {MANIFEST}: not a folder of policy shares "
                         "(RayPartsRep.save_shares writes one)")
    with open(path) as f:
        manifest = json.load(f)
    parts = {k: [] for k in ("average_policy", "infoset_hash", "infoset_actions",
                             "infoset_num_actions")}
    at = [0, 0]
    for name in manifest["shares"]:
        meta, arrays = _npz.load(os.path.join(folder, name), SHARE_KIND)
        if meta["game_id"] != manifest["game_id"] or \
                [meta["first_infoset"], meta["first_action"]] != at:
            raise ValueError(f"{name} in {folder} is not the share the manifest expects next "
                             f"(game {meta['game_id']!r}, first information set "
                             f"{meta['first_infoset']}, first action {meta['first_action']})")
        for k in parts:
            parts[k].append(arrays[k])
        at = [at[0] + arrays["infoset_hash"].shape[0], at[1] + arrays["infoset_actions"].shape[0]]
    return manifest, {k: np.concatenate(v) for k, v in parts.items()}
