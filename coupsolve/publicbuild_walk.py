"""The compiled walk of Coup's public tree (driven by :mod:`coupsolve.publicbuild`).

Depth first over *public* nodes with an explicit stack of frames (:mod:`coupsolve.publicbuild_node`
has the layout). Visiting a node groups its histories into entries, classifies it, settles its chance
weights and, unless it is a terminal, *expands* it: every history is stepped by every legal action or
chance outcome (:func:`coupsolve.engine.apply`), and the resulting histories are grouped by the public
tokens of the step (what a non-player sees of each event row: ``ev[i, 1]`` when ``owner < 0``, else
``ev[i, 2]``), one child per distinct public outcome, in order of first appearance. The children are
then visited one by one. Public nodes are numbered in level order as :mod:`coupsolve.builder` numbers
histories: a node's children take the next free block of the next level when it is visited, and since
a depth-first walk visits the nodes of a level in index order, so are the entries of a level written.

:func:`run` stops after ``budget`` visits (the caller polls for Ctrl-C and reports progress between
chunks) or when a pool is too small (the caller grows it); both resume where they stopped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers import CHANCE, DECISION, TERMINAL

from . import engine as E
from .builder import HASH_MUL, HASH_SEED, _absorb, _mix
from .publicbuild_node import (DONE, ERR_EVENTS, ERR_SILENT, ERR_SPLIT, F_ANCHOR, F_BASE, F_CHILD0, F_CPLO,
                               F_ELO, F_EN0, F_EN1, F_KIND, F_M, F_MTOP, F_NCH, F_NODE, F_NSTOP, F_NXT,
                               F_OHI, F_OLO, F_PHASE, F_PLAYER, G_ACTIONS, G_DECHIST, G_DEPTH,
                               G_ENTRIES, G_HISTORIES, G_INFOSETS, G_MAXC, G_MAXH, G_NEED, G_NODES,
                               G_STAMP, MORE, NEED_CHILD, NEED_HIST, NEED_TABLE, PHASE_ENTER,
                               PHASE_ITER, TOK_WIDTH, _classify, _entries, _lists, _terminal, _tmask,
                               _tslot,
                               _weights)

_SPLIT_SALT = np.uint64(0x5851F42D4C957F2D)  # player 1's keys in the split check's table


@njit(cache=True, inline="always")
def _child_of(W, cplo, nch, ev, ne, lastc, j):
    """The group (index from ``cplo`` in the child table) whose public tokens are those of the event
    rows ``ev[:ne]``, made as group ``nch`` when new; -1 when the child table is full. ``lastc[j]``: a
    guess (the group action ``j`` last led to)."""
    hsh = HASH_SEED[0]
    for i in range(ne):
        hsh = _mix(hsh, ev[i, 1] if ev[i, 0] < 0 else ev[i, 2], HASH_MUL[0])
    guess = lastc[j]
    for t in range(-1, nch):
        c = guess if t < 0 else t
        if c < 0 or c >= nch:
            continue
        r = cplo + c
        if W.c_hash[r] != hsh or W.c_ntok[r] != ne:
            continue
        same = True
        for i in range(ne):
            if W.c_tok[r, i] != (ev[i, 1] if ev[i, 0] < 0 else ev[i, 2]):
                same = False
                break
        if same:
            lastc[j] = c
            return c
    r = cplo + nch
    if r >= W.c_cnt.shape[0]:
        return -1
    W.c_hash[r], W.c_ntok[r] = hsh, ne
    for i in range(ne):
        W.c_tok[r, i] = ev[i, 1] if ev[i, 0] < 0 else ev[i, 2]
    lastc[j] = nch
    return nch


@njit(cache=True)
def _step_all(P, W, G, d, sc):
    """Step every history of the node at depth ``d`` that stops there by every action or outcome, and
    carry every history in transit on, into the pool from ``F_BASE``: state, hashes with the whole
    step absorbed, the step's event rows (``h_pend``), its parent slot (``h_src``), its group by
    public tokens (``h_kid``). ``sc``: the scratch
    tuple ``(ev, buf, pbuf, obuf, opbuf, lastc)``. Returns the number of groups, or minus a status
    (``NEED_HIST``, ``NEED_CHILD``, ``ERR_EVENTS``, ``ERR_SILENT``)."""
    ev, buf, pbuf, obuf, opbuf, lastc = sc
    F = W.frame
    base, cplo, olo, ohi = F[d, F_BASE], F[d, F_CPLO], F[d, F_OLO], F[d, F_OHI]
    chance = F[d, F_KIND] == CHANCE
    p = F[d, F_PLAYER]
    off = F[d, F_ELO] + (F[d, F_EN0] if p == 1 else 0)
    m = 0
    nch = 0
    for i in range(olo, ohi):
        s = W.order[i]
        transit = W.h_np[s] > 0
        if transit:
            k, a0 = 1, 0
        elif chance:
            k, a0 = E.chance_outcomes(P, W.h_st[s], obuf, opbuf), 0
        else:
            g = off + W.h_ent[s, p]
            k, a0 = W.e_nact[g], W.e_alo[g]
        if base + m + k > W.h_st.shape[0]:
            G[G_NEED] = base + m + (ohi - i) * k
            return -NEED_HIST
        for j in range(k):
            c = base + m
            for q in range(W.h_st.shape[1]):  # a loop: as a slice copy the walk took 15% longer
                W.h_st[c, q] = W.h_st[s, q]
            for q in range(2):
                W.h_h[c, q, 0], W.h_h[c, q, 1] = W.h_h[s, q, 0], W.h_h[s, q, 1]
            W.h_par[c, 0], W.h_par[c, 1] = W.h_ent[s, 0], W.h_ent[s, 1]
            if transit:
                ne = W.h_np[s]
                for r in range(ne):
                    W.h_pend[c, r, 0], W.h_pend[c, r, 1] = W.h_pend[s, r, 0], W.h_pend[s, r, 1]
                    W.h_pend[c, r, 2] = W.h_pend[s, r, 2]
                W.h_prob[c], W.h_slot[c] = W.h_prob[s], -1
            else:
                ne = E.apply(P, W.h_st[c], obuf[j] if chance else W.acts[a0 + j], ev, 0, buf, pbuf)
                if ne > TOK_WIDTH:
                    return -ERR_EVENTS
                if ne == 0:
                    return -ERR_SILENT
                for r in range(ne):
                    W.h_pend[c, r, 0], W.h_pend[c, r, 1], W.h_pend[c, r, 2] = ev[r, 0], ev[r, 1], ev[r, 2]
                W.h_prob[c] = W.h_prob[s] * opbuf[j] if chance else W.h_prob[s]
                W.h_slot[c] = -1 if chance else j
            W.h_np[c], W.h_src[c] = ne, s
            _absorb(W.h_h, c, c, W.h_pend[c], ne)
            kid = _child_of(W, cplo, nch, W.h_pend[c], ne, lastc, j)
            if kid < 0:
                G[G_NEED] = cplo + 2 * nch + 1
                return -NEED_CHILD
            nch = max(nch, kid + 1)
            W.h_kid[c] = kid
            m += 1
    F[d, F_M] = m
    return nch


@njit(cache=True)
def _merge_prefixes(W, cplo, nch):
    """Send each group whose public tokens extend those of another group (the shortest such) into that
    group (``c_tgt``), and number the groups left, in order, as the children (``c_new``); return how
    many children there are."""
    for g in range(nch):
        r = cplo + g
        W.c_tgt[r] = g
        best = W.c_ntok[r]
        for g2 in range(nch):
            r2 = cplo + g2
            n2 = W.c_ntok[r2]
            if n2 >= best:
                continue
            prefix = True
            for i in range(n2):
                if W.c_tok[r2, i] != W.c_tok[r, i]:
                    prefix = False
                    break
            if prefix:
                W.c_tgt[r], best = g2, n2
    kids = 0
    for g in range(nch):
        if W.c_tgt[cplo + g] == g:
            W.c_new[cplo + g] = kids
            kids += 1
    return kids


@njit(cache=True)
def _expand(P, W, G, d, sc):
    """Expand the node at depth ``d``: step (:func:`_step_all`), merge groups into their prefixes (a
    merged history's hashes absorb only the events up to its child; the rest stays pending: it is in
    transit), and sort ``order`` by child (``F_NCH`` children). Returns a status code."""
    F = W.frame
    nch = _step_all(P, W, G, d, sc)
    if nch < 0:
        return -nch
    base, cplo, m = F[d, F_BASE], F[d, F_CPLO], F[d, F_M]
    kids = _merge_prefixes(W, cplo, nch)
    W.c_cnt[cplo:cplo + kids] = 0
    for c in range(base, base + m):
        t = W.c_tgt[cplo + W.h_kid[c]]
        if t != W.h_kid[c]:  # in transit: only the events up to the child are absorbed
            n = W.c_ntok[cplo + t]
            s = W.h_src[c]
            for q in range(2):
                W.h_h[c, q, 0], W.h_h[c, q, 1] = W.h_h[s, q, 0], W.h_h[s, q, 1]
            _absorb(W.h_h, c, c, W.h_pend[c], n)
            rest = W.h_np[c] - n
            for i in range(rest):
                W.h_pend[c, i, :] = W.h_pend[c, i + n, :]
            W.h_np[c] = rest
        else:
            W.h_np[c] = 0
        k = W.c_new[cplo + t]
        W.h_kid[c] = k
        W.c_cnt[cplo + k] += 1
    tot = 0
    for c in range(kids):
        W.c_start[cplo + c] = tot
        tot += W.c_cnt[cplo + c]
    for c in range(base, base + m):  # counting sort; c_start ends as each child's end
        r = cplo + W.h_kid[c]
        W.order[base + W.c_start[r]] = c
        W.c_start[r] += 1
    F[d, F_NCH], F[d, F_NXT] = kids, 0
    G[G_MAXH] = max(G[G_MAXH], base + m)
    G[G_MAXC] = max(G[G_MAXC], cplo + nch)
    return DONE


@njit(cache=True)
def _split_check(W, G, d):
    """``ERR_SPLIT`` when one player's token sequence (an information set) reaches two children of the
    node at depth ``d`` (the public tree would split it), ``NEED_TABLE`` when the table is too small."""
    F = W.frame
    base, m = F[d, F_BASE], F[d, F_M]
    if F[d, F_NCH] < 2:
        return DONE
    mask = _tmask(W, G, 2 * m)
    if mask < 0:
        return NEED_TABLE
    G[G_STAMP] += 1
    stamp = G[G_STAMP]
    for c in range(base, base + m):
        for p in range(2):
            key = W.h_h[c, p, 0] ^ (_SPLIT_SALT if p == 1 else np.uint64(0))
            t = _tslot(W, stamp, key, mask)
            if W.t_stamp[t] != stamp:
                W.t_stamp[t], W.t_key[t], W.t_val[t] = stamp, key, W.h_kid[c]
            elif W.t_val[t] != W.h_kid[c]:
                return ERR_SPLIT
    return DONE


@njit(cache=True)
def _commit(W, O, G, d, fill):
    """Count the node at depth ``d`` and, with ``fill``, write it, its entries and its information sets."""
    F = W.frame
    n0, n1, elo = F[d, F_EN0], F[d, F_EN1], F[d, F_ELO]
    kind, p = F[d, F_KIND], F[d, F_PLAYER]
    n = F[d, F_NSTOP]
    W.lvl_nodes[d] += 1
    W.lvl_ent[d] += n0 + n1
    G[G_NODES] += 1
    G[G_ENTRIES] += n0 + n1
    G[G_HISTORIES] += n
    nch = F[d, F_NCH] if kind != TERMINAL else 0
    if fill:
        v = F[d, F_NODE]
        O.node_kind[v], O.node_player[v], O.num_entries0[v] = kind, p, n0
        eo = W.free_ent[d]
        O.entry_start[v] = eo
        for e in range(n0 + n1):
            O.entry_parent[eo + e] = W.e_par[elo + e]
            O.entry_slot[eo + e] = W.e_slot[elo + e]
            O.entry_row[eo + e] = W.e_row[elo + e]
            O.entry_infoset[eo + e] = -1
        O.child_start[v] = W.free_node[d + 1]
        O.num_children[v] = nch
        if kind != TERMINAL:
            O.term_matrix[v], O.term_scale[v] = -1, 0.0
    W.free_ent[d] += n0 + n1
    F[d, F_CHILD0] = W.free_node[d + 1]
    W.free_node[d + 1] += nch
    if kind == DECISION:
        G[G_DECHIST] += n
        off = n0 if p == 1 else 0
        for e in range(n1 if p == 1 else n0):
            g = elo + off + e
            if W.e_nact[g] == 0:  # histories in transit: no information set
                continue
            if fill:
                _write_infoset(W, O, G, g, W.free_ent[d] - n0 - n1 + off + e, p, F[d, F_NODE])
            G[G_INFOSETS] += 1
            G[G_ACTIONS] += W.e_nact[g]


@njit(cache=True)
def _write_infoset(W, O, G, g, ge, p, v):
    """Write information set ``G[G_INFOSETS]``: entry ``g`` of the pool (global entry ``ge``) of player
    ``p`` at public node ``v``."""
    i, a = G[G_INFOSETS], G[G_ACTIONS]
    k, a0 = W.e_nact[g], W.e_alo[g]
    O.entry_infoset[ge] = i
    O.infoset_player[i], O.infoset_num_actions[i], O.infoset_offset[i] = p, k, a
    O.infoset_actions[a:a + k] = W.acts[a0:a0 + k]
    O.infoset_count[i], O.infoset_node[i] = W.e_count[g], v
    O.infoset_hash[i] = W.e_h1[g]
    O.infoset_context[i] = E.node_context(W.h_st[W.e_first[g]])


@njit(cache=True)
def _visit(P, W, O, G, d, fill, sc, ret, payoff):
    """Visit the node at depth ``d``: every step of :mod:`coupsolve.publicbuild_node`, the expansion,
    then the commit (only once every pool was large enough). Returns a status code."""
    st = _classify(W, d)
    if st == DONE:
        st = _entries(W, G, d)
    if st == DONE:
        st = _weights(W, G, d, payoff[:0])
    if st != DONE:
        return st
    kind = W.frame[d, F_KIND]
    if kind == TERMINAL:
        st = _terminal(P, W, O, G, d, fill, ret, payoff)
    else:
        if kind == DECISION:
            st = _lists(P, W, G, d, sc[1])
        if st == DONE:
            st = _expand(P, W, G, d, sc)
        if st == DONE:
            st = _split_check(W, G, d)
    if st == DONE:
        _commit(W, O, G, d, fill)
        W.frame[d, F_PHASE] = PHASE_ITER
    return st


@njit(cache=True)
def _push(W, d):
    """Make the next child of the node at depth ``d`` the frame at depth ``d + 1``."""
    F = W.frame
    c = F[d, F_NXT]
    F[d, F_NXT] = c + 1
    r = F[d, F_CPLO] + c
    end = F[d, F_BASE] + W.c_start[r]
    F[d + 1, F_OLO], F[d + 1, F_OHI] = end - W.c_cnt[r], end
    F[d + 1, F_BASE] = F[d, F_BASE] + F[d, F_M]
    F[d + 1, F_CPLO] = F[d, F_CPLO] + F[d, F_NCH]
    F[d + 1, F_ELO] = F[d, F_ELO] + F[d, F_EN0] + F[d, F_EN1]
    F[d + 1, F_NODE] = F[d, F_CHILD0] + c
    F[d + 1, F_PHASE] = PHASE_ENTER


@njit(cache=True)
def run(P, W, O, G, fill, budget):
    """Walk on from the stack in ``W`` and ``G`` for at most ``budget`` node visits.

    Parameters
    ----------
    P : int32[P_SIZE]
    W : publicbuild_node.Work
    O : publicbuild.PublicOut
        The output arrays (written with ``fill``; empty otherwise).
    G : int64[NG]
        The global counters (``G_*``).
    fill : bool
    budget : int

    Returns
    -------
    int
        ``DONE`` (the walk is over), ``MORE`` (the budget is spent), a ``NEED_*`` code (grow a pool to
        ``G[G_NEED]`` and call again) or an ``ERR_*`` code (``G[G_DEPTH]`` is the depth of the node).
    """
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    sc = (ev, np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64),
          np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64),
          np.full(E.MAX_MOVES, -1, np.int64))
    ret = np.zeros(E.MAXP, dtype=np.float64)
    payoff = np.empty(W.h_prob.shape[0], dtype=np.float64)
    F = W.frame
    visits = 0
    while G[G_DEPTH] >= 0:
        d = G[G_DEPTH]
        if F[d, F_PHASE] == PHASE_ENTER:
            if visits >= budget:
                return MORE
            st = _visit(P, W, O, G, d, fill, sc, ret, payoff)
            if st != DONE:
                return st
            visits += 1
        elif F[d, F_KIND] != TERMINAL and F[d, F_NXT] < F[d, F_NCH]:
            _push(W, d)
            G[G_DEPTH] = d + 1
        else:
            G[G_DEPTH] = d - 1
    return DONE


@njit(cache=True)
def init(P, W, G):
    """Put the root (the engine's initial state, after its forced steps) on an empty stack."""
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    for p in range(2):
        W.h_h[0, p, 0] = HASH_SEED[0] + np.uint64(p)
        W.h_h[0, p, 1] = HASH_SEED[1] + np.uint64(p)
    ne = E.initial_state(P, W.h_st[0], ev, np.zeros(E.MAX_MOVES, np.int32),
                         np.zeros(E.MAX_MOVES, np.float64))
    _absorb(W.h_h, 0, 0, ev, ne)
    W.h_prob[0] = 1.0
    W.h_par[0, 0], W.h_par[0, 1], W.h_slot[0], W.h_np[0] = -1, -1, -1, 0
    W.order[0] = 0
    F = W.frame
    F[0, F_OLO], F[0, F_OHI], F[0, F_BASE], F[0, F_CPLO], F[0, F_ELO] = 0, 1, 1, 0, 0
    F[0, F_NODE], F[0, F_PHASE], F[0, F_ANCHOR], F[0, F_MTOP] = 0, PHASE_ENTER, 0, 0
    G[G_DEPTH] = 0


@njit(cache=True)
def replay(P, paths, by_index, out):
    """Both players' two token hashes after each action sequence (as :func:`coupsolve.builder._walk`
    keys information sets).

    Parameters
    ----------
    P : int32[P_SIZE]
    paths : int32[n, L]
        Action or chance outcome ids (or, with ``by_index``, positions in the node's legal action or
        chance outcome list), each row padded with -1.
    by_index : bool
    out : uint64[n, 2, 2]
        Receives ``out[i, p, k]``: hash ``k`` of player ``p``'s token sequence after row ``i``.

    Returns
    -------
    int
        -1, or the first row holding an action that is not legal where it is played.
    """
    s = np.zeros(E.S_SIZE, np.int32)
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    buf, pbuf = np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64)
    moves, mprob = np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64)
    h = np.zeros((1, 2, 2), np.uint64)
    for r in range(paths.shape[0]):
        for p in range(2):
            h[0, p, 0] = HASH_SEED[0] + np.uint64(p)
            h[0, p, 1] = HASH_SEED[1] + np.uint64(p)
        _absorb(h, 0, 0, ev, E.initial_state(P, s, ev, buf, pbuf))
        for t in range(paths.shape[1]):
            a = paths[r, t]
            if a < 0:
                break
            if E.is_chance(s):
                k = E.chance_outcomes(P, s, moves, mprob)
            else:
                k = E.legal_actions(P, s, moves)
            if by_index:
                if a >= k:
                    return r
                a = moves[a]
            elif not np.any(moves[:k] == a):
                return r
            _absorb(h, 0, 0, ev, E.apply(P, s, a, ev, 0, buf, pbuf))
        for p in range(2):
            out[r, p, 0], out[r, p, 1] = h[0, p, 0], h[0, p, 1]
    return -1
