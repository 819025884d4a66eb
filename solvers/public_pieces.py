"""A public tree held as its pieces (a trunk and parts), never as one tree, and solved that way.

A :class:`~solvers.public.PublicTree` is one set of arrays; its pieces (:mod:`solvers.public_split`)
iterate apart and give the same iterates (:class:`~solvers.public_parts.PartsRep`). When the whole tree
is too large to build, the pieces can be built directly (Coup: :func:`coupsolve.classpieces.
build_class_pieces`) and handed to :class:`PublicPieces`, a tree type of its own: the pieces, and the
table of every information set (player, actions, their ids and keys) in the pieces' numbering, which is
all that policies, results and checkpoints read. :class:`PiecesRep`, registered for it, is a
``PartsRep`` whose parts run in this process one after the other, so they share one set of per-entry
buffers (reach, values, predictions) as long as the largest part: a solve holds every piece's arrays
and per-action state but only the largest part's per-entry state, instead of every entry's (turn
limit 4 of Coup: 735 million entries, 8 bytes each at float32, against 50 million in its largest of
400 parts).

The digest of strategy files and checkpoints (``DIGEST_FIELDS``) is one sha256 per piece of the
fields :attr:`solvers.public.PublicTree.DIGEST_FIELDS` names, plus its roots.
"""

from __future__ import annotations

import hashlib

import numpy as np

from .infosets import InfosetTable
from .memory import check_fits
from .public import PublicTree
from .public_parts import PartsRep, PieceRunner, _Local, params_of
from .public_rep import estimate_public_solve_bytes
from .public_split import piece_bytes
from .representation import register

__all__ = ["PublicPieces", "PiecesRep"]


class PublicPieces(InfosetTable):
    """A public tree as a trunk and parts (module docstring).

    Parameters
    ----------
    game_id : str
    trunk : solvers.public_split.Piece
    parts : list of Piece
        In the order of their roots, which must follow each other over the trunk's leaves' entries.
    infoset_actions : ndarray, int32
        The game's action ids, per action of the pieces' numbering (``Piece.actions`` index it).
    keys : callable or sequence of str, optional
        As for :class:`~solvers.public.PublicTree`.

    Raises
    ------
    ValueError
        Pieces whose information sets or actions do not cover the numbering exactly once, or whose
        roots do not follow each other over the trunk's leaves.
    """

    DIGEST_FIELDS = ("piece_digests",)

    def __init__(self, game_id, trunk, parts, infoset_actions, keys=None):
        self.game_id = str(game_id)
        self.trunk, self.parts = trunk, list(parts)
        self.infoset_actions = np.ascontiguousarray(infoset_actions, dtype=np.int32)
        pieces = [trunk] + self.parts
        ni = sum(q.infosets.shape[0] for q in pieces)
        self.infoset_player = np.full(ni, -1, np.int8)
        self.infoset_num_actions = np.zeros(ni, np.int32)
        seen = np.zeros(ni, bool)
        for q in pieces:
            if q.infosets.shape[0] and (q.infosets.min() < 0 or q.infosets.max() >= ni
                                        or seen[q.infosets].any()):
                raise ValueError(f"PublicPieces: every information set must be in exactly one "
                                 f"piece, and the pieces' {ni} number them 0 .. {ni - 1}")
            seen[q.infosets] = True
            self.infoset_player[q.infosets] = q.flat.infoset_player
            self.infoset_num_actions[q.infosets] = q.flat.infoset_num_actions
        if not seen.all():
            raise ValueError("PublicPieces: every information set must be in exactly one piece")
        self.infoset_offset = np.zeros(ni, np.int64)
        np.cumsum(self.infoset_num_actions[:-1], out=self.infoset_offset[1:])
        if int(self.infoset_num_actions.sum()) != self.infoset_actions.shape[0]:
            raise ValueError("PublicPieces: infoset_actions must have one id per action")
        for q in pieces:
            own = np.repeat(self.infoset_offset[q.infosets], q.flat.infoset_num_actions) + \
                np.arange(q.actions.shape[0]) - np.repeat(q.flat.infoset_offset,
                                                          q.flat.infoset_num_actions)
            if not np.array_equal(own, q.actions):
                raise ValueError("PublicPieces: a piece's actions are not those of its information "
                                 "sets in the numbering")
        ends = [trunk.roots[0]] + [e for q in self.parts for e in q.roots] + [trunk.roots[1]]
        if any(ends[k] != ends[k + 1] for k in range(0, len(ends), 2)):
            raise ValueError("PublicPieces: the parts' roots must follow each other over the "
                             "trunk's leaves")
        self._set_keys(keys if keys is not None else _numbered)

    @property
    def piece_digests(self):
        """sha256 of each piece's shape, payoffs and chance (module docstring), concatenated."""
        out = []
        for q in [self.trunk] + self.parts:
            h = hashlib.sha256(np.array(q.roots, np.int64).tobytes())
            for name in PublicTree.DIGEST_FIELDS:
                h.update(np.ascontiguousarray(getattr(q.flat, name)).data)
            out.append(np.frombuffer(h.digest(), np.uint8))
        return np.concatenate(out)

    @property
    def num_entries(self):
        """Entries of the pieces (the trunk's leaves are the parts' roots, counted once)."""
        return sum(q.flat.entry_parent.shape[0] for q in [self.trunk] + self.parts) - \
            (self.trunk.roots[1] - self.trunk.roots[0])

    @property
    def nbytes(self):
        """Bytes held by the pieces and the information-set table."""
        table = (self.infoset_player, self.infoset_num_actions, self.infoset_offset,
                 self.infoset_actions)
        return sum(piece_bytes(q) for q in [self.trunk] + self.parts) + sum(a.nbytes for a in table)

    def __repr__(self):
        return (f"PublicPieces({self.game_id!r}: a trunk and {len(self.parts)} parts, "
                f"{self.num_entries} entries, {self.num_infosets} information sets)")


def _numbered(i):
    return f"infoset {i}"


def _entries(piece):
    return piece.flat.entry_parent.shape[0]


class PiecesRep(PartsRep):
    """The parts of a :class:`PublicPieces`, iterated in this process one after the other with one
    set of per-entry buffers (module docstring); the iterates of the whole tree's solve."""

    def __init__(self, tree, spec, precision, updates, threads):
        check_fits(self.estimate_bytes(tree, spec, precision, updates, threads),
                   f"solving {tree.game_id} with {spec.name} on its {len(tree.parts) + 1} pieces")
        params = params_of(spec, updates)
        real = np.float32 if precision == "float32" else np.float64
        n = max(_entries(q) for q in tree.parts)
        shared = (np.empty(n, real), np.empty(n, real), np.empty(n if params.predictive else 0, real))

        def runners(parts, params, precision):
            return [_Local(PieceRunner(q, params, precision, threads, shared)) for q in parts]

        super().__init__(tree, spec, precision, updates, threads, tree.trunk, tree.parts, runners)

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        """The trunk's solve, every part's per-action state and the largest part's per-entry state."""
        pred = spec.predictive
        per_action = estimate_public_solve_bytes(0, 1, precision, pred)
        per_entry = estimate_public_solve_bytes(1, 0, precision, pred)
        trunk = estimate_public_solve_bytes(_entries(tree.trunk), tree.trunk.actions.shape[0],
                                            precision, pred)
        return trunk + per_action * sum(q.actions.shape[0] for q in tree.parts) + \
            per_entry * max(_entries(q) for q in tree.parts)


register(PublicPieces, PiecesRep)
