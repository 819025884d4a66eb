"""The expansion of a public node in the walk of :mod:`coupsolve.trees.stepwalk.walk`.

Every history of the node that stops there is stepped by every legal action or chance outcome
(:func:`coupsolve.engine.apply`, on a scratch copy of its state), every history in transit is carried
on, and the results are grouped by the public tokens of the step (what a non-player sees of each event
row: ``ev[i, 1]`` when ``owner < 0``, else ``ev[i, 2]``), in order of first appearance. A group whose
tokens extend another group's is merged into it: its histories are *in transit* there (a forced step
inside ``apply`` made one step of theirs cover what is two steps of others'), with the rest of their
events pending. The groups left are the node's children, and the node's slots are sorted by child.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers import CHANCE

from coupsolve import engine as E
from coupsolve.engine.hashing import HASH_MUL, HASH_SEED, mix, absorb
from coupsolve.trees.stepwalk.node import (DONE, ERR_EVENTS, ERR_SILENT, ERR_SPLIT, F_BASE, F_CPLO, F_ELO,
                               F_EN0, F_KIND, F_M, F_NCH, F_NXT, F_OHI, F_OLO, F_PLAYER, F_RTOP,
                               F_SLO, G_MAXC, G_MAXH, G_NEED, G_ROWS0, G_STAMP, NEED_CHILD, NEED_HIST,
                               NEED_ROWS, NEED_TABLE, TOK_WIDTH, _tmask, _tslot)

_SPLIT_SALT = np.uint64(0x5851F42D4C957F2D)  # player 1's keys in the split check's table


@njit(cache=True, inline="always")
def _child_of(W, cplo, nch, ev, ne, lastc, j):
    """The group (index from ``cplo`` in the child table) whose public tokens are those of the event
    rows ``ev[:ne]``, made as group ``nch`` when new; -1 when the child table is full. ``lastc[j]``: a
    guess (the group action ``j`` last led to)."""
    hsh = HASH_SEED[0]
    for i in range(ne):
        hsh = mix(hsh, ev[i, 1] if ev[i, 0] < 0 else ev[i, 2], HASH_MUL[0])
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
    """Step every history of the node at depth ``d`` that stops there by every action or outcome (on a
    scratch copy of its state), and carry every history in transit on, into the slots from ``F_BASE``:
    hashes with the whole step absorbed, parent state (``h_src``), action (``h_act``), the number of
    events (``h_np``; the rows' offset ``h_poff`` when carried), the group by public tokens
    (``h_kid``). ``sc``: the scratch tuple ``(ev, buf, pbuf, obuf, opbuf, lastc, state)``. Returns the
    number of groups, or minus a status (``NEED_HIST``, ``NEED_CHILD``, ``ERR_EVENTS``,
    ``ERR_SILENT``)."""
    ev, buf, pbuf, obuf, opbuf, lastc, tmp = sc
    F = W.frame
    base, cplo, olo, ohi, slo = F[d, F_BASE], F[d, F_CPLO], F[d, F_OLO], F[d, F_OHI], F[d, F_SLO]
    chance = F[d, F_KIND] == CHANCE
    p = F[d, F_PLAYER]
    off = F[d, F_ELO] + (F[d, F_EN0] if p == 1 else 0)
    m = 0
    nch = 0
    for i in range(olo, ohi):
        s = W.order[i]
        sp = slo + i - olo
        transit = W.h_np[s] > 0
        if transit:
            k, a0 = 1, 0
        elif chance:
            k, a0 = E.chance_outcomes(P, W.st[sp], obuf, opbuf), 0
        else:
            g = off + W.h_ent[s, p]
            k, a0 = W.e_nact[g], W.e_alo[g]
        if base + m + k > W.h_h.shape[0]:
            G[G_NEED] = base + m + (ohi - i) * k
            return -NEED_HIST
        for j in range(k):
            c = base + m
            for q in range(2):
                W.h_h[c, q, 0], W.h_h[c, q, 1] = W.h_h[s, q, 0], W.h_h[s, q, 1]
            W.h_par[c, 0], W.h_par[c, 1], W.h_src[c] = W.h_ent[s, 0], W.h_ent[s, 1], sp
            if transit:
                ne, po = W.h_np[s], W.h_poff[s]
                W.h_prob[c], W.h_slot[c], W.h_act[c], W.h_poff[c] = W.h_prob[s], -1, -1, po
                rows = W.rows[po:po + ne]
            else:
                for q in range(tmp.shape[0]):
                    tmp[q] = W.st[sp, q]
                a = obuf[j] if chance else W.acts[a0 + j]
                ne = E.apply(P, tmp, a, ev, 0, buf, pbuf)
                if ne > TOK_WIDTH:
                    return -ERR_EVENTS
                if ne == 0:
                    return -ERR_SILENT
                W.h_prob[c] = W.h_prob[s] * opbuf[j] if chance else W.h_prob[s]
                W.h_slot[c], W.h_act[c], W.h_poff[c] = -1 if chance else j, a, -1
                rows = ev[:ne]
            W.h_np[c] = ne
            absorb(W.h_h, c, c, rows, ne)
            kid = _child_of(W, cplo, nch, rows, ne, lastc, j)
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
def _into_transit(P, W, G, d, c, n, rtop, sc):
    """Put history slot ``c`` (a child of the node at depth ``d``) in transit at the child whose public
    tokens are the first ``n`` of its step's: its hashes absorb only those, the rest stay pending (in
    ``rows``: a stepped history's step is taken again on the scratch state to get them, appended at
    ``rtop``). Returns the new top of ``rows``, or -1 (``G[G_NEED]`` set) when it is full."""
    ev, buf, pbuf, tmp = sc[0], sc[1], sc[2], sc[6]
    F = W.frame
    s = W.order[F[d, F_OLO] + W.h_src[c] - F[d, F_SLO]]  # the parent history's slot
    for q in range(2):
        W.h_h[c, q, 0], W.h_h[c, q, 1] = W.h_h[s, q, 0], W.h_h[s, q, 1]
    ne = W.h_np[c]
    if W.h_act[c] >= 0:
        if rtop + ne > W.rows.shape[0]:
            G[G_NEED] = rtop + ne
            return -1
        for q in range(tmp.shape[0]):
            tmp[q] = W.st[W.h_src[c], q]
        E.apply(P, tmp, W.h_act[c], ev, 0, buf, pbuf)
        W.rows[rtop:rtop + ne] = ev[:ne]
        W.h_poff[c] = rtop
        rtop += ne
    po = W.h_poff[c]
    absorb(W.h_h, c, c, W.rows[po:po + n], n)
    W.h_poff[c] = po + n
    W.h_np[c] = ne - n
    return rtop


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
    rtop = F[d - 1, F_RTOP] if d > 0 else G[G_ROWS0]  # the root's own pending rows come first
    for c in range(base, base + m):
        t = W.c_tgt[cplo + W.h_kid[c]]
        if t != W.h_kid[c]:
            rtop = _into_transit(P, W, G, d, c, W.c_ntok[cplo + t], rtop, sc)
            if rtop < 0:
                return NEED_ROWS
        else:
            W.h_np[c] = 0
        k = W.c_new[cplo + t]
        W.h_kid[c] = k
        W.c_cnt[cplo + k] += 1
    F[d, F_RTOP] = rtop
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
