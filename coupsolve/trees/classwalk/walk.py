"""Two-player Coup's public tree, walked level by level over private *classes*, never over histories.

A history is a public node together with one entry of each player (their own token sequence). The
class walk keeps, per public node, each player's entries and their *buckets*: groups of entries with
the same private class (:mod:`coupsolve.trees.classwalk.state`: the engine's private part of the state) and
the same row of chance weights against the other player's buckets. Every entry of a bucket moves
alike, so one engine step per pair of buckets and move (:func:`step_pairs`) tells every entry of both
buckets where it goes; the entries themselves are only copied with their new tokens
(:mod:`coupsolve.trees.classwalk.emit`). Fewer pairs are stepped still: at a decision, one pair per bucket of
the seat whose cards the step reads (:func:`coupsolve.engine.step_reads`; one pair in all when it reads
nobody's), its results reused for the other pairs (:func:`_reuse`); at a terminal, the payoff is read
once per bucket of each player (it must be public). With ``Scratch.full`` every pair is stepped, which
the tests use to check that the reuse changes nothing. The weights of a bucket pair are read from the node's *anchor*
matrix (rows player 0's buckets, columns player 1's, chance probability and number of histories per
pair of entries), stored once where chance moved last: the root, every child of a chance node, and a
child whose pairs are not all of its anchor's (the public outcome depended on both players).

Steps are the engine's unsettled steps: a forced move (one legal action, one chance outcome) is a
node of its own, where the entries have no information set, so no history is ever in transit between
public nodes and the public node is the sequence of every step's public tokens. The information sets
are the history tree's: an entry acts at a decision node with several actions (or at a turn).

The per-node work arrays (:class:`Scratch`) are sized by the driver (:mod:`coupsolve.trees.classwalk.build`);
every step checks them first and returns a ``NEED_*`` code, so a node is redone whole after a growth.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solvers import CHANCE, DECISION, TERMINAL

from coupsolve import engine as E
from coupsolve.trees.classwalk.state import NCL, TOKW, compose, decompose, moves, public_part, view_token
from coupsolve.trees.classwalk.table import EMPTY, mix_ints2, table_slot

DONE = 0
(NEED_RES, NEED_PRE, NEED_CHILD, NEED_TABLE, NEED_ACTS, NEED_LNODE, NEED_LENT, NEED_LBUCK,
 NEED_ONODE, NEED_OENT, NEED_OINF, NEED_OACT, NEED_MAT, NEED_CELL, NEED_ORD, NEED_ROWS,
 NEED_ROWMAP) = range(1, 18)
(ERR_MIXED, ERR_SPLIT, ERR_PUBLIC, ERR_ACTIONS, ERR_PAYOFF, ERR_EVENTS, ERR_READS) = range(20, 27)
# per-node facts in Scratch.info
(I_KIND, I_ACTOR, I_NRES, I_NPRE, I_NCH, I_ACTS, I_PHASE, I_DECHIST, I_PAIRS, I_NEWMAT,
 I_NEWCELL, I_STEPPED, I_NEWROWS, I_NEWDENSE) = range(14)  # I_NEWMAT, I_NEWCELL, I_NEWROWS,
# I_NEWDENSE: matrices, cells (pairs with histories), row pointers and dense cells settle_children wrote;
# I_STEPPED: pairs stepped through the engine (the others reuse a stepped pair's results)
SEED_CHILD, SEED_PRE = np.uint64(0x7A5B3C1D2E4F6071), np.uint64(0x1F2E3D4C5B6A7988)


class Scratch(NamedTuple):
    """One node's work arrays (capacities: R results, K pre-buckets, CH children, T table slots)."""

    s: np.ndarray  # int32 (S_SIZE,) the composed state
    s2: np.ndarray  # int32 (S_SIZE,) after a move
    pub2: np.ndarray  # int32 (S_SIZE,) its public part
    ev: np.ndarray  # int32 (4 TOKW, 3) events
    buf: np.ndarray  # int32 (MAX_MOVES,) moves
    prob: np.ndarray  # float64 (MAX_MOVES,)
    cls: np.ndarray  # int32 (2, NCL) the pair's classes
    cls2: np.ndarray  # int32 (2, NCL) after a move
    vals: np.ndarray  # int64 (2 + TOKW + NCL + 4,) a key being hashed
    toks: np.ndarray  # int32 (TOKW,) tokens of one view
    ret: np.ndarray  # float64 (MAXP,) payoffs
    info: np.ndarray  # int64 (16,) I_*
    payoff: np.ndarray  # float64 (1,) the terminal's payoff to player 0
    r_c: np.ndarray  # int32 (R,) its child
    r_k: np.ndarray  # int32 (R, 2) its pre-buckets
    r_w: np.ndarray  # float64 (R,) chance weight of the pair times the move's probability
    r_n: np.ndarray  # int64 (R,) histories per pair of entries
    k_c: np.ndarray  # int32 (K,) pre-bucket: child
    k_q: np.ndarray  # int8 (K,) player
    k_par: np.ndarray  # int32 (K,) the parent bucket (local to the player)
    k_slot: np.ndarray  # int16 (K,) the action's slot (actor with an information set) or -1
    k_ntok: np.ndarray  # int32 (K,) own tokens of the step
    k_tok: np.ndarray  # int32 (K, TOKW)
    k_cls: np.ndarray  # int32 (K, NCL) class after the step
    k_idx: np.ndarray  # int32 (K,) position among its child's pre-buckets of its player
    k_fin: np.ndarray  # int32 (K,) its bucket at the child (local to the player)
    c_pub: np.ndarray  # int32 (CH, S_SIZE)
    c_npre: np.ndarray  # int32 (CH, 2)
    c_plo: np.ndarray  # int64 (CH, 2) first of its pre-buckets of a player in ``plist``
    c_nb: np.ndarray  # int32 (CH, 2) buckets at the child
    c_mat: np.ndarray  # int64 (CH,) the child's anchor matrix
    c_nres: np.ndarray  # int64 (CH,) results reaching it
    plist: np.ndarray  # int32 (K,) pre-buckets by child, player and position
    t_k1: np.ndarray  # uint64 (T,) the table
    t_k2: np.ndarray
    t_val: np.ndarray  # int32 (T,)
    t_stamp: np.ndarray  # int64 (T,)
    a_lo: np.ndarray  # int32 (NB,) actor bucket's legal list in ``acts`` (-1: not yet)
    a_k: np.ndarray  # int32 (NB,)
    acts: np.ndarray  # int32 (A,)
    rep_lo: np.ndarray  # int64 (NB,) results of the pair stepped for a bucket of the seat the step
    rep_hi: np.ndarray  # int64 (NB,) reads (-1: none yet), reused by its other pairs
    rep_ja: np.ndarray  # int32 (NB,) the actor's bucket in that pair (its legal list)
    full: np.ndarray  # int64 (1,) 1: step every pair (the check of the reuse, in the tests)
    grp: np.ndarray  # int32 (K,) representative pre-bucket of each bucket being formed
    ord: np.ndarray  # int32 (ENODE,) the node's entries sorted by player and bucket
    ent: np.ndarray  # int32 (ENODE,) the information set of each of the node's entries (-1 none)
    o_lo: np.ndarray  # int64 (NB + 1,) start of each bucket in ``ord``
    rm_cell: np.ndarray  # int64 (W,) a spread row's cell per column (spread_row; W: widest matrix)
    rm_stamp: np.ndarray  # int64 (W,) the stamp of the row that wrote it
    rm_ctr: np.ndarray  # int64 (1,) the last stamp


@njit(cache=True, inline="always")
def row_cells(O, m, r0):
    """The cells of row ``r0`` of anchor matrix ``m`` (its pairs with histories, by column):
    ``(first, end)``."""
    base = O.matrix_rowp[m] + r0
    return O.matrix_start[m] + O.row_ptr[base], O.matrix_start[m] + O.row_ptr[base + 1]


@njit(cache=True)
def find_cell(O, m, r0, r1):
    """The cell of anchor matrix ``m`` at row ``r0`` and column ``r1``, or -1: no histories."""
    lo, hi = row_cells(O, m, r0)
    while lo < hi:
        mid = (lo + hi) >> 1
        col = O.cell_col[mid]
        if col < r1:
            lo = mid + 1
        elif col > r1:
            hi = mid
        else:
            return mid
    return -1


@njit(cache=True)
def spread_row(O, S, m, r0):
    """Mark row ``r0`` of anchor matrix ``m`` in ``S.rm_cell`` (its cell by column, valid where
    ``S.rm_stamp`` is the returned stamp): a pair's cell in one read, as in a dense row."""
    S.rm_ctr[0] += 1
    stamp = S.rm_ctr[0]
    lo, hi = row_cells(O, m, r0)
    for t in range(lo, hi):
        S.rm_cell[O.cell_col[t]] = t
        S.rm_stamp[O.cell_col[t]] = stamp
    return stamp


@njit(cache=True, inline="always")
def spread_cell(S, stamp, r1):
    """The cell at column ``r1`` of the row :func:`spread_row` marked with ``stamp``, or -1."""
    return S.rm_cell[r1] if S.rm_stamp[r1] == stamp else -1


@njit(cache=True)
def _kind_of(s):
    if s[E.S_PHASE] == E.PH_TERMINAL:
        return TERMINAL, -1
    if E.is_chance(s):
        return CHANCE, -1
    return DECISION, E.current_player(s)


@njit(cache=True)
def _actor_list(S, j, k):
    """Record (or check) the legal list ``S.buf[:k]`` of actor bucket ``j``: a status code."""
    lo = S.a_lo[j]
    if lo < 0:
        lo = S.info[I_ACTS]
        if lo + k > S.acts.shape[0]:
            return NEED_ACTS
        S.a_lo[j], S.a_k[j] = lo, k
        S.acts[lo:lo + k] = S.buf[:k]
        S.info[I_ACTS] = lo + k
        return DONE
    if S.a_k[j] != k:
        return ERR_ACTIONS
    for a in range(k):
        if S.acts[lo + a] != S.buf[a]:
            return ERR_ACTIONS
    return DONE


@njit(cache=True)
def _child(S, mask, stamp, ntok):
    """The child of the public tokens ``S.toks[:ntok]`` and public part ``S.pub2``: its index, or
    ``-1 - status``."""
    S.vals[0] = ntok
    for t in range(ntok):
        S.vals[1 + t] = S.toks[t]
    k1, k2 = mix_ints2(SEED_CHILD, S.vals, 1 + ntok)
    slot = table_slot(S.t_k1, S.t_k2, S.t_val, S.t_stamp, stamp, k1, k2, mask)
    c = S.t_val[slot]
    if c == EMPTY:
        c = S.info[I_NCH]
        if c >= S.c_pub.shape[0]:
            return -1 - NEED_CHILD
        S.t_val[slot] = c
        S.info[I_NCH] = c + 1
        S.c_pub[c] = S.pub2
        S.c_npre[c, 0], S.c_npre[c, 1], S.c_nres[c] = 0, 0, 0
        return c
    for f in range(S.pub2.shape[0]):
        if S.c_pub[c, f] != S.pub2[f]:
            return -1 - ERR_PUBLIC
    return c


@njit(cache=True)
def _pre(S, mask, stamp, c, q, j, slot, ntok):
    """The pre-bucket of player ``q`` at child ``c`` from bucket ``j`` with own tokens ``S.toks[:ntok]``,
    action slot ``slot`` and class ``S.cls2[q]``: its index, or ``-1 - status``."""
    v = S.vals
    v[0], v[1], v[2], v[3], v[4] = c, q, j, slot, ntok
    for t in range(ntok):
        v[5 + t] = S.toks[t]
    for f in range(NCL):
        v[5 + ntok + f] = S.cls2[q, f]
    k1, k2 = mix_ints2(SEED_PRE, v, 5 + ntok + NCL)
    sl = table_slot(S.t_k1, S.t_k2, S.t_val, S.t_stamp, stamp, k1, k2, mask)
    k = S.t_val[sl]
    if k != EMPTY:
        return k
    k = S.info[I_NPRE]
    if k >= S.k_c.shape[0]:
        return -1 - NEED_PRE
    S.t_val[sl] = k
    S.info[I_NPRE] = k + 1
    S.k_c[k], S.k_q[k], S.k_par[k], S.k_slot[k], S.k_ntok[k] = c, q, j, slot, ntok
    S.k_tok[k, :ntok] = S.toks[:ntok]
    S.k_cls[k] = S.cls2[q]
    S.k_idx[k] = S.c_npre[c, q]
    S.c_npre[c, q] += 1
    return k


@njit(cache=True)
def _record(S, r, c, w, n):
    """Close result ``r`` (its pre-buckets written): child ``c``, weight ``w``, ``n`` histories per
    pair of entries."""
    S.r_c[r] = c
    S.r_w[r], S.r_n[r] = w, n
    S.c_nres[c] += 1
    S.info[I_NRES] = r + 1


@njit(cache=True)
def _moves_of_pair(P, S, mask, stamp, j0, j1, w, n, kind, actor, bearing, reads):
    """Step every move of the composed pair (``S.s``, classes ``S.cls``, buckets ``j0``, ``j1``);
    record a result per move. ``reads``: :func:`coupsolve.engine.step_reads` at a decision (checked:
    a seat it does not read keeps its class and is told nothing of its own). Returns a status."""
    k = moves(P, S.s, S.buf, S.prob)
    for mv in range(k):
        S.s2[:] = S.s
        ne = E._step(P, S.s2, np.int64(S.buf[mv]), S.ev, np.int64(0))
        if ne > TOKW:
            return ERR_EVENTS
        if not decompose(P, S.s2, S.cls, actor, S.cls2):
            return ERR_SPLIT
        if kind == DECISION and reads != E.READS_ALL:
            for q in range(2):
                if q == reads:
                    continue
                for f in range(NCL):
                    if S.cls2[q, f] != S.cls[q, f]:
                        return ERR_READS
                for t in range(ne):
                    if S.ev[t, 0] == q and S.ev[t, 1] != S.ev[t, 2]:
                        return ERR_READS
        public_part(S.s2, S.pub2)
        for t in range(ne):
            S.toks[t] = view_token(S.ev, t, -1)
        c = _child(S, mask, stamp, ne)
        if c < 0:
            return -1 - c
        r = S.info[I_NRES]
        if r >= S.r_c.shape[0]:
            return NEED_RES
        for q in range(2):
            for t in range(ne):
                S.toks[t] = view_token(S.ev, t, q)
            slot = mv if (kind == DECISION and q == actor and bearing) else -1
            pk = _pre(S, mask, stamp, c, q, j0 if q == 0 else j1, slot, ne)
            if pk < 0:
                return -1 - pk
            S.r_k[r, q] = pk
        _record(S, r, c, w * S.prob[mv], n)
    return DONE


@njit(cache=True)
def _reuse(S, mask, stamp, jr, j0, j1, w, n, reads):
    """Record the results of pair (``j0``, ``j1``) from those of the pair stepped for bucket ``jr`` of
    the seat ``reads``: the same children and, for that seat, the same pre-buckets; a seat the step
    does not read keeps its class and gets the stepped pair's own tokens and action slot; the actor's
    legal list is the stepped pair's (it reads no cards the step does not). A decision: weights are
    the pair's. Returns a status."""
    S.info[I_PAIRS] += 1
    S.info[I_DECHIST] += n
    ja = j0 if S.info[I_ACTOR] == 0 else j1
    if S.a_lo[ja] < 0:
        S.a_lo[ja], S.a_k[ja] = S.a_lo[S.rep_ja[jr]], S.a_k[S.rep_ja[jr]]
    for r0 in range(S.rep_lo[jr], S.rep_hi[jr]):
        r = S.info[I_NRES]
        if r >= S.r_c.shape[0]:
            return NEED_RES
        c = np.int64(S.r_c[r0])  # int64s as _moves_of_pair passes them: one compiled _pre and _record
        for q in range(2):
            if q == reads:
                S.r_k[r, q] = S.r_k[r0, q]
                continue
            k0 = S.r_k[r0, q]
            ntok = np.int64(S.k_ntok[k0])
            S.toks[:ntok] = S.k_tok[k0, :ntok]
            S.cls2[q] = S.cls[q]
            pk = _pre(S, mask, stamp, c, q, j0 if q == 0 else j1, np.int64(S.k_slot[k0]), ntok)
            if pk < 0:
                return -1 - pk
            S.r_k[r, q] = pk
        _record(S, r, c, w, n)
    return DONE


@njit(cache=True)
def step_pairs(P, cur, i, O, S, stamp, mask):
    """Step every pair of buckets of node ``i`` of level ``cur`` with histories (count > 0 in its
    anchor matrix): the node's kind and actor, its terminal payoff, the actor buckets' legal lists, and
    per move a result (child, pre-buckets, weight). ``stamp``: a table stamp not used before; ``mask``:
    the table's slots in use minus one. Returns a status code."""
    b_lo, nb0 = cur.blo[i], cur.nb0[i]
    nb1 = cur.blo[i + 1] - b_lo - nb0
    m = cur.amat[i]
    info = S.info
    info[:] = 0
    info[I_KIND], info[I_ACTOR] = -1, -1
    if max(nb0, nb1) > S.a_lo.shape[0]:
        return NEED_ACTS
    S.a_lo[:max(nb0, nb1)] = -1
    S.rep_lo[:max(nb0, nb1)] = -1
    S.rep_hi[:max(nb0, nb1)] = -1  # at a terminal: whether a pair of player 1's bucket was read
    reads = E.READS_ALL
    if O.matrix_cols[m] > S.rm_cell.shape[0]:
        return NEED_ROWMAP
    for j0 in range(nb0):
        row = spread_row(O, S, m, cur.b_row[b_lo + j0])
        for j1 in range(nb1):
            cell = spread_cell(S, row, cur.b_row[b_lo + nb0 + j1])
            if cell < 0:
                continue
            n = O.matrix_cnt[cell]
            if info[I_KIND] == TERMINAL and S.full[0] == 0:
                # a public payoff: read once per bucket of each player (every pair with ``full``)
                if S.rep_lo[j0] >= 0 and S.rep_hi[j1] >= 0:
                    info[I_PAIRS] += 1
                    continue
                S.rep_lo[j0], S.rep_hi[j1] = 0, 0
            S.cls[0] = cur.b_cls[b_lo + j0]
            S.cls[1] = cur.b_cls[b_lo + nb0 + j1]
            jr = 0 if reads == E.READS_NONE else (j0 if reads == 0 else j1)
            if reads != E.READS_ALL and S.rep_lo[jr] >= 0:  # the step of a pair already stepped
                st = _reuse(S, mask, stamp, jr, j0, j1, O.matrix_data[cell], n, reads)
                if st != DONE:
                    return st
                if 2 * (info[I_NPRE] + info[I_NCH]) > mask + 1:
                    return NEED_TABLE
                continue
            compose(P, cur.pub[i], S.cls, S.s)
            kind, actor = _kind_of(S.s)
            if info[I_KIND] < 0:
                info[I_KIND], info[I_ACTOR], info[I_PHASE] = kind, actor, S.s[E.S_PHASE]
                if kind == DECISION and S.full[0] == 0:
                    reads = E.step_reads(P, S.s)
                    jr = 0 if reads == E.READS_NONE else (j0 if reads == 0 else j1)
            elif kind != info[I_KIND] or actor != info[I_ACTOR]:
                return ERR_MIXED
            info[I_PAIRS] += 1
            info[I_STEPPED] += 1
            if kind == TERMINAL:
                E.returns(P, S.s, S.ret)
                if info[I_PAIRS] == 1:
                    S.payoff[0] = S.ret[0]
                elif S.ret[0] != S.payoff[0]:
                    return ERR_PAYOFF
                continue
            bearing = False
            if kind == DECISION:
                info[I_DECHIST] += n
                k = E.legal_actions(P, S.s, S.buf)
                st = _actor_list(S, j0 if actor == 0 else j1, k)
                if st != DONE:
                    return st
                bearing = k > 1 or S.s[E.S_PHASE] == E.PH_TURN
            r_lo = info[I_NRES]
            st = _moves_of_pair(P, S, mask, stamp, j0, j1, O.matrix_data[cell], n, kind, actor,
                                bearing, reads if S.full[0] == 0 else E.step_reads(P, S.s))
            if st != DONE:
                return st
            if reads != E.READS_ALL:
                S.rep_lo[jr], S.rep_hi[jr] = r_lo, info[I_NRES]
                S.rep_ja[jr] = j0 if actor == 0 else j1
            if 2 * (info[I_NPRE] + info[I_NCH]) > mask + 1:
                return NEED_TABLE
    return DONE
