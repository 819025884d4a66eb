"""Counterfactual regret minimisation over a flat :class:`~solvers.tree.GameTree`.

Zinkevich, Johanson, Bowling and Piccione (2007), "Regret Minimization in
Games with Incomplete Information", NeurIPS 20. The variants (CFR+, LCFR,
DCFR, PCFR+) are parameters of the same pass; see :mod:`solvers.algorithms`.

One iteration ``t`` performs, for player ``p = 0`` then ``p = 1``:

1. a forward pass over the nodes in index (= level) order computing the reach
   probability of each player under the current strategy;
2. a backward pass in reverse order computing node values for ``p`` and, at
   ``p``'s decision nodes, adding ``cf_reach * (child value - node value)`` to
   the regrets and ``t**gamma * own_reach * strategy`` to the average-strategy
   weights;
3. for each of ``p``'s information sets: the regret update of the variant and
   regret matching into the current strategy (for PCFR+, a further reverse
   sweep computes the predicted counterfactual values and the predictive
   regret-matching+ strategy, see :func:`_predict`).

The arithmetic follows OpenSpiel's ``open_spiel/python/algorithms/cfr.py``
operation for operation (same products, same summation order, the same skip
of decision nodes neither player reaches, uniform strategy when no regret is
positive) so that CFR and CFR+ reproduce ``CFRSolver``/``CFRPlusSolver``.
Kernels take arrays and scalars only and allocate nothing.
"""

import numba


@numba.njit(cache=True)
def chance_reach(kind, child_start, num_children, chance_prob, out):
    """Product of chance probabilities from the root to each node."""
    out[0] = 1.0
    for i in range(kind.shape[0]):
        k = kind[i]
        if k == 2:
            continue
        c0 = child_start[i]
        r = out[i]
        for c in range(c0, c0 + num_children[i]):
            out[c] = r * chance_prob[c] if k == 1 else r


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
def _forward(kind, player, infoset, child_start, num_children, infoset_offset, sigma, r0, r1):
    r0[0] = 1.0
    r1[0] = 1.0
    for i in range(kind.shape[0]):
        k = kind[i]
        if k == 2:
            continue
        c0 = child_start[i]
        nc = num_children[i]
        a0 = r0[i]
        a1 = r1[i]
        if k == 0:
            o = infoset_offset[infoset[i]]
            if player[i] == 0:
                for a in range(nc):
                    r0[c0 + a] = a0 * sigma[o + a]
                    r1[c0 + a] = a1
            else:
                for a in range(nc):
                    r0[c0 + a] = a0
                    r1[c0 + a] = a1 * sigma[o + a]
        else:
            for c in range(c0, c0 + nc):
                r0[c] = a0
                r1[c] = a1


@numba.njit(cache=True)
def _backward(kind, player, infoset, child_start, num_children, chance_prob, payoff,
              infoset_offset, sigma, r0, r1, rc, v, p, weight, regret, cumulative):
    sign = 1.0 if p == 0 else -1.0
    for i in range(kind.shape[0] - 1, -1, -1):
        k = kind[i]
        if k == 2:
            v[i] = sign * payoff[i]
            continue
        c0 = child_start[i]
        nc = num_children[i]
        if k == 1:
            val = 0.0
            for c in range(c0, c0 + nc):
                val += chance_prob[c] * v[c]
            v[i] = val
            continue
        if r0[i] == 0.0 and r1[i] == 0.0:
            v[i] = 0.0
            continue
        o = infoset_offset[infoset[i]]
        val = 0.0
        for a in range(nc):
            val += sigma[o + a] * v[c0 + a]
        v[i] = val
        if player[i] != p:
            continue
        if p == 0:
            cf = r1[i] * rc[i]
            own = r0[i]
        else:
            cf = r0[i] * rc[i]
            own = r1[i]
        if cf != 0.0:
            for a in range(nc):
                regret[o + a] += cf * (v[c0 + a] - val)
        if own != 0.0:
            w = weight * own
            for a in range(nc):
                cumulative[o + a] += w * sigma[o + a]


@numba.njit(cache=True)
def _update_infosets(infoset_player, infoset_offset, infoset_num_actions, p, regret, inst,
                     sigma, plus, discount, fpos, fneg, predictive):
    for s in range(infoset_player.shape[0]):
        if infoset_player[s] != p:
            continue
        o = infoset_offset[s]
        m = infoset_num_actions[s]
        if predictive:
            for a in range(m):
                x = regret[o + a] + inst[o + a]
                regret[o + a] = x if x > 0.0 else 0.0
            continue  # the strategy comes from _predict
        if plus:
            for a in range(m):
                if regret[o + a] < 0.0:
                    regret[o + a] = 0.0
        if discount:
            for a in range(m):
                if regret[o + a] >= 0.0:
                    regret[o + a] *= fpos
                else:
                    regret[o + a] *= fneg
        total = 0.0
        for a in range(m):
            if regret[o + a] > 0.0:
                total += regret[o + a]
        if total > 0.0:
            for a in range(m):
                x = regret[o + a]
                sigma[o + a] = (x if x > 0.0 else 0.0) / total
        else:
            for a in range(m):
                sigma[o + a] = 1.0 / m


@numba.njit(cache=True)
def infoset_parents(kind, player, infoset, child_start, num_children, infoset_offset, seq,
                    first, parent_seq):
    """Per infoset: its first (lowest-index) node and the owner's previous
    (flat) action, -1 if none. ``seq`` is int64 scratch, one per node."""
    for s in range(first.shape[0]):
        first[s] = -1
    for p in range(2):
        seq[0] = -1
        for i in range(kind.shape[0]):
            k = kind[i]
            if k == 2:
                continue
            c0 = child_start[i]
            nc = num_children[i]
            if k == 0 and player[i] == p:
                s = infoset[i]
                if first[s] < 0:
                    first[s] = i
                    parent_seq[s] = seq[i]
                o = infoset_offset[s]
                for a in range(nc):
                    seq[c0 + a] = o + a
            else:
                for c in range(c0, c0 + nc):
                    seq[c] = seq[i]


@numba.njit(cache=True)
def _predict(kind, player, infoset, child_start, num_children, payoff, infoset_offset,
             infoset_num_actions, first, parent_seq, r0, r1, rc, w, acc, regret, sigma, p):
    """Predictive regret matching+ step of PCFR+ for player ``p``.

    The prediction of the next counterfactual values is the loss just
    observed (same opponent strategy and chance), evaluated with ``p``'s new
    strategies below each information set, computed bottom up in sequence
    form: ``w`` holds the opponent-and-chance-weighted value of each node's
    subtree down to ``p``'s next decisions, ``acc`` the predicted
    counterfactual value of each action. An infoset is finalised at its first
    node (reverse order), after all its nodes and all later infosets below.
    """
    sign = 1.0 if p == 0 else -1.0
    for j in range(acc.shape[0]):
        acc[j] = 0.0
    for i in range(kind.shape[0] - 1, -1, -1):
        k = kind[i]
        if k == 2:
            q = (r1[i] if p == 0 else r0[i]) * rc[i]
            w[i] = q * (sign * payoff[i])
            continue
        c0 = child_start[i]
        nc = num_children[i]
        if k == 1 or player[i] != p:
            total = 0.0
            for c in range(c0, c0 + nc):
                total += w[c]
            w[i] = total
            continue
        s = infoset[i]
        o = infoset_offset[s]
        for a in range(nc):
            acc[o + a] += w[c0 + a]
        w[i] = 0.0
        if first[s] != i:
            continue
        m = infoset_num_actions[s]
        baseline = 0.0
        for a in range(m):
            baseline += sigma[o + a] * acc[o + a]
        total = 0.0
        for a in range(m):
            x = regret[o + a] + acc[o + a] - baseline
            if x > 0.0:
                total += x
        value = 0.0
        for a in range(m):
            if total > 0.0:
                x = regret[o + a] + acc[o + a] - baseline
                sigma[o + a] = (x if x > 0.0 else 0.0) / total
            else:
                sigma[o + a] = 1.0 / m
            value += sigma[o + a] * acc[o + a]
        if parent_seq[s] >= 0:
            acc[parent_seq[s]] += value


@numba.njit(cache=True)
def run_iterations(kind, player, infoset, child_start, num_children, chance_prob, payoff,
                   infoset_player, infoset_offset, infoset_num_actions,
                   regret, cumulative, sigma, inst, first, parent_seq, acc,
                   r0, r1, rc, v, counter, num_iterations,
                   plus, discount, alpha, beta, gamma, predictive):
    """Run ``num_iterations`` iterations in place; ``counter[0]`` counts them.

    ``rc`` must hold :func:`chance_reach`. For predictive variants ``inst``
    and ``acc`` have one entry per action (scratch: instantaneous regret,
    predicted counterfactual values) and ``first``/``parent_seq`` hold
    :func:`infoset_parents`; otherwise these four may be empty. Returns 0.
    """
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
        for p in range(2):
            _forward(kind, player, infoset, child_start, num_children, infoset_offset, sigma, r0, r1)
            if predictive:
                for j in range(inst.shape[0]):
                    inst[j] = 0.0
                _backward(kind, player, infoset, child_start, num_children, chance_prob, payoff,
                          infoset_offset, sigma, r0, r1, rc, v, p, weight, inst, cumulative)
            else:
                _backward(kind, player, infoset, child_start, num_children, chance_prob, payoff,
                          infoset_offset, sigma, r0, r1, rc, v, p, weight, regret, cumulative)
            _update_infosets(infoset_player, infoset_offset, infoset_num_actions, p, regret, inst,
                             sigma, plus, discount, fpos, fneg, predictive)
            if predictive:
                _predict(kind, player, infoset, child_start, num_children, payoff, infoset_offset,
                         infoset_num_actions, first, parent_seq, r0, r1, rc, v, acc, regret,
                         sigma, p)
        counter[0] = t
    return 0
