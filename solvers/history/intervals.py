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
denominator fixed to 1. A rate weighted by the *opponent's* reach as well is bilinear: it is bounded
by a hull of linear-fractional programs, one per sequence of one player (:func:`bilinear_interval`),
with the profiles those programs return as attained values.

The programs are solved with HiGHS (Huangfu and Hall 2018, "Parallelizing the dual revised simplex
method", Mathematical Programming Computation) through :func:`scipy.optimize.linprog`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solvers.history.mmd import SequenceForm

__all__ = ["BilinearInterval", "EquilibriumPolytope", "bilinear_interval", "ratio_at"]


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
        return tuple(self.extreme(numerator, denominator, epsilon, sign)[0] for sign in (1.0, -1.0))

    def extreme(self, numerator, denominator=None, epsilon=0.0, sign=1.0, fixed=None):
        """The minimum (``sign`` 1) or maximum (-1) of the ratio and a profile attaining it.

        ``fixed``, ``(player, z)``, holds that player's sequence form at ``z``'s (then the ratio
        is optimised over the other player's strategies that make an epsilon-equilibrium with it).

        Returns
        -------
        (float, ndarray) or None
            The extreme value and both players' sequence forms in the tree's sequence numbering
            (``a + 2`` entries); None when the denominator is zero on every epsilon-equilibrium.

        Raises
        ------
        RuntimeError
            If HiGHS fails otherwise (the message names its status).
        """
        from scipy import sparse
        from scipy.optimize import linprog

        num = self._vector(numerator)
        den = self._vector(denominator or {self.tree.num_actions: 1.0})
        n = self.num_vars
        # Charnes-Cooper: variables w = t z and t; den . w = 1; constraints homogeneous in t.
        rows = [sparse.hstack([self.eq, -self.eq_rhs[:, None]])]
        if fixed is not None:  # w_s - z_s t = 0 for the fixed player's sequences
            p, z = fixed
            cols = self.column[self.seqs[p]]
            pin = sparse.csr_matrix((np.ones(len(cols)), (np.arange(len(cols)), cols)),
                                    shape=(len(cols), n))
            rows.append(sparse.hstack([pin, -z[self.seqs[p]][:, None]]))
        eq = sparse.vstack(rows + [sparse.csr_matrix(np.append(den, 0.0))], format="csr")
        eq_rhs = np.zeros(eq.shape[0])
        eq_rhs[-1] = 1.0
        t_col = np.zeros((self.ub.shape[0], 1))
        t_col[-1, 0] = -2.0 * epsilon
        ub = sparse.hstack([self.ub, t_col], format="csr")
        n0, n1, _, _ = self.sizes
        bounds = [(0, None)] * (n0 + n1) + [(None, None)] * (n - n0 - n1) + [(0, None)]
        res = linprog(sign * np.append(num, 0.0), A_ub=ub, b_ub=np.zeros(ub.shape[0]),
                      A_eq=eq, b_eq=eq_rhs, bounds=bounds, method="highs")
        if res.status == 2:
            return None
        if res.status != 0:
            raise RuntimeError(f"HiGHS did not solve the interval's program: {res.message}")
        z = np.zeros(self.tree.num_actions + 2)
        t = res.x[-1]
        z[self.seqs[0]] = res.x[:n0] / t
        z[self.seqs[1]] = res.x[n0:n0 + n1] / t
        return sign * res.fun, z

    def bilinear_interval(self, numerator, denominator, epsilon=0.0, witnesses=(), rounds=2,
                          max_groups=None):
        """Bounds on a ratio of two *bilinear* functions of the sequence forms over the
        epsilon-equilibria (:func:`bilinear_interval`, with this polytope)."""
        return bilinear_interval(self, numerator, denominator, epsilon, witnesses, rounds, max_groups)


@dataclass(frozen=True)
class BilinearInterval:
    """What :func:`bilinear_interval` proves about a ratio over the epsilon-equilibria.

    Attributes
    ----------
    low, high : float
        Outer bounds: every epsilon-equilibrium's ratio lies in ``[low, high]`` (nan when the
        denominator is zero on every epsilon-equilibrium).
    seen_low, seen_high : float
        The smallest and largest ratio of the epsilon-equilibria met on the way (the programs'
        optimal profiles and the given witnesses): values that *are* attained.
    exact : bool
        The outer bounds are attained (one group: a linear-fractional program).
    programs : int
        Linear programs solved.
    """

    low: float
    high: float
    seen_low: float
    seen_high: float
    exact: bool
    programs: int
    #: Both players' sequence forms attaining ``seen_low`` and ``seen_high`` (None where none).
    profiles: tuple = field(default=(None, None), repr=False, compare=False)


def ratio_at(z, numerator, denominator):
    """The ratio of two bilinear forms at the sequence forms ``z`` (both players, tree numbering);
    each form is ``(s0, s1, w)``: ``sum w z[s0] z[s1]``. nan when the denominator is zero."""
    num = float(np.sum(numerator[2] * z[numerator[0]] * z[numerator[1]]))
    den = float(np.sum(denominator[2] * z[denominator[0]] * z[denominator[1]]))
    return num / den if den > 0 else float("nan")


def _grouping(numerator, denominator):
    """The player whose sequences group the terms (every numerator group has denominator terms),
    the one with fewer groups; None if neither qualifies."""
    best = None
    for p in (0, 1):
        groups = np.unique(denominator[p])
        if np.isin(numerator[p], groups).all() and (best is None or len(groups) < best[1]):
            best = (p, len(groups))
    return None if best is None else best[0]


def _weights(form, p, g):
    """``{other player's sequence: weight}`` of the terms whose player-``p`` sequence is ``g``."""
    mine = form[p] == g
    other, w = form[1 - p][mine], form[2][mine]
    out = {}
    for s, v in zip(other.tolist(), w.tolist()):
        out[s] = out.get(s, 0.0) + v
    return out


def _fixing(form, p, z):
    """``{other player's sequence: weight}`` of a bilinear form with player ``p`` held at ``z``."""
    out = {}
    for s, v in zip(form[1 - p].tolist(), (form[2] * z[form[p]]).tolist()):
        out[s] = out.get(s, 0.0) + v
    return out


def _ascend(polytope, numerator, denominator, epsilon, sign, z, first, rounds):
    """Alternating best responses on the ratio from the profile ``z``: hold one player's sequence
    form (player ``first`` first), optimise the other's (a linear-fractional program), swap; every
    profile met is an epsilon-equilibrium. Returns the ratios met and the programs solved."""
    seen, programs = [], 0
    best = ratio_at(z, numerator, denominator)
    best = sign * math.inf if math.isnan(best) else best  # z may not reach the ratio's condition
    for _ in range(rounds):
        start = best
        for p in (first, 1 - first):
            programs += 1
            found = polytope.extreme(_fixing(numerator, p, z), _fixing(denominator, p, z), epsilon,
                                     sign, fixed=(p, z))
            if found is None:
                continue
            value = ratio_at(found[1], numerator, denominator)
            if not math.isnan(value) and sign * value < sign * best:
                best, z = value, found[1]
                seen.append((value, z))
        if not sign * best < sign * start - 1e-9:
            break
    return seen, programs


def bilinear_interval(polytope, numerator, denominator, epsilon=0.0, witnesses=(), rounds=2,
                      max_groups=None):
    """Bounds on ``N(x, y) / D(x, y)`` over the epsilon-equilibria, ``N`` and ``D`` bilinear.

    A rate weighted by both players' reach (how often a claim is a bluff: the claimant's reach and
    the opponent's) is a ratio of bilinear forms ``sum_h w_h x[s0_h] y[s1_h]``, not a
    linear-fractional program. Grouped by one player's sequence ``g`` (the player with fewer of
    them), ``N = sum_g x_g N_g(y)`` and ``D = sum_g x_g D_g(y)`` with ``N_g``, ``D_g`` linear in the
    other's sequence form, so the ratio is a weighted mean of the ``N_g / D_g`` (weights ``x_g
    D_g``; valid when ``N_g`` vanishes wherever ``D_g`` does, as for a sub-count of ``D``'s events
    or a later decision of the same play). Each group's extremes over the polytope are
    linear-fractional programs (:meth:`EquilibriumPolytope.extreme`), and their hull bounds the
    ratio: an outer interval, exact when there is one group. Every program's optimal profile is an
    epsilon-equilibrium, so its own ratio (and each witness's) is attained: an inner interval. The
    ratio is determined to within ``d`` when the outer interval is narrower than ``d``, and provably
    not when the inner one is at least ``d`` wide; otherwise it is open. The inner interval is
    widened by ``rounds`` rounds of alternating best responses on the ratio from its two ends (hold
    one player's sequence form, optimise the other's, a linear-fractional program; Konno 1976, "A
    cutting plane algorithm for solving bilinear programs", Mathematical Programming), each
    profile met an epsilon-equilibrium too.

    Parameters
    ----------
    polytope : EquilibriumPolytope
    numerator, denominator : tuple of ndarray
        ``(s0, s1, w)``: player 0's and player 1's sequence of each term (tree numbering, the empty
        sequences ``a`` and ``a + 1``) and its weight (chance's reach times what it counts).
    epsilon : float
    witnesses : sequence of ndarray
        Sequence forms (``a + 2`` entries, both players) of profiles known to be
        epsilon-equilibria, whose ratios join the inner interval.
    rounds : int
        Rounds of the alternating ascent (0: none).
    max_groups : int, optional
        With more groups than this, no outer bound (``low`` and ``high`` nan): only the ascent
        from the witnesses' extreme ratios, a few programs instead of two per group.

    Returns
    -------
    BilinearInterval

    Raises
    ------
    ValueError
        If no player's sequences group the numerator's terms within the denominator's.
    """
    numerator = tuple(np.asarray(v) for v in numerator)
    denominator = tuple(np.asarray(v) for v in denominator)
    p = _grouping(numerator, denominator)
    if p is None:
        raise ValueError("bilinear_interval: neither player's sequences group the numerator's terms "
                         "within the denominator's")
    groups = np.unique(denominator[p])
    programs, seen = 0, [(ratio_at(z, numerator, denominator), z) for z in witnesses]
    ends = {1.0: (math.inf, None), -1.0: (math.inf, None)}  # sign -> (sign * bound, its profile)
    outer = max_groups is None or len(groups) <= max_groups
    if not outer:  # the ascent starts from the witnesses' ends
        for sign in ends:
            known = [(sign * v, z) for v, z in seen if not math.isnan(v)]
            ends[sign] = (math.inf, min(known, key=lambda vz: vz[0])[1] if known else None)
    for g in groups.tolist() if outer else ():
        num, den = _weights(numerator, p, g), _weights(denominator, p, g)
        for sign in (1.0, -1.0):
            programs += 1
            found = polytope.extreme(num, den, epsilon, sign)
            if found is None:
                break  # this group's denominator is zero on the whole set
            value, z = found
            if sign * value < ends[sign][0]:
                ends[sign] = (sign * value, z)
            seen.append((ratio_at(z, numerator, denominator), z))  # nan: z never meets the condition
    if len(groups) > 1:  # from each bound's group profile: the other player's part first
        for sign, (_, z) in ends.items():
            if z is not None:
                more, count = _ascend(polytope, numerator, denominator, epsilon, sign, z, 1 - p, rounds)
                seen += more
                programs += count
    seen = [(v, z) for v, z in seen if not math.isnan(v)]
    low, high = ends[1.0][0], -ends[-1.0][0]
    if math.isinf(low) or not outer:
        low = high = math.nan
    first = min(seen, key=lambda vz: vz[0], default=(math.nan, None))
    last = max(seen, key=lambda vz: vz[0], default=(math.nan, None))
    return BilinearInterval(low, high, first[0], last[0], len(groups) == 1, programs,
                            (first[1], last[1]))
