"""Counterfactual regret minimisation over the solver layout of a game tree.

Zinkevich, Johanson, Bowling and Piccione (2007), "Regret Minimization in
Games with Incomplete Information", NeurIPS 20. The variants (CFR+, LCFR,
DCFR, PCFR+) are parameters of the same pass; see :mod:`solvers.cfr.algorithms`.
The tree is read through :mod:`solvers.history.layout`: the non-terminal histories
level by level, in segments of one kind and one number of children, with
payoffs kept in the value buffer at the terminals. The passes over the tree
are in :mod:`solvers.history.passes`; this module holds the information-set updates
and the iteration loop. The kernel takes three named tuples: the layout
(:class:`~solvers.history.layout.LayoutArrays`), the solver's buffers
(:class:`~solvers.cfr.state.SolverState`) and the algorithm's scalars
(:class:`~solvers.cfr.state.Params`).

One iteration ``t`` with alternating updates performs, for ``p = 0`` then
``p = 1``:

1. a forward pass (:func:`~solvers.history.passes.pull`), level by level, giving each
   non-terminal ``q``, the counterfactual reach of ``p`` (chance's and the
   opponent's probabilities on the path), as its parent's ``q`` times the
   probability of the edge into it, and listing the non-terminals with
   ``q > 0``;
2. a backward pass (:func:`~solvers.history.passes.backward`), deepest level first, over the listed
   non-terminals only, computing player 0's value ``v`` and, at ``p``'s
   decision nodes, adding ``q * (child value - node value)`` (negated for
   player 1) to the regrets. Histories with ``q = 0`` have zero regret terms
   and their parents weight them by a zero probability;
3. in one sweep over ``p``'s information sets, ancestors first
   (:func:`_infosets`): the average-strategy weights in sequence form (``p``'s
   own reach is the same at every history of an information set, perfect
   recall, so adding ``t**gamma * count * own_reach * strategy`` once per
   information set, ``count`` its number of histories, equals adding it at
   each history), then the variant's regret update and regret matching into
   the current strategy (for PCFR+, a further reverse sweep computes the
   predicted counterfactual values and the predictive regret-matching+
   strategy, see :func:`_predict`).

With simultaneous updates one forward pass computes the counterfactual reach
of both players, one backward pass updates the regrets of both, and both
strategies are then updated: half the passes of alternating updates, and
exactly OpenSpiel's ``alternating_updates=False``.

Values, regret terms and strategies follow OpenSpiel's
``open_spiel/python/algorithms/cfr.py`` operation for operation where it
matters for the iterates (the same products along a path, the same
summation order over children, uniform strategy when no regret is positive)
so that CFR and CFR+ reproduce ``CFRSolver``/``CFRPlusSolver`` to rounding;
the sums over the histories of an information set are taken in another
order.

Every inner loop runs over the children of one segment member (a constant
length within the segment) and all index arithmetic is unsigned (numba then
emits no negative-index wraparound). Parallel runs (``threads > 1``) give
each thread whole subtrees (the layout's parts) below a shallow level, two
``prange`` regions per pass; each thread adds its regret terms to its own
row of ``inst``, summed in :func:`_infosets`. Kernels allocate nothing.
"""

import numba
import numpy as np
from numba import prange

from solvers.cfr.matching import predictive_match
from solvers.cfr.matching import schedule as _schedule
from solvers.history.passes import U, backward, backward_parts, forward, pull, pull_parts
from solvers.kinds import BOTH_PLAYERS


@numba.njit(cache=True)
def _infosets(L, S, lo, hi, sigma, summed, weight, fpos, fneg, P):
    """Average weights, regret update and regret matching for infosets ``lo..hi-1``.

    Positions refer to the layout's infoset order (ancestors first). For each
    information set: its owner's reach ``r`` (``own`` of its parent sequence;
    ``own`` has one entry per action plus a final 1 for the root, and is set
    here to ``r * strategy``), then the average-strategy weights
    ``cumulative += count * ((weight * r) * strategy)`` with the strategy just
    played, then the variant's regret update and regret matching. When
    ``summed``, the regret terms of the pass are in the rows of ``inst`` (one
    per parallel run) and are added here (and the rows cleared); predictive
    variants then leave the strategy to :func:`_predict`. About 100 lines: the
    regret update is written inline, because as a called function (inlined by
    numba or not) it made an iteration measurably slower (docs/research/design-measurements.md).

    Parameters
    ----------
    L : LayoutArrays
    S : SolverState
    lo, hi : int
        Positions in ``L.order``.
    sigma : ndarray, float64, shape (num_actions,)
        ``S.tab[:num_actions]``, the current strategy (rewritten).
    summed : bool
    weight, fpos, fneg : float
        Averaging weight ``t**gamma``; discount factors of positive and
        negative regrets.
    P : Params
    """
    info_offset, info_actions, info_parent, info_count = (L.info_offset, L.info_actions,
                                                          L.info_parent, L.info_count)
    own, cumulative, regret, inst = S.own, S.cumulative, S.regret, S.inst
    plus, discount, predictive = P.plus, P.discount, P.predictive
    rows = inst.shape[0]
    for j in range(lo, hi):
        o = U(info_offset[j])
        m = U(info_actions[j])
        r = own[U(info_parent[j])]
        wr = weight * r
        n = info_count[j]
        for a in range(m):
            x = sigma[o + a]
            own[o + a] = r * x
            cumulative[o + a] += n * (wr * x)
        if summed:
            for a in range(m):
                x = 0.0
                for t in range(rows):
                    x += inst[t, o + a]
                    inst[t, o + a] = 0.0
                if predictive:
                    x += regret[o + a]
                    regret[o + a] = x if x > 0.0 else 0.0
                else:
                    regret[o + a] += x
            if predictive:
                continue  # the strategy comes from _predict
        total = 0.0
        if discount:
            for a in range(m):
                x = regret[o + a]
                if plus and x < 0.0:
                    x = 0.0
                x *= fpos if x >= 0.0 else fneg
                regret[o + a] = x
                if x > 0.0:
                    total += x
        elif plus:
            for a in range(m):
                x = regret[o + a]
                if x < 0.0:
                    x = 0.0
                    regret[o + a] = 0.0
                total += x
        else:
            for a in range(m):
                x = regret[o + a]
                if x > 0.0:
                    total += x
        if total > 0.0:
            for a in range(m):
                x = regret[o + a]
                sigma[o + a] = (x if x > 0.0 else 0.0) / total
        else:
            uniform = 1.0 / float(m)
            for a in range(m):
                sigma[o + a] = uniform


@numba.njit(cache=True)
def _predict(L, S, sigma, q, p):
    """Predictive regret matching+ step of PCFR+ for player ``p``.

    The prediction of the next counterfactual values is the loss just
    observed (same opponent strategy and chance), evaluated with ``p``'s new
    strategies below each information set, computed bottom up in sequence
    form: ``w`` holds the opponent-and-chance-weighted value of each node's
    subtree down to ``p``'s next decisions, ``acc`` the predicted
    counterfactual value of each action. Levels are processed deepest first;
    after a level, the information sets whose first history lies in it are
    final (all their histories and all information sets below are done).
    ``q`` is ``p``'s counterfactual reach from the forward pass.

    Parameters
    ----------
    L : LayoutArrays
    S : SolverState
        Reads ``v``, ``regret``; writes ``w``, ``acc``.
    sigma : ndarray, float64, shape (num_actions,)
        The current strategy; ``p``'s part is rewritten.
    q : ndarray, float64, shape (num_nodes,)
    p : int
        0 or 1.
    """
    node, child, aux = L.node, L.child, L.aux
    seg_start, seg_kind, seg_nc, level_seg = L.seg_start, L.seg_kind, L.seg_nc, L.level_seg
    order, level_order = L.order, L.level_order
    infoset_offset, infoset_num_actions, parent_seq = L.ioff, L.num_actions, L.iparent
    v, w, acc, regret = S.v, S.w, S.acc, S.regret
    sign = 1.0 if p == 0 else -1.0
    for i in range(q.shape[0]):
        w[i] = q[i] * (sign * v[i])  # kept at the terminals, overwritten elsewhere
    for j in range(acc.shape[0]):
        acc[j] = 0.0
    for d in range(level_seg.shape[0] - 2, -1, -1):
        for s in range(level_seg[d], level_seg[d + 1]):
            kd = seg_kind[s]
            nc = U(seg_nc[s])
            if kd != p:
                for j in range(U(seg_start[s]), U(seg_start[s + 1])):
                    c = U(child[j])
                    total = 0.0
                    for k in range(nc):
                        total += w[c + k]
                    w[U(node[j])] = total
            else:
                for j in range(U(seg_start[s]), U(seg_start[s + 1])):
                    c = U(child[j])
                    o = U(aux[j])
                    for k in range(nc):
                        acc[o + k] += w[c + k]
                    w[U(node[j])] = 0.0
        for x in range(level_order[p, d], level_order[p, d + 1]):
            s = order[x]
            o = infoset_offset[s]
            m = infoset_num_actions[s]
            value = predictive_match(sigma, regret, acc, o, m)
            if parent_seq[s] >= 0:
                acc[parent_seq[s]] += value




@numba.njit(cache=True)
def _update(L, S, P, p, sigma, cprob, summed, weight, fpos, fneg):
    """After the passes for ``p``: its information sets, then (PCFR+) the predictions.

    ``L``, ``S``, ``P``: the layout, state and parameters; ``p``: 0, 1 or ``BOTH_PLAYERS``;
    ``sigma`` (float64, ``num_actions``) and ``cprob`` (float64, chance edges): views of ``S.tab``;
    ``summed``, ``weight``, ``fpos``, ``fneg``: as for :func:`_infosets`.
    """
    a = sigma.shape[0]
    S.own[a] = 1.0
    lo = L.split if p == 1 else 0
    hi = L.split if p == 0 else L.order.shape[0]
    _infosets(L, S, lo, hi, sigma, summed, weight, fpos, fneg, P)
    if P.predictive:
        # The prediction uses the strategies just played: keep them
        # while _predict rewrites the first player's (simultaneous).
        prev = S.prev
        for x in range(a):
            prev[x] = sigma[x]
        for b in range(2):
            if p == 1 - b:
                continue
            # PCFR+ needs b's reach at every history (the terminals too).
            S.qn[0] = 1.0
            forward(L, 0, L.seg_kind.shape[0], cprob, prev, S.qn, b)
            _predict(L, S, sigma, S.qn, b)


@numba.njit(cache=True, parallel=True)
def run_iterations(L, thread_parts, S, P, num_iterations):
    """Run ``num_iterations`` iterations in place; ``S.counter[0]`` counts them.

    With one thread (``thread_parts`` of length 2) the passes run through all
    the segments serially. With ``T > 1`` threads the levels above the
    layout's ``cut`` run serially and each thread then runs its parts
    (``thread_parts[t]`` to ``thread_parts[t + 1] - 1``) through all the
    levels below: one parallel region (``prange``) per forward and per
    backward pass. Alternating updates: a pass for player 0, then one for
    player 1; simultaneous: one pass for both (``p = BOTH_PLAYERS``).

    Parameters
    ----------
    L : LayoutArrays
    thread_parts : ndarray, int64, shape (T + 1,)
        :meth:`solvers.history.layout.Layout.parts`.
    S : SolverState
        ``S.v`` must hold :func:`~solvers.history.passes.init_values`; ``S.tab``
        the current strategy. Updated in place.
    P : Params
    num_iterations : int

    Returns
    -------
    int
        0.
    """
    threads = thread_parts.shape[0] - 1
    num_segments = L.seg_kind.shape[0]
    top = L.level_seg[L.cut]
    summed = threads > 1 or P.predictive
    tab, q0, q1, v, inst, live, live_count = S.tab, S.q0, S.q1, S.v, S.inst, S.live, S.live_count
    a = S.own.shape[0] - 1
    sigma = tab[:a]
    cprob = tab[a:L.one]
    reg = inst[0] if summed else S.regret
    players = 1 if P.simultaneous else 2
    first = np.int64(0)  # not a literal 0: the passes' one copy serves the parts' calls too
    for _ in range(num_iterations):
        t = S.counter[0] + 1
        weight, fpos, fneg = _schedule(t, P)
        for pi in range(players):
            p = BOTH_PLAYERS if P.simultaneous else pi
            if q0.shape[0] > 0:
                q0[0] = 1.0
            if q1.shape[0] > 0:
                q1[0] = 1.0
            if threads == 1:
                pull(L, first, num_segments, tab, q0, q1, p, live, live_count)
                backward(L, first, num_segments, cprob, sigma, q0, q1, v, reg, p, live, live_count)
            else:
                pull(L, first, top, tab, q0, q1, p, live, live_count)
                for k in prange(threads):
                    pull_parts(L, thread_parts[k], thread_parts[k + 1], tab, q0, q1, p, live,
                               live_count)
                for k in prange(threads):
                    backward_parts(L, thread_parts[k], thread_parts[k + 1], cprob, sigma, q0,
                                   q1, v, inst[k], p, live, live_count)
                backward(L, first, top, cprob, sigma, q0, q1, v, inst[0], p, live, live_count)
            _update(L, S, P, p, sigma, cprob, summed, weight, fpos, fneg)
        S.counter[0] = t
    return 0
