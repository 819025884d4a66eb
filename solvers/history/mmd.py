"""Magnetic Mirror Descent over a :class:`~solvers.GameTree`, in sequence form.

The :class:`~solvers.cfr.representation.Representation` of :class:`~solvers.cfr.mmd.MMDSpec` runs
(the update and its references are in :mod:`solvers.cfr.mmd`). Built once per tree: each terminal's
pair of last sequences (one per player) and its chance-weighted payoff, summed into the sparse
sequence-form payoff matrix (CSR, both players' sequences in one numbering: the tree's flat actions,
then each player's empty sequence); each information set's parent sequence and the number of
information sets below each sequence. An iteration (:func:`mmd_iterations`) is one product with that
matrix, a sweep over the information sets deepest first (the behavioural softmax and the gradient of
the parent sequences) and one shallowest first (the new sequence form). Memory: 24 bytes per history
while building, then 16 bytes per terminal and about 56 bytes per action.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from solvers.cfr.representation import check_state, register
from solvers.history.best_response import _values, _Workspace
from solvers.kinds import CHANCE, DECISION, TERMINAL
from solvers.memory import check_fits
from solvers.trees.gametree import GameTree

__all__ = ["HistoryMMD", "LastIterate", "SequenceForm", "check_two_player_zero_sum", "history_sequences",
           "mmd_update", "sequence_form", "temperature"]


@numba.njit(cache=True)
def _last_sequences(kind, player, infoset, child_start, num_children, chance_prob, ioff, a):
    """Each history's last sequence of each player (``a + p`` for player ``p``'s empty one) and
    chance's reach probability, in one pass over the histories (children follow their parents)."""
    n = kind.shape[0]
    seq = np.empty((n, 2), np.int64)
    reach = np.empty(n)
    seq[0, 0], seq[0, 1], reach[0] = a, a + 1, 1.0
    for i in range(n):
        if kind[i] == TERMINAL:
            continue
        c0 = child_start[i]
        for k in range(num_children[i]):
            c = c0 + k
            seq[c, 0], seq[c, 1] = seq[i, 0], seq[i, 1]
            reach[c] = reach[i] * chance_prob[c] if kind[i] == CHANCE else reach[i]
            if kind[i] == DECISION:
                seq[c, player[i]] = ioff[infoset[i]] + k
    return seq, reach


def history_sequences(tree):
    """Each history's last sequence of each player and chance's reach probability of it.

    Returns
    -------
    seq : ndarray, int64, shape (num_nodes, 2)
        Player 0's and player 1's last sequence (tree numbering; ``a`` and ``a + 1`` the empty ones).
    reach : ndarray, float64, shape (num_nodes,)
    """
    f = tree.flat
    return _last_sequences(f.node_kind, f.node_player, f.node_infoset, f.child_start, f.num_children,
                           f.chance_prob, f.infoset_offset, tree.num_actions)


class SequenceForm:
    """The sequence form of a two-player zero-sum :class:`~solvers.GameTree`.

    Sequences are numbered like the tree's flat actions (``0 .. a-1``), then player 0's empty
    sequence ``a`` and player 1's ``a + 1``.

    Attributes
    ----------
    indptr, indices, data : ndarray
        CSR of ``M`` (``(a + 2, a + 2)``): ``(M @ x)[s]`` is the utility to the owner of sequence
        ``s`` given the other player's sequence form in ``x`` (player 0's matrix ``A`` in its rows,
        ``-A.T`` in player 1's).
    parent : ndarray, int64, shape (num_infosets,)
        Each information set's parent sequence.
    below : ndarray, float64, shape (a + 2,)
        The number of information sets whose parent is each sequence.
    order : ndarray, int64, shape (num_infosets,)
        Information sets, parents before children.
    scale : float
        ``max |A|``.
    """

    def __init__(self, tree):
        from scipy import sparse

        f, a = tree.flat, tree.num_actions
        seq, reach = _last_sequences(f.node_kind, f.node_player, f.node_infoset, f.child_start,
                                     f.num_children, f.chance_prob, f.infoset_offset, a)
        term = np.flatnonzero(f.node_kind == TERMINAL)
        s0, s1, w = seq[term, 0], seq[term, 1], reach[term] * f.payoff[term]
        A = sparse.coo_matrix((w, (s0, s1)), shape=(a + 2, a + 2)).tocsr()
        A.sum_duplicates()
        self.scale = float(abs(A.data).max()) if A.nnz else 0.0
        M = (A - A.T).tocsr()
        M.sort_indices()
        self.indptr, self.indices, self.data = (M.indptr.astype(np.int64), M.indices.astype(np.int64),
                                                M.data)
        dec = np.flatnonzero(f.node_kind == DECISION)
        first = np.full(tree.num_infosets, np.iinfo(np.int64).max)
        np.minimum.at(first, f.node_infoset[dec], dec)
        self.parent = seq[first, f.infoset_player.astype(np.int64)]
        self.below = np.bincount(self.parent, minlength=a + 2).astype(np.float64)
        self.order = np.argsort(first, kind="stable")

    @classmethod
    def estimate_bytes(cls, tree):
        """Bytes while building (24 per history) and kept (48 per terminal bound, 56 per action)."""
        return 24 * tree.num_nodes + 48 * tree.num_nodes + 56 * tree.num_actions


def sequence_form(policy, tree, sf):
    """The sequence form (``a + 2`` entries) of a flat behavioural ``policy`` of ``tree``."""
    x = np.ones(tree.num_actions + 2)
    _to_sequences(x, policy, sf.order, sf.parent, tree.infoset_offset, tree.infoset_num_actions)
    return x


@numba.njit(cache=True)
def _to_sequences(x, sigma, order, parent, ioff, inum):
    for s in order:
        o, xp = ioff[s], x[parent[s]]
        for k in range(inum[s]):
            x[o + k] = xp * sigma[o + k]


@numba.njit(cache=True)
def _gradient(logsig, c, g, parent, below, ioff, inum, logmag, eta, alpha):
    """``g = (-eta c - grad psi(x) - eta alpha log rho) / (1 + eta alpha)`` at every action, with
    ``d psi / d x_Ia = log pi_Ia + 1 - (information sets below Ia)``. ``log pi`` is kept from the
    softmax (OpenSpiel takes ``log(x_Ia / x_parent)``, the same number to rounding), so that a
    probability that underflows to 0 keeps a finite gradient."""
    denom = 1.0 + eta * alpha
    for s in range(parent.shape[0]):
        o = ioff[s]
        for k in range(inum[s]):
            j = o + k
            psi = logsig[j] + 1.0 - below[j]
            g[j] = (-eta * c[j] - psi - eta * alpha * logmag[j]) / denom


@numba.njit(cache=True)
def temperature(sched, t):
    """``(alpha_t, eta_t)`` of iteration ``t`` (from 1) of the schedule ``sched`` (``alpha,
    alpha_end, horizon, stepsize, max|A|``: :class:`~solvers.cfr.mmd.MMDSpec`)."""
    alpha = sched[0]
    if sched[2] > 0.0:
        alpha = sched[0] * (sched[1] / sched[0]) ** min(1.0, (t - 1) / sched[2])
    eta = sched[3] if sched[3] > 0.0 else alpha / (sched[4] * sched[4])
    return alpha, eta


@numba.njit(cache=True)
def mmd_update(x, sigma, logsig, c, g, parent, below, order, ioff, inum, logmag, eta, alpha):
    """One MMD step from the utilities ``c`` of every sequence (both players' at once): the
    gradients, the behavioural softmax deepest information set first (each adding its value to the
    gradient of its parent sequence), then the new sequence form ``x``. Shared by the history and
    the public tree (:mod:`solvers.public.mmd`), which differ only in how they compute ``c``."""
    for r in range(g.shape[0]):
        g[r] = 0.0
    _gradient(logsig, c, g, parent, below, ioff, inum, logmag, eta, alpha)
    for i in range(order.shape[0] - 1, -1, -1):
        s = order[i]
        o, n = ioff[s], inum[s]
        low = g[o]
        for k in range(1, n):
            low = min(low, g[o + k])
        total = 0.0
        for k in range(n):
            sigma[o + k] = math.exp(low - g[o + k])
            total += sigma[o + k]
        value = 0.0
        log_total = math.log(total)
        for k in range(n):
            p = sigma[o + k] / total
            sigma[o + k] = p
            logsig[o + k] = (low - g[o + k]) - log_total
            value += p * g[o + k] + p * logsig[o + k]
        g[parent[s]] += value
    _to_sequences(x, sigma, order, parent, ioff, inum)


@numba.njit(cache=True)
def mmd_iterations(x, sigma, logsig, c, g, indptr, indices, data, parent, below, order, ioff, inum,
                   logmag, sched, counter, count):
    """Run ``count`` MMD iterations in place (both players at once, as OpenSpiel does).

    Parameters
    ----------
    x : ndarray, float64, shape (a + 2,)
        Both players' sequence forms (the two empty sequences 1); rewritten.
    sigma, logsig : ndarray, float64, shape (a,)
        The behavioural policy and its logarithm, tree order; rewritten.
    c, g : ndarray, float64, shape (a + 2,)
        Scratch: utilities and gradients.
    indptr, indices, data : the matrix ``M`` of :class:`SequenceForm`.
    parent, below, order, ioff, inum : the sequence form's and the tree's per-infoset arrays.
    logmag : ndarray, float64, shape (a,)
        ``log rho`` of the magnet (zeros for the dilated-entropy magnet).
    sched : ndarray, float64, shape (5,)
        ``alpha, alpha_end, horizon, stepsize, max|A|`` (:class:`~solvers.cfr.mmd.MMDSpec`).
    counter : ndarray, int64, shape (1,)
        Completed iterations; advanced with the state.
    count : int

    Returns
    -------
    int
        0.
    """
    for _ in range(count):
        t = counter[0] + 1
        alpha, eta = temperature(sched, t)
        for r in range(c.shape[0]):
            total = 0.0
            for e in range(indptr[r], indptr[r + 1]):
                total += data[e] * x[indices[e]]
            c[r] = total
        mmd_update(x, sigma, logsig, c, g, parent, below, order, ioff, inum, logmag, eta, alpha)
        counter[0] = t
    return 0


class LastIterate:
    """What an MMD representation keeps beside its kernels: the behavioural policy, its logarithm and
    both players' sequence forms (float64, tree order), the schedule, the counter; its policies,
    checkpoint state and restore. A subclass sets ``game_tree``, ``spec``, ``threads`` and ``sf``
    (``parent``, ``order`` and ``scale`` as :class:`SequenceForm`'s) and calls :meth:`_start`.
    """

    def _start(self):
        tree, spec, sf = self.game_tree, self.spec, self.sf
        a = tree.num_actions
        self.sigma = tree.uniform_policy().astype(np.float64)
        self.logsig = np.log(self.sigma)
        self.x = sequence_form(self.sigma, tree, sf)
        self.c, self.g = np.zeros(a + 2), np.zeros(a + 2)
        self.logmag = np.zeros(a)
        if spec.magnet == "uniform":
            self.logmag[:] = -np.log(np.repeat(tree.infoset_num_actions, tree.infoset_num_actions))
        scale = sf.scale if sf.scale > 0 else 1.0
        unit = scale if spec.relative else 1.0
        self.sched = np.array([spec.alpha * unit, spec.alpha_end * unit, float(spec.horizon),
                               spec.stepsize, scale])
        self.counter = np.zeros(1, np.int64)

    @property
    def iterations(self):
        """Completed iterations."""
        return int(self.counter[0])

    def average_policy(self):
        """MMD's output: its last iterate (tree order, a copy)."""
        return self.sigma.copy()

    def current_policy(self):
        """The last iterate (tree order, a copy)."""
        return self.sigma.copy()

    def get_state(self):
        """The state is the behavioural policy and its logarithm (kept as ``regret``: MMD has no
        regrets; the average weights are zero)."""
        return dict(regret=self.logsig.copy(), cumulative=np.zeros_like(self.sigma),
                    sigma=self.sigma.copy())

    def set_state(self, state, iterations):
        """Restore :meth:`get_state`'s policy at iteration ``iterations``."""
        check_state(state, self.game_tree.num_actions)
        self.sigma[:] = state["sigma"]
        self.logsig[:] = state["regret"]
        self.x[:] = sequence_form(self.sigma, self.game_tree, self.sf)
        self.counter[0] = iterations


def check_two_player_zero_sum(tree):
    """``ValueError`` unless ``tree`` is a two-player zero-sum game (what MMD solves)."""
    if getattr(tree, "num_players", 2) != 2 or getattr(tree, "payoffs", None) is not None:
        raise ValueError("MMD solves two-player zero-sum trees only")


class HistoryMMD(LastIterate):
    """MMD iterations over the sequence form of a :class:`~solvers.GameTree` (one thread).

    Constructed like every representation (``cls(tree, spec, precision, updates, threads)``); MMD
    updates both players at once from float64 sequence forms whatever ``updates`` and
    ``precision`` say. The policy it returns as the average is its last iterate.
    """

    def __init__(self, tree, spec, precision, updates, threads):
        check_fits(self.estimate_bytes(tree, spec, precision, updates, threads),
                   f"solving {tree.game_id} with {spec.name}")
        check_two_player_zero_sum(tree)
        self.game_tree = tree
        self.spec = spec
        self.threads = 1
        self.sf = SequenceForm(tree)
        self._start()
        self.ws = None

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        """Working memory: the sequence form's, the iterates' and the best response's buffers."""
        return SequenceForm.estimate_bytes(tree) + 48 * tree.num_actions + 24 * tree.num_nodes

    def iterate(self, count):
        """Run ``count`` iterations (the kernel advances the counter with the state)."""
        t, sf = self.game_tree, self.sf
        mmd_iterations(self.x, self.sigma, self.logsig, self.c, self.g, sf.indptr, sf.indices, sf.data,
                       sf.parent, sf.below, sf.order, t.infoset_offset, t.infoset_num_actions,
                       self.logmag, self.sched, self.counter, count)

    def evaluate(self):
        """``(br0, br1, ev0)`` of the last iterate."""
        if self.ws is None:
            self.ws = _Workspace(self.game_tree)
        return _values(self.sigma, self.ws)


register(GameTree, HistoryMMD, family="mmd")
