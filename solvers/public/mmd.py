"""Magnetic Mirror Descent over a :class:`~solvers.trees.publictree.PublicTree`.

The :class:`~solvers.cfr.representation.Representation` of :class:`~solvers.cfr.mmd.MMDSpec` runs
on the public tree (the update and its references are in :mod:`solvers.cfr.mmd`), iterate for iterate
the history tree's :class:`~solvers.history.mmd.HistoryMMD`: the same step
(:func:`solvers.history.mmd.mmd_update`) from the same utilities, computed by the public tree's own
vector passes instead of a sparse matrix. An iteration is

1. the forward pass (:func:`solvers.public._kernel.forward`): every entry's own reach under the
   current iterate, both players;
2. the value pass (:func:`solvers.public._kernel.values`) for both players at once, under the *zero*
   strategy: an information set's entry is then worth nothing to its parents, so the value of an
   entry just below a decision (slot ``k``) is what the terminals reached before its player's next
   decision pay it, weighted by chance and the opponent's reach; summed per information set and
   slot (:func:`_utilities`) these are the utilities ``c`` of the sequences, ``(M x)`` of the
   history tree's sequence form, both players at the current iterate (simultaneous, as OpenSpiel's
   MMD);
3. the step: gradients, the behavioural softmax deepest information set first, the new sequence
   form.

The sequences, each information set's parent sequence, the information sets below each sequence and
``max|A|`` are read off the tree's entries once (:class:`~solvers.public._sequences.PublicSequences`).
The passes run on ``threads`` threads like the CFR passes (:class:`~solvers.public.rep.PublicTreeRep`,
same thresholds); a level's nodes are independent and each sum keeps its order, so the iterates do
not depend on the threads. Everything is float64 whatever ``precision`` says (as the history
tree's MMD).

Memory (:meth:`PublicMMD.estimate_bytes`): 20 bytes per entry (reach, value, the sequence it adds
to), 72 per action (the policy, its logarithm, the zero strategy, the action values, the magnet,
both sequence forms' vectors, the utilities and gradients), 16 per information set; while building,
8 per entry and per node and a bounded chunk of sequence pairs (:mod:`solvers.public._sequences`).
"""

from __future__ import annotations

import numba
import numpy as np

from solvers.cfr.representation import register
from solvers.history.mmd import LastIterate, check_two_player_zero_sum, mmd_update, temperature
from solvers.memory import check_fits
from solvers.public._kernel import _ALL, evaluate, forward, scratch, values
from solvers.public._sequences import PublicSequences, parent_nodes
from solvers.public.rep import passes_parallel, passes_threads
from solvers.trees.publictree import PublicTree

__all__ = ["PublicMMD", "public_mmd_iterations"]


@numba.njit(cache=True)
def _utilities(edge, v, c):
    """``c[Ia]``: the sum of the values ``v`` of the entries with slot ``a`` below information set
    ``I``'s entry (``edge``: :class:`~solvers.public._sequences.PublicSequences`); the empty
    sequences' zero. One streaming pass over the entries (walking the nodes and finding each entry's
    parent took longer than the value pass itself)."""
    for r in range(c.shape[0]):
        c[r] = 0.0
    for e in range(edge.shape[0]):
        if edge[e] >= 0:
            c[edge[e]] += v[e]


@numba.njit(cache=True)
def public_mmd_iterations(T, edge, B, parent, below, order, logmag, sched, counter, count, parallel):
    """Run ``count`` MMD iterations in place (module docstring).

    Parameters
    ----------
    T : PublicFlat
    edge, parent, below, order : :class:`~solvers.public._sequences.PublicSequences`' arrays.
    B : tuple
        ``(sigma, logsig, zero, x, c, g, reach, v, acc, X)``: the behavioural policy and its
        logarithm (rewritten), zeros (per action), both sequence forms (``a + 2``, rewritten), the
        utilities and gradients (``a + 2``, scratch), reach and values (per entry, scratch), the
        action values (per action, zero, left zero) and the terminals' scratch (:func:`scratch`).
    logmag, sched, counter, count : as :func:`solvers.history.mmd.mmd_iterations`.
    parallel : bool
        The passes' ``prange`` per level.

    Returns
    -------
    int
        0.
    """
    sigma, logsig, zero, x, c, g, reach, v, acc, X = B
    live = np.empty(0, np.int8)
    choice = np.empty(0, np.int32)
    for _ in range(count):
        t = counter[0] + 1
        alpha, eta = temperature(sched, t)
        forward(T, sigma, reach, parallel, _ALL[0], live)
        values(T, zero, reach, v, acc, X, _ALL[0], t < 0, choice, parallel)
        _utilities(edge, v, c)
        mmd_update(x, sigma, logsig, c, g, parent, below, order, T.infoset_offset,
                   T.infoset_num_actions, logmag, eta, alpha)
        counter[0] = t
    return 0


class PublicMMD(LastIterate):
    """MMD iterations over a :class:`~solvers.trees.publictree.PublicTree` (module docstring).

    Constructed like every representation (``cls(tree, spec, precision, updates, threads)``); both
    players are updated at once, in float64, whatever ``updates`` and ``precision`` say. The policy
    it returns as the average is its last iterate; policies are in the tree's information-set order.
    """

    #: The dispatchers of the first iteration and check (solvers.compiled.kernels_ready), and the
    #: first of the sequences' (compiled together with the others of their module).
    KERNELS = (public_mmd_iterations, evaluate, parent_nodes)

    def __init__(self, tree, spec, precision, updates, threads):
        check_fits(self.estimate_bytes(tree, spec, precision, updates, threads),
                   f"solving {tree.game_id} with {spec.name} on its public tree")
        check_two_player_zero_sum(tree)
        self.game_tree = tree
        self.spec = spec
        self.threads = passes_threads(tree.num_entries, threads)
        self._prange = passes_parallel(tree.num_entries, self.threads)
        self.sf = PublicSequences(tree)
        self._start()
        e, a = tree.num_entries, tree.num_actions
        self.zero, self.acc = np.zeros(a), np.zeros(a)
        self.reach, self.v = np.empty(e), np.empty(e)
        self.X = scratch(tree.flat, self.threads)

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        """Working memory (module docstring), bytes."""
        return (16 * tree.num_entries + 72 * tree.num_actions + PublicSequences.estimate_bytes(tree)
                + 8 * int(tree.flat.matrix_cols.max(initial=1)) * max(1, int(threads)))

    def _buffers(self):
        return (self.sigma, self.logsig, self.zero, self.x, self.c, self.g, self.reach, self.v,
                self.acc, self.X)

    def iterate(self, count):
        """Run ``count`` iterations (the kernel advances the counter with the state)."""
        sf = self.sf
        numba.set_num_threads(self.threads)
        public_mmd_iterations(self.game_tree.flat, sf.edge, self._buffers(), sf.parent, sf.below,
                              sf.order, self.logmag, self.sched, self.counter, count, self._prange)

    def evaluate(self):
        """``(br0, br1, ev0)`` of the last iterate (exact, on the public tree)."""
        numba.set_num_threads(self.threads)
        return evaluate(self.game_tree.flat, self.sigma, self.reach, self.v, self.acc, self.X,
                        self._prange)


register(PublicTree, PublicMMD, family="mmd")
