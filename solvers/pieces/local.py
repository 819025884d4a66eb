"""A public tree held as its pieces (a trunk and parts), never as one tree, and solved that way.

A :class:`~solvers.trees.publictree.PublicTree` is one set of arrays; its pieces (:mod:`solvers.pieces.split`)
iterate apart and give the same iterates (:class:`~solvers.pieces.parts.PartsRep`). When the whole tree
is too large to build, the pieces can be built directly (by a builder of the
game's own) and handed to :class:`PublicPieces`, a tree type of its own: the pieces, and the
table of every information set (player, actions, their ids and keys) in the pieces' numbering, which is
all that policies, results and checkpoints read. :class:`PiecesRep`, registered for it, is a
``PartsRep`` whose parts run in this process one after the other, so they share one set of pass
buffers (reach, values, predictions, action values) as long as the largest part: a solve holds every
piece's arrays and per-action state but only the largest part's per-entry state, instead of every
entry's (with hundreds of parts, a small fraction of them: docs/research/design-measurements.md).

Memory: the pieces' information sets and actions are numbered one piece after the other, so a piece
names its own by two slices, and its players and numbers of actions are views of the table's; the
narrowed fields of :mod:`solvers.trees.publictree` (int32 offsets, counts and nodes) hold within a piece. The
table's own offsets (int64) are made only when a caller asks for them.

The digest of strategy files and checkpoints (``DIGEST_FIELDS``) is one sha256 per piece of the
fields :attr:`solvers.trees.publictree.PublicTree.DIGEST_FIELDS` names, plus its roots.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

from solvers.history.passes import normalize_average
from solvers.public import backward_levels, forward_levels, values_levels
from solvers.trees.infosets import InfosetTable
from solvers.memory import check_fits, real_dtype
from solvers.trees.publictree import PublicTree
from solvers.pieces.groups import STATE, GroupRunner, group, largest, pass_buffer_bytes
from solvers.pieces.parts import PartsRep, _Local
from solvers.pieces.split import count, piece_bytes
from solvers.cfr.representation import check_state, register

__all__ = ["PublicPieces", "PiecesRep", "estimate_pieces_solve_bytes"]


class PublicPieces(InfosetTable):
    """A public tree as a trunk and parts (module docstring).

    Parameters
    ----------
    game_id : str
    trunk : solvers.pieces.split.Piece
    parts : list of Piece
        In the order of their roots, which must follow each other over the trunk's leaves' entries.
        Their ``infosets`` and ``actions`` are slices numbering them one piece after the other, the
        trunk's first (:func:`~solvers.pieces.split.renumbered` makes them from ``split``'s).
    infoset_actions : ndarray, int32
        The game's action ids, per action of the pieces' numbering.
    keys : callable or sequence of str, optional
        As for :class:`~solvers.trees.publictree.PublicTree`.

    Raises
    ------
    ValueError
        Pieces whose information sets or actions are not numbered one piece after the other, or
        whose roots do not follow each other over the trunk's leaves.
    """

    DIGEST_FIELDS = ("piece_digests",)

    def __init__(self, game_id, trunk, parts, infoset_actions, keys=None):
        self.game_id = str(game_id)
        self.infoset_actions = np.ascontiguousarray(infoset_actions, dtype=np.int32)
        pieces = [trunk] + list(parts)
        first = [0, 0]
        for q in pieces:
            f = q.flat
            have = (f.infoset_player.shape[0], int(f.infoset_num_actions.sum()))
            for k, ids in enumerate((q.infosets, q.actions)):
                if not isinstance(ids, slice) or ids.start != first[k] or \
                        ids.stop - ids.start != have[k]:
                    raise ValueError("PublicPieces: every information set must be in exactly one "
                                     "piece, numbered one piece after the other, the trunk's first "
                                     "(slices; solvers.pieces.split.renumbered makes them)")
                first[k] += have[k]
        if first[1] != self.infoset_actions.shape[0]:
            raise ValueError("PublicPieces: infoset_actions must have one id per action")
        self.infoset_player = np.concatenate([q.flat.infoset_player for q in pieces])
        self.infoset_num_actions = np.concatenate([q.flat.infoset_num_actions for q in pieces])
        held = []  # the pieces' players and numbers of actions become views of the table
        for q in pieces:
            s = q.infosets
            held.append(q._replace(flat=q.flat._replace(
                infoset_player=self.infoset_player[s], infoset_num_actions=self.infoset_num_actions[s])))
        self.trunk, self.parts = held[0], held[1:]
        ends = [trunk.roots[0]] + [e for q in self.parts for e in q.roots] + [trunk.roots[1]]
        if any(ends[k] != ends[k + 1] for k in range(0, len(ends), 2)):
            raise ValueError("PublicPieces: the parts' roots must follow each other over the "
                             "trunk's leaves")
        self._set_keys(keys if keys is not None else _numbered)

    @functools.cached_property
    def infoset_offset(self):
        """Each information set's first action in the pieces' numbering (int64), made when first
        asked: a solve and its exploitability checks read each piece's own (int32) offsets, so
        this table (8 bytes per information set) is made only for a best-response policy or
        a lookup by information set."""
        out = np.zeros(self.num_infosets, np.int64)
        np.cumsum(self.infoset_num_actions[:-1], out=out[1:])
        return out

    def normalize(self, cumulative, out):
        """``out`` (per action) the average policy of the weights ``cumulative``: uniform where
        they sum to 0 (:func:`solvers.history.passes.normalize_average`), piece by piece over each
        piece's own offsets; ``out`` may be ``cumulative``."""
        for q in [self.trunk] + self.parts:
            normalize_average(cumulative[q.actions], q.flat.infoset_offset,
                              q.flat.infoset_num_actions, out[q.actions])
        return out

    @property
    def piece_digests(self):
        """sha256 of each piece's shape, payoffs and chance (module docstring), concatenated."""
        return np.concatenate([piece_digest(q) for q in [self.trunk] + self.parts])

    @property
    def num_entries(self):
        """Entries of the pieces (the trunk's leaves are the parts' roots, counted once)."""
        return sum(q.flat.entry_parent.shape[0] for q in [self.trunk] + self.parts) - \
            (self.trunk.roots[1] - self.trunk.roots[0])

    @property
    def nbytes(self):
        """Bytes held by the pieces and the information-set table (the pieces' players and
        numbers of actions are views of the table's, counted once)."""
        table = (self.infoset_player, self.infoset_num_actions, self.infoset_actions,
                 self.__dict__.get("infoset_offset"))  # the offsets once made
        pieces = [self.trunk] + self.parts
        views = sum(q.flat.infoset_player.nbytes + q.flat.infoset_num_actions.nbytes for q in pieces)
        return sum(piece_bytes(q) for q in pieces) - views + sum(getattr(a, "nbytes", 0) for a in table)

    def __repr__(self):
        return (f"PublicPieces({self.game_id!r}: a trunk and {len(self.parts)} parts, "
                f"{self.num_entries} entries, {self.num_infosets} information sets)")


def piece_digest(q):
    """sha256 (32 uint8) of a piece's roots and the fields :attr:`PublicTree.DIGEST_FIELDS` names."""
    h = hashlib.sha256(np.array(q.roots, np.int64).tobytes())
    for name in PublicTree.DIGEST_FIELDS:
        h.update(np.ascontiguousarray(getattr(q.flat, name)).data)
    return np.frombuffer(h.digest(), np.uint8)


def _numbered(i):
    return f"infoset {i}"


def _entries(piece):
    return piece.flat.entry_parent.shape[0]


class PiecesRep(PartsRep):
    """The parts of a :class:`PublicPieces`, iterated in this process one after the other (module
    docstring); the iterates of the whole tree's solve.

    The per-action state (strategy, regrets, average weights) is one array each in the pieces'
    numbering, of which every piece's runner holds its slice; the buffers that hold nothing between
    passes (reach, values, predictions, action values) are one set as long as the largest part's.
    So nothing is gathered: the policies are normalised from those arrays, in the solve's precision
    (a float32 solve's are float32: half the bytes of float64), and a
    checkpoint writes them as they are.
    """

    #: The dispatchers of the first iteration and check (solvers.compiled.kernels_ready).
    KERNELS = (backward_levels, forward_levels, values_levels, normalize_average)

    def __init__(self, tree, spec, precision, updates, threads):
        check_fits(self.estimate_bytes(tree, spec, precision, updates, threads),
                   f"solving {tree.game_id} with {spec.name} on its {len(tree.parts) + 1} pieces")
        real = real_dtype(precision)
        self.held = {name: np.empty(tree.num_actions, real) for name in STATE}
        g = group(tree.parts)  # its actions are a slice: the runner's state is views of held's
        views = {k: v[g.actions] for k, v in self.held.items()}

        def runners(groups, params, precision):
            return [_Local(GroupRunner(g, params, precision, threads, views))]

        super().__init__(tree, spec, precision, updates, threads, tree.trunk, [g], runners,
                         trunk_held=tuple(self.held[k][tree.trunk.actions] for k in STATE))

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        """Working memory of a solve of ``tree`` (bytes, int): :func:`estimate_pieces_solve_bytes`."""
        return estimate_pieces_solve_bytes(tree.num_actions, (_entries(tree.trunk),
                                                              count(tree.trunk.actions)),
                                           largest(tree.parts), precision, spec.predictive)

    def average_policy(self):
        """The normalised average policy, in the solve's precision (a new array)."""
        return self.game_tree.normalize(self.held["cumulative"], np.empty_like(self.held["cumulative"]))

    def current_policy(self):
        """The current policy, in the solve's precision (a new array)."""
        return self.held["sigma"].copy()

    def hand_over(self):
        """``(average, current)``: the policies made in the solve's own arrays, the average
        normalised in place of its weights (no policy-sized array allocated at the solve's
        end). The solve cannot go on (:meth:`solvers.Solver.result` with ``last``)."""
        held = self.held
        self.game_tree.normalize(held["cumulative"], held["cumulative"])
        self.held = {}
        return held["cumulative"], held["sigma"]

    def get_state(self):
        """The regrets, average weights and strategy: the solve's own arrays, not copies (a
        checkpoint writes them before the next iteration)."""
        return dict(self.held)

    def set_state(self, state, iterations):
        check_state(state, self.game_tree.num_actions)
        for name, a in self.held.items():
            a[:] = state[name]
        for runner in [self.trunk] + self.part_runners():
            runner.state.counter[0] = iterations

    def part_runners(self):
        """The parts' :class:`~solvers.pieces.parts.PieceRunner`, in order (the trunk's is
        ``trunk``)."""
        return [x for h in self.handles for x in h._runner.runners]


def estimate_pieces_solve_bytes(num_actions, trunk, largest, precision="float64", predictive=False):
    """Working memory (bytes, int) of :class:`PiecesRep`'s solve of pieces of ``num_actions`` actions
    in all, whose trunk and largest part have ``(entries, actions)`` ``trunk`` and ``largest``: the
    per-action state (three arrays, in the solve's precision, of which :func:`solvers.solve`'s
    result makes its policies: :meth:`PiecesRep.hand_over`; a result made mid-solve copies them, two
    arrays more), and the trunk's pass buffers and the largest part's, which every part shares. An
    exploitability check keeps no best actions (:meth:`PieceRunner.values_pass` without
    ``choices``), and the policies are normalised over each piece's own offsets (the table's are
    made only when asked: :attr:`PublicPieces.infoset_offset`)."""
    real = np.dtype(real_dtype(precision)).itemsize
    return len(STATE) * real * int(num_actions) + sum(
        pass_buffer_bytes(e, a, precision, predictive) for e, a in (trunk, largest))


register(PublicPieces, PiecesRep)
