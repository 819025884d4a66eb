"""The tree passes shared by the CFR kernel and the best response.

Each reads the tree through a :class:`~solvers.history.layout.LayoutArrays` named
tuple ``L`` (the non-terminals level by level, in segments of one kind and
one number of children; see :mod:`solvers.history.layout`), and writes into buffers
the caller allocated: kernels allocate nothing. Index arithmetic is unsigned
(numba then emits no negative-index wraparound) and every inner loop has the
segment's constant length.

The player argument ``p`` of a pass is 0 or 1, or
:data:`~solvers.kinds.BOTH_PLAYERS` for a simultaneous update; the owner of a
segment or of an edge is 0 or 1 (a player's decision) or
:data:`~solvers.kinds.SEG_CHANCE`.
"""

import numba
import numpy as np

from solvers.kinds import BOTH_PLAYERS, SEG_CHANCE, TERMINAL

U = np.uint64


@numba.njit(cache=True)
def normalize_average(cumulative, infoset_offset, infoset_num_actions, out):
    """Average strategy from cumulative weights (uniform where they sum to 0).

    Parameters
    ----------
    cumulative : ndarray, float64, shape (num_actions,)
    infoset_offset, infoset_num_actions : ndarray, integer, shape (num_infosets,)
        Offset and length of each information set's slice.
    out : ndarray, float64, shape (num_actions,)
        Receives the average strategy.
    """
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
def init_values(tree, v):
    """Payoffs (to player 0) at the terminals, zero elsewhere.

    Parameters
    ----------
    tree : FlatTree
    v : ndarray, float32 or float64, shape (num_nodes,)
        Out.
    """
    kind, payoff = tree.node_kind, tree.payoff
    for i in range(kind.shape[0]):
        v[i] = payoff[i] if kind[i] == TERMINAL else 0.0


@numba.njit(cache=True)
def forward(L, s_lo, s_hi, cprob, sigma, q, p):
    """Counterfactual reach of ``p`` at every history (node-indexed ``q``), pushed from parents.

    Used by the best response and by PCFR+'s prediction, which need the
    reach at the terminals too.

    Parameters
    ----------
    L : LayoutArrays
    s_lo, s_hi : int
        Segments ``s_lo..s_hi-1``.
    cprob : ndarray, float64, shape (chance_edges,)
    sigma : ndarray, float64, shape (num_actions,)
        Strategy in the layout's internal order.
    q : ndarray, float64, shape (num_nodes,)
        ``q[0]`` set by the caller (1); the rest is written.
    p : int
        0 or 1: whose probabilities are left out.
    """
    node, child, aux = L.node, L.child, L.aux
    seg_start, seg_kind, seg_nc = L.seg_start, L.seg_kind, L.seg_nc
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
            elif kd == SEG_CHANCE:
                x = U(aux[j])
                for k in range(nc):
                    q[c + k] = a0 * cprob[x + k]
            else:
                o = U(aux[j])
                for k in range(nc):
                    q[c + k] = a0 * sigma[o + k]


@numba.njit(cache=True)
def pull(L, s_lo, s_hi, tab, q0, q1, p, live, live_count):
    """Counterfactual reach of the non-terminals of segments ``s_lo..s_hi-1`` (slot-indexed).

    Each non-terminal ``j`` takes its parent's reach ``q0[par[j]]`` times the
    probability of the edge into it: ``edge[j] = (x << 2) | owner`` with
    ``tab[x]`` the strategy or chance probability and ``owner`` the parent's
    (0, 1 or ``SEG_CHANCE``), so that the edges of the player whose reach is
    left out read the 1 at ``L.one``; branch-free. Only non-terminals get a
    reach (terminals need none), stored by slot, in the order the passes
    visit it. The members with a nonzero reach are listed at the start of
    their segment's range of ``live`` and counted in ``live_count``, for
    :func:`backward`.

    Parameters
    ----------
    L : LayoutArrays
    s_lo, s_hi : int
    tab : ndarray, float64, shape (L.one + 1,)
        The strategy (internal order), the chance probabilities, a 1.
    q0, q1 : ndarray, float32 or float64, shape (num_nonterminals,)
        ``p`` 0 or 1: ``q0`` is ``p``'s counterfactual reach (``q1`` unused).
        ``p == BOTH_PLAYERS``: ``q0`` for player 0, ``q1`` for player 1.
        ``[0]`` (the root) set by the caller.
    p : int
    live : ndarray, index dtype, shape (num_nonterminals,)
    live_count : ndarray, int64, shape (num_segments,)
    """
    par, edge, seg_start = L.par, L.edge, L.seg_start
    ones = U(L.one)
    three = U(3)
    two = U(2)
    inc = U(1)
    zero = U(0)
    for s in range(s_lo, s_hi):
        j0 = U(seg_start[s])
        j1 = U(seg_start[s + 1])
        n_live = zero
        if p == BOTH_PLAYERS:
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
def expect(prob, o, v, c, nc):
    """``sum(prob[o + k] * v[c + k] for k < nc)``, in OpenSpiel's order: a node's value."""
    val = 0.0
    for k in range(nc):
        val += prob[o + k] * v[c + k]
    return val


@numba.njit(cache=True)
def backward(L, s_lo, s_hi, cprob, sigma, q0, q1, v, reg, p, live, live_count):
    """Values (player 0's) of the non-terminals of segments ``s_hi-1..s_lo`` and regret terms.

    Only the members :func:`pull` listed as reached are visited: histories
    with zero counterfactual reach (for every player updated) have zero
    regret terms and their parents weight their values by a zero
    probability, so they are passed over without a branch per history.

    Parameters
    ----------
    L : LayoutArrays
    s_lo, s_hi : int
    cprob : ndarray, float64, shape (chance_edges,)
    sigma : ndarray, float64, shape (num_actions,)
        Strategy, internal order.
    q0, q1 : ndarray, float32 or float64, shape (num_nonterminals,)
        Slot-indexed reach from :func:`pull`.
    v : ndarray, float32 or float64, shape (num_nodes,)
        Node-indexed values; payoffs at the terminals (never written).
    reg : ndarray, float64, shape (num_actions,)
        Regret terms are added here (internal order).
    p : int
        As in :func:`pull`.
    live, live_count : ndarray
        From :func:`pull`.
    """
    node, child, aux = L.node, L.child, L.aux
    seg_start, seg_kind, seg_nc = L.seg_start, L.seg_kind, L.seg_nc
    sign = -1.0 if p == 1 else 1.0
    for s in range(s_hi - 1, s_lo - 1, -1):
        kd = seg_kind[s]
        nc = U(seg_nc[s])
        j0 = U(seg_start[s])
        count = U(live_count[s])
        if kd == SEG_CHANCE:
            for r in range(count):
                j = U(live[j0 + r])
                v[U(node[j])] = expect(cprob, U(aux[j]), v, U(child[j]), nc)
        elif p == BOTH_PLAYERS:
            for r in range(count):
                j = U(live[j0 + r])
                c = U(child[j])
                o = U(aux[j])
                val = expect(sigma, o, v, c, nc)
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
                val = expect(sigma, o, v, c, nc)
                v[U(node[j])] = val
                for k in range(nc):
                    reg[o + k] += a0 * (sign * (v[c + k] - val))
        else:
            for r in range(count):
                j = U(live[j0 + r])
                v[U(node[j])] = expect(sigma, U(aux[j]), v, U(child[j]), nc)


@numba.njit(cache=True)
def pull_parts(L, p_lo, p_hi, tab, q0, q1, p, live, live_count):
    """:func:`pull` over parts ``p_lo..p_hi-1`` of every level from ``L.cut`` down.

    ``p_lo``, ``p_hi`` (int): a thread's parts (:meth:`solvers.history.layout.Layout.parts`); the other
    arguments as for :func:`pull`.
    """
    part_seg = L.part_seg
    for d in range(L.cut, part_seg.shape[0]):
        for pt in range(p_lo, p_hi):
            pull(L, part_seg[d, pt], part_seg[d, pt + 1], tab, q0, q1, p, live, live_count)


@numba.njit(cache=True)
def backward_parts(L, p_lo, p_hi, cprob, sigma, q0, q1, v, reg, p, live, live_count):
    """:func:`backward` over parts ``p_lo..p_hi-1`` of every level from the deepest up to ``L.cut``.

    ``p_lo``, ``p_hi`` (int): a thread's parts; ``reg`` (float64, ``num_actions``): that thread's
    row of regret terms; the other arguments as for :func:`backward`.
    """
    part_seg = L.part_seg
    for d in range(part_seg.shape[0] - 1, L.cut - 1, -1):
        for pt in range(p_lo, p_hi):
            backward(L, part_seg[d, pt], part_seg[d, pt + 1], cprob, sigma, q0, q1, v, reg, p,
                     live, live_count)
