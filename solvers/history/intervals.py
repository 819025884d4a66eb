"""The range of a quantity over every epsilon-equilibrium, by sequence-form linear programs.

A two-player zero-sum game has a convex set of equilibria; a solver's strategy is one point of it.
Whether a number read off that strategy (a probability, a rate) is a property of the game or of the
solver is settled by its minimum and maximum over all strategy profiles whose exploitability is at
most ``epsilon``. In sequence form (Romanovskii 1962; Koller, Megiddo and von Stengel 1996, "Efficient
computation of equilibria for extensive two-person games", Games and Economic Behavior; von Stengel
1996) that set is a polyhedron: with ``x``, ``y`` the players' sequence forms (``F0 x = f0``,
``F1 y = f1``, ``x, y >= 0``), ``A`` the chance-weighted payoff matrix and ``u``, ``v`` the duals of
the two best-response problems,

    F0' u >= A y,   F1' v <= A' x,   u_root - v_root <= 2 epsilon

(``u_root`` bounds player 0's best-response value against ``y``, ``v_root`` player 1's against
``x``: their difference is the NashConv, twice the exploitability). A quantity that is a ratio of
two linear functions of ``(x, y)`` (a probability at an information set: the sequence over its
parent; a rate summed over information sets with chance weights) is optimised over it exactly by
the Charnes-Cooper transformation (Charnes and Cooper 1962, "Programming with linear fractional
functionals", Naval Research Logistics Quarterly): scale every variable by ``t >= 0`` with the
denominator fixed to 1. A rate weighted by the *opponent's* reach as well is bilinear and is not
handled here.

The programs are solved with HiGHS (Huangfu and Hall 2018, "Parallelizing the dual revised simplex
method", Mathematical Programming Computation) through :func:`scipy.optimize.linprog`.
"""

from __future__ import annotations

import numpy as np

from solvers.history.mmd import SequenceForm

__all__ = ["EquilibriumPolytope"]


class EquilibriumPolytope:
    """The epsilon-equilibria of a two-player zero-sum :class:`~solvers.GameTree`, as an LP.

    Variables (in this order): the sequences of player 0 (the tree's flat actions of its
    information sets, then its empty sequence), those of player 1, then ``u`` (one per information
    set of player 0, then its root) and ``v`` (player 1's). Quantities are given over the tree's
    sequence numbering (:class:`~solvers.history.mmd.SequenceForm`: flat actions, then ``a`` and
    ``a + 1``, the players' empty sequences).

    Parameters
    ----------
    tree : GameTree
    sf : SequenceForm, optional
    """

    def __init__(self, tree, sf=None):
        from scipy import sparse

        self.tree = tree
        sf = SequenceForm(tree) if sf is None else sf
        a = tree.num_actions
        owner = np.repeat(tree.infoset_player.astype(np.int64), tree.infoset_num_actions)
        owner = np.concatenate([owner, [0, 1]])
        self.seqs = [np.flatnonzero(owner == p) for p in (0, 1)]
        self.column = np.empty(a + 2, np.int64)  # sequence -> LP column
        n0, n1 = (len(s) for s in self.seqs)
        self.column[self.seqs[0]] = np.arange(n0)
        self.column[self.seqs[1]] = n0 + np.arange(n1)
        infosets = [np.flatnonzero(tree.infoset_player == p) for p in (0, 1)]
        m0, m1 = len(infosets[0]) + 1, len(infosets[1]) + 1
        self.sizes = (n0, n1, m0, m1)
        F = [self._treeplex(tree, sf, infosets[p], self.seqs[p], a + p) for p in (0, 1)]
        M = sparse.csr_matrix((sf.data, sf.indices, sf.indptr), shape=(a + 2, a + 2))
        A = M[self.seqs[0]][:, self.seqs[1]]  # player 0's payoff: rows its sequences
        Z = sparse.csr_matrix
        # Equalities: F0 x = f0, F1 y = f1 (the right-hand sides are t times e_root).
        self.eq = sparse.bmat([[F[0], None, Z((m0, m0)), Z((m0, m1))],
                               [None, F[1], Z((m1, m0)), Z((m1, m1))]], format="csr")
        self.eq_rhs = np.zeros(m0 + m1)
        self.eq_rhs[m0 - 1] = self.eq_rhs[m0 + m1 - 1] = 1.0
        gap = sparse.csr_matrix(([1.0, -1.0], ([0, 0], [n0 + n1 + m0 - 1, n0 + n1 + m0 + m1 - 1])),
                                shape=(1, n0 + n1 + m0 + m1))
        # Inequalities: A y - F0' u <= 0, F1' v - A' x <= 0, u_root - v_root <= 2 eps t.
        self.ub = sparse.vstack([sparse.bmat([[None, A, -F[0].T, None], [-A.T, None, None, F[1].T]]),
                                 gap], format="csr")
        self.num_vars = n0 + n1 + m0 + m1

    @staticmethod
    def _treeplex(tree, sf, infosets, seqs, empty):
        """``F`` (rows: the player's information sets, then its root; columns: its sequences)."""
        from scipy import sparse

        local = {int(s): k for k, s in enumerate(seqs)}
        rows, cols, vals = [], [], []
        for r, i in enumerate(infosets):
            o, n = int(tree.infoset_offset[i]), int(tree.infoset_num_actions[i])
            rows += [r] * (n + 1)
            cols += [local[o + k] for k in range(n)] + [local[int(sf.parent[i])]]
            vals += [1.0] * n + [-1.0]
        rows.append(len(infosets))
        cols.append(local[empty])
        vals.append(1.0)
        return sparse.csr_matrix((vals, (rows, cols)), shape=(len(infosets) + 1, len(seqs)))

    def _vector(self, weights):
        """An LP row from ``{sequence: weight}`` (sequence numbering of the tree)."""
        row = np.zeros(self.num_vars)
        for s, w in weights.items():
            row[self.column[int(s)]] += w
        return row

    def interval(self, numerator, denominator=None, epsilon=0.0):
        """``(min, max)`` of ``numerator(x, y) / denominator(x, y)`` over the epsilon-equilibria.

        Parameters
        ----------
        numerator, denominator : dict
            ``{sequence: weight}``; the denominator defaults to 1 and must be positive on the set.
        epsilon : float
            Exploitability bound (OpenSpiel's convention, NashConv / 2).

        Raises
        ------
        RuntimeError
            If HiGHS fails (the message names its status).
        """
        from scipy import sparse
        from scipy.optimize import linprog

        num = self._vector(numerator)
        den = self._vector(denominator or {self.tree.num_actions: 1.0})
        n = self.num_vars
        # Charnes-Cooper: variables w = t z and t; den . w = 1; constraints homogeneous in t.
        eq = sparse.vstack([sparse.hstack([self.eq, -self.eq_rhs[:, None]]),
                            sparse.csr_matrix(np.append(den, 0.0))], format="csr")
        eq_rhs = np.zeros(eq.shape[0])
        eq_rhs[-1] = 1.0
        t_col = np.zeros((self.ub.shape[0], 1))
        t_col[-1, 0] = -2.0 * epsilon
        ub = sparse.hstack([self.ub, t_col], format="csr")
        n0, n1, _, _ = self.sizes
        bounds = [(0, None)] * (n0 + n1) + [(None, None)] * (n - n0 - n1) + [(0, None)]
        out = []
        for sign in (1.0, -1.0):
            res = linprog(sign * np.append(num, 0.0), A_ub=ub, b_ub=np.zeros(ub.shape[0]),
                          A_eq=eq, b_eq=eq_rhs, bounds=bounds, method="highs")
            if res.status != 0:
                raise RuntimeError(f"HiGHS did not solve the interval's program: {res.message}")
            out.append(sign * res.fun)
        return out[0], out[1]
