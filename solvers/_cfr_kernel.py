"""Counterfactual regret minimisation over the solver layout of a game tree.

Zinkevich, Johanson, Bowling and Piccione (2007), "Regret Minimization in
Games with Incomplete Information", NeurIPS 20. The variants (CFR+, LCFR,
DCFR, PCFR+) are parameters of the same pass; see :mod:`solvers.algorithms`.
The tree is read through :mod:`solvers._layout`: the non-terminal histories
level by level, in segments of one kind and one number of children, with
payoffs kept in the value buffer at the terminals.

One iteration ``t`` with alternating updates performs, for ``p = 0`` then
``p = 1``:

1. a forward pass (:func:`_pull`), level by level, giving each
   non-terminal ``q``, the counterfactual reach of ``p`` (chance's and the
   opponent's probabilities on the path), as its parent's ``q`` times the
   probability of the edge into it, and listing the non-terminals with
   ``q > 0``;
2. a backward pass (:func:`_backward`), deepest level first, over the listed
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

U = np.uint64


@numba.njit(cache=True)
def normalize_average(cumulative, infoset_offset, infoset_num_actions, out):
    """Average strategy from cumulative weights (uniform where they sum to 0)."""
    for s in range(infoset_offset.shape[0]):
        o = infoset_offset[s]
        m = infoset_num_actions[s]
        total = 0.0
        for a in range(m):
            total += cumulative[o + a]
        if total > 0.0:
            for a in range(m):
                out[o + a] = cumulative[o + a] / total
        else:
            for a in range(m):
                out[o + a] = 1.0 / m


@numba.njit(cache=True)
def init_values(kind, payoff, v):
    """Payoffs (to player 0) at the terminals, zero elsewhere."""
    for i in range(kind.shape[0]):
        v[i] = payoff[i] if kind[i] == 2 else 0.0


@numba.njit(cache=True)
def _forward(node, child, aux, seg_start, seg_kind, seg_nc, s_lo, s_hi, cprob, sigma, q, p):
    """Counterfactual reach of ``p`` at every history (node-indexed ``q``), pushed from parents.

    Used by the best response and by PCFR+'s prediction, which need the
    reach at the terminals too; segments ``s_lo..s_hi-1``. Index arithmetic is
    unsigned, so numba emits no negative-index wraparound; every inner loop
    has the segment's constant length.
    """
    for s in range(s_lo, s_hi):
        kd = seg_kind[s]
        nc = U(seg_nc[s])
        for j in range(U(seg_start[s]), U(seg_start[s + 1])):
            i = U(node[j])
            c = U(child[j])
            a0 = q[i]
            if kd == p:
                for k in range(nc):
                    q[c + k] = a0
            elif kd == 2:
                x = U(aux[j])
                for k in range(nc):
                    q[c + k] = a0 * cprob[x + k]
            else:
                o = U(aux[j])
                for k in range(nc):
                    q[c + k] = a0 * sigma[o + k]


@numba.njit(cache=True)
def _pull(par, edge, seg_start, s_lo, s_hi, tab, one, q0, q1, p, live, live_count):
    """Counterfactual reach of the non-terminals of segments ``s_lo..s_hi-1`` (slot-indexed).

    Each non-terminal ``j`` takes its parent's reach ``q0[par[j]]`` times the
    probability of the edge into it: ``edge[j] = (x << 2) | kind`` with
    ``tab[x]`` the strategy or chance probability (``tab`` is the strategy,
    then the chance probabilities, then a 1 at ``one``) and ``kind`` the
    parent's (0, 1: decision of that player; 2: chance), so that the edges of
    the player whose reach is left out read the 1; branch-free. Only
    non-terminals get a reach (terminals need none) and the reach is stored by
    slot, in the order the passes visit it. ``p`` is 0 or 1 (alternating
    updates: ``q0`` is ``p``'s counterfactual reach) or 2 (simultaneous:
    ``q0`` for player 0, ``q1`` for player 1). The members with a nonzero
    reach are listed at the start of their segment's range of ``live`` and
    counted in ``live_count``, for :func:`_backward`.
    """
    ones = U(one)
    three = U(3)
    two = U(2)
    inc = U(1)
    zero = U(0)
    for s in range(s_lo, s_hi):
        j0 = U(seg_start[s])
        j1 = U(seg_start[s + 1])
        n_live = zero
        if p == 2:
            for j in range(j0, j1):
                e = U(edge[j])
                k = e & three
                x = e >> two
                pj = U(par[j])
                a0 = q0[pj] * tab[ones if k == 0 else x]
                a1 = q1[pj] * tab[ones if k == 1 else x]
                q0[j] = a0
                q1[j] = a1
                live[j0 + n_live] = j
                n_live += inc if (a0 != 0.0 or a1 != 0.0) else zero
        else:
            pp = U(p)
            for j in range(j0, j1):
                e = U(edge[j])
                x = e >> two
                a0 = q0[U(par[j])] * tab[ones if (e & three) == pp else x]
                q0[j] = a0
                live[j0 + n_live] = j
                n_live += inc if a0 != 0.0 else zero
        live_count[s] = n_live


@numba.njit(cache=True, inline="always")
def _expect(prob, o, v, c, nc):
    """``sum(prob[o + k] * v[c + k] for k < nc)``, in OpenSpiel's order: a node's value."""
    val = 0.0
    for k in range(nc):
        val += prob[o + k] * v[c + k]
    return val


@numba.njit(cache=True)
def _backward(node, child, aux, seg_start, seg_kind, seg_nc, s_lo, s_hi, cprob, sigma, q0, q1,
              v, reg, p, live, live_count):
    """Values (player 0's) of the non-terminals of segments ``s_hi-1..s_lo`` and regret terms.

    Only the members :func:`_pull` listed as reached are visited: histories
    with zero counterfactual reach (for every player updated) have zero
    regret terms and their parents weight their values by a zero
    probability, so they are passed over without a branch per history.
    ``q0``/``q1`` are slot-indexed (:func:`_pull`); ``v`` is node-indexed
    (payoffs at the terminals). Regret terms go to ``reg``; ``p`` as in
    :func:`_pull`.
    """
    sign = -1.0 if p == 1 else 1.0
    for s in range(s_hi - 1, s_lo - 1, -1):
        kd = seg_kind[s]
        nc = U(seg_nc[s])
        j0 = U(seg_start[s])
        count = U(live_count[s])
        if kd == 2:
            for r in range(count):
                j = U(live[j0 + r])
                v[U(node[j])] = _expect(cprob, U(aux[j]), v, U(child[j]), nc)
        elif p == 2:
            for r in range(count):
                j = U(live[j0 + r])
                c = U(child[j])
                o = U(aux[j])
                val = _expect(sigma, o, v, c, nc)
                v[U(node[j])] = val
                if kd == 0:
                    a0 = q0[j]
                    for k in range(nc):
                        reg[o + k] += a0 * (v[c + k] - val)
                else:
                    a1 = q1[j]
                    for k in range(nc):
                        reg[o + k] += a1 * (val - v[c + k])
        elif kd == p:
            for r in range(count):
                j = U(live[j0 + r])
                c = U(child[j])
                o = U(aux[j])
                a0 = q0[j]
                val = _expect(sigma, o, v, c, nc)
                v[U(node[j])] = val
                for k in range(nc):
                    reg[o + k] += a0 * (sign * (v[c + k] - val))
        else:
            for r in range(count):
                j = U(live[j0 + r])
                v[U(node[j])] = _expect(sigma, U(aux[j]), v, U(child[j]), nc)


@numba.njit(cache=True)
def _infosets(lo, hi, info_offset, info_actions, info_parent, info_count, sigma, cumulative,
              own, regret, inst, summed, weight, plus, discount, fpos, fneg, predictive):
    """Average weights, regret update and regret matching for infosets ``lo..hi-1``.

    Positions refer to the layout's infoset order (ancestors first). For each
    information set: its owner's reach ``r`` (``own`` of its parent sequence;
    ``own`` has one entry per action plus a final 1 for the root, and is set
    here to ``r * strategy``), then the average-strategy weights
    ``cumulative += count * ((weight * r) * strategy)`` with the strategy just
    played, then the variant's regret update and regret matching. When
    ``summed``, the regret terms of the pass are in the rows of ``inst`` (one
    per parallel run) and are added here (and the rows cleared); predictive
    variants then leave the strategy to :func:`_predict`.
    """
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
def _predict(node, child, aux, seg_start, seg_kind, seg_nc, level_seg, order, level_order,
             infoset_offset, infoset_num_actions, parent_seq, q, v, w, acc, regret, sigma, p):
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
    """
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
            baseline = 0.0
            for a in range(m):
                baseline += sigma[o + a] * acc[o + a]
            total = 0.0
            for a in range(m):
                y = regret[o + a] + acc[o + a] - baseline
                if y > 0.0:
                    total += y
            value = 0.0
            for a in range(m):
                if total > 0.0:
                    y = regret[o + a] + acc[o + a] - baseline
                    sigma[o + a] = (y if y > 0.0 else 0.0) / total
                else:
                    sigma[o + a] = 1.0 / m
                value += sigma[o + a] * acc[o + a]
            if parent_seq[s] >= 0:
                acc[parent_seq[s]] += value


@numba.njit(cache=True)
def _pull_parts(par, edge, seg_start, part_seg, cut, p_lo, p_hi, tab, one, q0, q1, p, live,
                live_count):
    """:func:`_pull` over parts ``p_lo..p_hi-1`` of every level from ``cut`` down."""
    for d in range(cut, part_seg.shape[0]):
        for pt in range(p_lo, p_hi):
            _pull(par, edge, seg_start, part_seg[d, pt], part_seg[d, pt + 1], tab, one, q0, q1,
                  p, live, live_count)


@numba.njit(cache=True)
def _backward_parts(node, child, aux, seg_start, seg_kind, seg_nc, part_seg, cut, p_lo, p_hi,
                    cprob, sigma, q0, q1, v, reg, p, live, live_count):
    """:func:`_backward` over parts ``p_lo..p_hi-1`` of every level from the deepest up to ``cut``."""
    for d in range(part_seg.shape[0] - 1, cut - 1, -1):
        for pt in range(p_lo, p_hi):
            _backward(node, child, aux, seg_start, seg_kind, seg_nc, part_seg[d, pt],
                      part_seg[d, pt + 1], cprob, sigma, q0, q1, v, reg, p, live, live_count)


@numba.njit(cache=True, parallel=True)
def run_iterations(node, child, aux, par, edge, seg_start, seg_kind, seg_nc, level_seg,
                   part_seg, cut, thread_parts, tab, one, order, split, level_order, info_offset,
                   info_actions, info_parent, info_count, parent_seq, infoset_offset,
                   infoset_num_actions, regret, cumulative, own, inst, acc, prev, q0, q1, v,
                   qn, w, live, live_count, counter, num_iterations, plus, discount, alpha, beta,
                   gamma, predictive, simultaneous):
    """Run ``num_iterations`` iterations in place; ``counter[0]`` counts them.

    The tree is given by its :class:`solvers._layout.Layout` arrays. ``tab``
    holds the current strategy (``tab[:num_actions]``, in the layout's
    internal order, updated in place), the chance probabilities and a final 1
    at index ``one``. With one thread (``thread_parts`` of length 2) the
    passes run through all the segments serially. With ``T > 1`` threads the
    levels above the layout's ``cut`` run serially and each thread then runs
    its parts (``thread_parts[t]`` to ``thread_parts[t + 1] - 1``) through
    all the levels below: one parallel region (``prange``) per forward and
    per backward pass. ``order`` lists player 0's infosets ancestors first,
    then player 1's from index ``split`` (``info_*`` in that order). ``q0``
    (and ``q1``, simultaneous updates only) hold one reach per non-terminal;
    ``v`` must hold :func:`init_values`; ``live`` (one per non-terminal) and
    ``live_count`` (one per segment) are the lists of reached histories.
    ``inst`` has ``T`` rows of one entry per action (one row for ``T = 1``
    when predictive, else it may be empty); ``own`` has one entry per action
    plus one; ``acc``, ``prev``, ``qn`` and ``w`` (one per action / action /
    node / node) are used by predictive variants only. Returns 0.
    """
    threads = thread_parts.shape[0] - 1
    num_segments = seg_kind.shape[0]
    top = level_seg[cut]
    summed = threads > 1 or predictive
    a = own.shape[0] - 1
    sigma = tab[:a]
    cprob = tab[a:one]
    for _ in range(num_iterations):
        t = counter[0] + 1
        tf = float(t)
        weight = tf ** gamma
        fpos = 1.0
        fneg = 1.0
        if discount:
            ta = tf ** alpha
            fpos = ta / (ta + 1.0)
            tb = tf ** beta
            fneg = tb / (tb + 1.0)
        players = 1 if simultaneous else 2
        for pi in range(players):
            p = 2 if simultaneous else pi
            if q0.shape[0] > 0:
                q0[0] = 1.0
            if q1.shape[0] > 0:
                q1[0] = 1.0
            if threads == 1:
                _pull(par, edge, seg_start, 0, num_segments, tab, one, q0, q1, p, live,
                      live_count)
                if summed:
                    _backward(node, child, aux, seg_start, seg_kind, seg_nc, 0, num_segments,
                              cprob, sigma, q0, q1, v, inst[0], p, live, live_count)
                else:
                    _backward(node, child, aux, seg_start, seg_kind, seg_nc, 0, num_segments,
                              cprob, sigma, q0, q1, v, regret, p, live, live_count)
            else:
                _pull(par, edge, seg_start, 0, top, tab, one, q0, q1, p, live, live_count)
                for k in prange(threads):
                    _pull_parts(par, edge, seg_start, part_seg, cut, thread_parts[k],
                                thread_parts[k + 1], tab, one, q0, q1, p, live, live_count)
                for k in prange(threads):
                    _backward_parts(node, child, aux, seg_start, seg_kind, seg_nc, part_seg,
                                    cut, thread_parts[k], thread_parts[k + 1], cprob, sigma,
                                    q0, q1, v, inst[k], p, live, live_count)
                _backward(node, child, aux, seg_start, seg_kind, seg_nc, 0, top, cprob, sigma,
                          q0, q1, v, inst[0], p, live, live_count)
            own[a] = 1.0
            lo = split if p == 1 else 0
            hi = split if p == 0 else order.shape[0]
            _infosets(lo, hi, info_offset, info_actions, info_parent, info_count, sigma,
                      cumulative, own, regret, inst, summed, weight, plus, discount, fpos, fneg,
                      predictive)
            if predictive:
                # The prediction uses the strategies just played: keep them
                # while _predict rewrites the first player's (simultaneous).
                for x in range(a):
                    prev[x] = sigma[x]
                for b in range(2):
                    if p == 1 - b:
                        continue
                    # PCFR+ needs b's reach at every history (the terminals too).
                    qn[0] = 1.0
                    _forward(node, child, aux, seg_start, seg_kind, seg_nc, 0, num_segments,
                             cprob, prev, qn, b)
                    _predict(node, child, aux, seg_start, seg_kind, seg_nc, level_seg, order,
                             level_order, infoset_offset, infoset_num_actions, parent_seq, qn,
                             v, w, acc, regret, sigma, b)
        counter[0] = t
    return 0
