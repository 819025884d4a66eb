"""Two-player Coup's public tree by the class walk (:mod:`coupsolve.trees.classwalk.walk`): no history is
stepped, stored or counted one by one.

:func:`~coupsolve.trees.classwalk.count.count_class_tree` walks the levels storing only the current and the next one (and the anchor
matrices, which the walk reads); :func:`build_class_tree` walks them again writing the tree, after
:func:`solvers.memory.check_fits` has accepted the counted size. Both take Ctrl-C between chunks of
public nodes and report ``progress(stage, nodes_done, nodes_of_level)``. The tree is a
:class:`coupsolve.trees.stepwalk.build.CoupPublicTree` like the history-stepping builder's, with the same
information sets (the same keys, action lists and history counts) and the same values; its public
nodes differ where a move is forced (here a node of its own, whose entries have no information set).

Memory: the tree (:func:`solvers.trees.publictree.estimate_public_tree_bytes`, plus 12 bytes per information set
and 2 per entry); while walking, two levels (26 bytes per entry, 23 per bucket and 496 per public
node, at up to twice the level's size while it grows), the anchor matrices (sparse: 20 bytes per pair
of buckets with histories and 8 per row; a count keeps only those the next level reads, a build all of
them: they are the tree's matrices), the information sets' keys (8 bytes each) and one
node's work arrays. A tree too large to count level by level is counted by parts
(:mod:`coupsolve.trees.classwalk.count`).
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from numba import njit

from solvers.memory import check_fits, format_bytes
from solvers.trees.publictree import FLAT_DTYPES, PublicFlat, PublicTree
from solvers.trees.matrices import sparse_bytes
from solvers.public.rep import estimate_public_solve_bytes

from coupsolve.trees.classwalk import walk as W
from coupsolve.trees.classwalk import children as CC
from coupsolve import engine as E
from coupsolve.engine.hashing import absorb, seed_hashes
from coupsolve.trees.classwalk.emit import Level, walk_level
from coupsolve.trees.classwalk.state import NCL, TOKW, initial_classes, public_part, supported
from coupsolve.trees.stepwalk.build import OUT_DTYPES, CoupPublicTree, coup_tree_bytes
from coupsolve.rules import Rules

__all__ = ["ClassSize", "build_class_tree"]

# the walk's anchors are sparse (cells: pairs with histories, by row; matrix_start their cells,
# matrix_rowp their row pointers): the tree's own layout (solvers.trees.publictree), so a build hands them over
_OUT = dict(OUT_DTYPES, matrix_cnt=np.int64,
            **{k: FLAT_DTYPES[k] for k in ("matrix_rowp", "row_ptr", "cell_col")})
ClassOut = NamedTuple("ClassOut", [(k, np.ndarray) for k in _OUT])
_NODE_ARRAYS = ("node_kind", "node_player", "child_start", "num_children", "entry_start",
                "num_entries0", "term_matrix", "term_scale")
_ENTRY_ARRAYS = ("entry_parent", "entry_slot", "entry_ref", "entry_hand")
_INFOSET_ARRAYS = ("infoset_player", "infoset_num_actions", "infoset_offset", "infoset_count",
                   "infoset_node", "infoset_context")
_GROW_OUT = {W.NEED_ONODE: _NODE_ARRAYS, W.NEED_OENT: _ENTRY_ARRAYS,
             W.NEED_OINF: _INFOSET_ARRAYS + ("infoset_hash",), W.NEED_OACT: ("infoset_actions",),
             W.NEED_MAT: ("matrix_start", "matrix_cols", "matrix_rowp"),
             W.NEED_CELL: ("matrix_data", "matrix_cnt", "cell_col"), W.NEED_ROWS: ("row_ptr",)}
_GROW_LEVEL = {W.NEED_LNODE: ("pub", "amat", "elo", "ne0", "blo", "nb0"),
               W.NEED_LENT: ("e_h", "e_bk", "e_par", "e_slot"),
               W.NEED_LBUCK: ("b_cls", "b_row", "b_cnt")}
_GROW_SCRATCH = {W.NEED_RES: ("r_c", "r_k", "r_w", "r_n"),
                 W.NEED_PRE: ("k_c", "k_q", "k_par", "k_slot", "k_ntok", "k_tok", "k_cls", "k_idx",
                              "k_fin", "plist", "grp"),
                 W.NEED_CHILD: ("c_pub", "c_npre", "c_plo", "c_nb", "c_mat", "c_nres"),
                 W.NEED_TABLE: ("t_k1", "t_k2", "t_val", "t_stamp"),
                 W.NEED_ACTS: ("a_lo", "a_k", "acts", "rep_lo", "rep_hi", "rep_ja"),
                 W.NEED_ORD: ("ord", "ent", "o_lo"), W.NEED_ROWMAP: ("rm_cell", "rm_stamp")}
_ERRORS = {
    W.ERR_MIXED: "its histories are not all of one kind and actor",
    W.ERR_SPLIT: "a state does not split into public part and the players' classes",
    W.ERR_PUBLIC: "two histories with the same public events have different public states",
    W.ERR_ACTIONS: "two histories of one information set have different legal actions",
    W.ERR_PAYOFF: "its histories pay player 0 differently (the payoffs are not public)",
    W.ERR_EVENTS: "one engine step emitted more events than the walk holds",
    W.ERR_READS: "a step changed or told something private to a seat whose cards "
                 "coupsolve.engine.step_reads says it does not read",
}


class ClassSize(NamedTuple):
    """The size of a public tree from :func:`count_class_tree`."""

    rules: Rules
    nodes: int
    entries: int
    infosets: int
    actions: int
    matrices: int
    cells: int  # the matrices' rows x columns: the tree's (dense) matrix cells
    decision_histories: int  # histories at decision nodes, forced moves (no information set) included
    pairs: int  # bucket pairs with histories at the public nodes (decision, chance and terminal)
    pairs_by_kind: tuple  # of them at decision, chance and terminal nodes
    stepped: int  # of them composed and stepped through the engine (the others reuse a stepped one)
    level_nodes: np.ndarray
    level_entries: np.ndarray
    work_bytes: int  # the walk's two largest consecutive levels and its matrix counts (a count by parts:
    # the larger of its own and a level-by-level build's, level_walk_bytes)
    seconds: float
    pair_cells: int  # of the cells, those with histories: the walk's sparse anchors hold only them
    row_entries: int  # the anchors' row pointers (rows + 1 per matrix)
    parts: tuple = ()  # a count by parts: each part's coupsolve.trees.classwalk.count.PartSize

    def tree_bytes(self) -> int:
        """Bytes of the :class:`CoupPublicTree`: the public tree, its matrices sparse (the cells with
        histories), and the information-set extras."""
        return coup_tree_bytes(self.nodes, self.entries, self.infosets, self.actions,
                               sparse_bytes(self.pair_cells, self.row_entries - self.matrices,
                                            self.matrices))

    def build_bytes(self) -> int:
        """Bytes a build needs beside the tree: the walk's, the anchors' history counts (8 bytes per
        cell), and its three int64 per-infoset index arrays (held while the tree copies them)."""
        return self.work_bytes + 8 * self.pair_cells + 3 * 8 * self.infosets

    def peak_bytes(self, precision="float64", predictive=False) -> int:
        """Peak bytes of a build and then a solve: the tree, plus the larger of the build's own
        (:meth:`build_bytes`) and the solve's working memory. Checked against the measured peak at
        turn limit 2 (``tests/test_memory_estimate.py``)."""
        solve = estimate_public_solve_bytes(self.entries, self.actions, precision, predictive)
        return self.tree_bytes() + max(self.build_bytes(), solve)

    def describe(self) -> str:
        return (f"public tree (class walk): {self.nodes:,} public nodes, {self.entries:,} entries, "
                f"{self.infosets:,} information sets, {self.actions:,} actions, {self.cells:,} "
                f"matrix cells ({self.pair_cells:,} with histories) in {self.matrices:,} matrices; "
                f"{format_bytes(self.tree_bytes())} "
                f"(+{format_bytes(self.work_bytes)} to walk); {self.pairs:,} pairs of buckets "
                f"({self.stepped:,} stepped) for {self.decision_histories:,} histories at decision "
                f"nodes; count {self.seconds:.1f} s")


def _zeros(spec, n):
    """Arrays ``{name: (dtype, row shape)}`` with ``n`` rows."""
    return {k: np.zeros((n,) + shape, dt) for k, (dt, shape) in spec.items()}


_LEVEL = dict(pub=(np.int32, (E.S_SIZE,)), amat=(np.int64, ()), elo=(np.int64, ()),
              ne0=(np.int32, ()), blo=(np.int64, ()), nb0=(np.int32, ()), e_h=(np.uint64, (2,)),
              e_bk=(np.int32, ()), e_par=(np.int32, ()), e_slot=(np.int16, ()),
              b_cls=(np.int8, (NCL,)), b_row=(np.int32, ()), b_cnt=(np.int32, ()))
_SCRATCH = dict(
    r_c=(np.int32, ()), r_k=(np.int32, (2,)), r_w=(np.float64, ()),
    r_n=(np.int64, ()), k_c=(np.int32, ()), k_q=(np.int8, ()), k_par=(np.int32, ()),
    k_slot=(np.int16, ()), k_ntok=(np.int32, ()), k_tok=(np.int32, (TOKW,)),
    k_cls=(np.int32, (NCL,)), k_idx=(np.int32, ()), k_fin=(np.int32, ()), plist=(np.int32, ()),
    grp=(np.int32, ()), c_pub=(np.int32, (E.S_SIZE,)),
    c_npre=(np.int32, (2,)), c_plo=(np.int64, (2,)), c_nb=(np.int32, (2,)), c_mat=(np.int64, ()),
    c_nres=(np.int64, ()), t_k1=(np.uint64, ()), t_k2=(np.uint64, ()), t_val=(np.int32, ()),
    t_stamp=(np.int64, ()), a_lo=(np.int32, ()), a_k=(np.int32, ()), acts=(np.int32, ()),
    rep_lo=(np.int64, ()), rep_hi=(np.int64, ()), rep_ja=(np.int32, ()),
    ord=(np.int32, ()), ent=(np.int32, ()),
    o_lo=(np.int64, ()), rm_cell=(np.int64, ()), rm_stamp=(np.int64, ()))
_FIRST = dict(r_c=1 << 12, k_c=1 << 12, c_pub=64, t_k1=1 << 14, a_lo=256, ord=1 << 12)


def _level(nodes, entries, buckets):
    a = _zeros({k: v for k, v in _LEVEL.items() if k in _GROW_LEVEL[W.NEED_LNODE]}, nodes + 1)
    a.update(_zeros({k: v for k, v in _LEVEL.items() if k in _GROW_LEVEL[W.NEED_LENT]}, entries))
    a.update(_zeros({k: v for k, v in _LEVEL.items() if k in _GROW_LEVEL[W.NEED_LBUCK]}, buckets))
    return Level(**a)


def _scratch(every_pair=False):
    arrays = {}
    for code, names in _GROW_SCRATCH.items():
        n = next((_FIRST[k] for k in names if k in _FIRST), 1 << 12)
        arrays.update(_zeros({k: _SCRATCH[k] for k in names}, n))
    arrays["acts"] = np.zeros(1 << 14, np.int32)
    arrays["o_lo"] = np.zeros(arrays["ord"].shape[0] + 1, np.int64)
    arrays["info"] = np.zeros(16, np.int64)
    arrays["payoff"] = np.zeros(1, np.float64)
    arrays["full"] = np.array([1 if every_pair else 0], np.int64)
    arrays["rm_ctr"] = np.zeros(1, np.int64)
    arrays.update(s=np.zeros(E.S_SIZE, np.int32), s2=np.zeros(E.S_SIZE, np.int32),
                  pub2=np.zeros(E.S_SIZE, np.int32), ev=np.zeros((4 * TOKW, 3), np.int32),
                  buf=np.zeros(E.MAX_MOVES, np.int32), prob=np.zeros(E.MAX_MOVES, np.float64),
                  cls=np.zeros((2, NCL), np.int32), cls2=np.zeros((2, NCL), np.int32),
                  vals=np.zeros(8 + TOKW + NCL, np.int64), toks=np.zeros(TOKW, np.int32),
                  ret=np.zeros(E.MAXP, np.float64))
    return W.Scratch(**arrays)


def _grown(nt, names, need, rows=None):
    """``nt`` with arrays ``names`` grown to at least ``need`` rows (and at least doubled); an empty
    array stays empty (a count allocates none of the tree's arrays but the keys and the matrices)."""
    new = {}
    for k in names:
        a = getattr(nt, k)
        if a.shape[0] == 0:
            continue
        cap = max(2 * a.shape[0], int(need) + 1, 16)
        check_fits(a.nbytes // max(a.shape[0], 1) * (cap - a.shape[0]),
                   f"the class walk's array {k} ({cap:,} rows)")
        b = np.zeros((cap,) + a.shape[1:], a.dtype)
        b[:a.shape[0]] = a
        new[k] = b
    return nt._replace(**new)


def _grow(status, need, S, nxt, O):
    """Grow what ``status`` asks for (``need``: the rows it named, 0 for a scratch array); returns
    ``(S, nxt, O)``."""
    if status in _GROW_SCRATCH:
        if status != W.NEED_TABLE:
            S = _grown(S, _GROW_SCRATCH[status], need)
        t = S.t_k1.shape[0] * (2 if status == W.NEED_TABLE else 1)
        t = max(t, 1 << int(np.ceil(np.log2(4 * (S.k_c.shape[0] + S.c_pub.shape[0])))))
        if t != S.t_k1.shape[0]:
            S = S._replace(**_zeros({k: _SCRATCH[k] for k in _GROW_SCRATCH[W.NEED_TABLE]}, t))
        return S, nxt, O
    if status in _GROW_LEVEL:
        return S, _grown(nxt, _GROW_LEVEL[status], need + (status == W.NEED_LNODE)), O
    return S, nxt, _grown(O, _GROW_OUT[status], need + (status in (W.NEED_ONODE, W.NEED_MAT)))


@njit(cache=True)
def _root(P, L, O):
    """Level 0: the initial state (after its forced steps), one entry and one bucket per player, and
    anchor matrix 0 (one pair, weight 1, one history). False when the state does not split."""
    s = np.zeros(E.S_SIZE, np.int32)
    ev = np.zeros((4 * TOKW, 3), np.int32)
    h = np.zeros((1, 2, 2), np.uint64)
    seed_hashes(h[0])
    ne = E.initial_state(P, s, ev, np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64))
    absorb(h, 0, 0, ev, ne)
    cls = np.zeros((2, NCL), np.int32)
    ok = initial_classes(s, cls)
    public_part(s, L.pub[0])
    L.amat[0], L.elo[0], L.elo[1], L.ne0[0], L.blo[0], L.blo[1], L.nb0[0] = 0, 0, 2, 1, 0, 2, 1
    for p in range(2):
        L.e_h[p, 0], L.e_h[p, 1] = h[0, p, 0], h[0, p, 1]
        L.e_bk[p], L.e_par[p], L.e_slot[p] = 0, -1, -1
        L.b_cls[p] = cls[p]
        L.b_row[p], L.b_cnt[p] = 0, 1
    O.matrix_start[0], O.matrix_start[1], O.matrix_cols[0] = 0, 1, 1
    O.matrix_rowp[0], O.matrix_rowp[1], O.row_ptr[0], O.row_ptr[1] = 0, 2, 0, 1
    O.matrix_data[0], O.matrix_cnt[0], O.cell_col[0] = 1.0, 1, 0
    return ok


def _new_out(fill, size=None):
    """The tree's arrays: small ones that grow, or (``size``, a count of the same rules) their final
    sizes, so that a large build never holds an array twice while growing it."""
    sizes = dict.fromkeys(_OUT, 1 << 12 if fill else 0)
    sizes.update(infoset_hash=1 << 12, matrix_start=1 << 10, matrix_cols=1 << 10,
                 matrix_rowp=1 << 10, matrix_data=1 << 14, matrix_cnt=1 << 14, cell_col=1 << 14,
                 row_ptr=1 << 12)
    if size is not None:
        sizes.update(dict.fromkeys(_NODE_ARRAYS, size.nodes + 1),
                     **dict.fromkeys(_ENTRY_ARRAYS, size.entries + 1),
                     **dict.fromkeys(_INFOSET_ARRAYS + ("infoset_hash",), size.infosets + 1),
                     infoset_actions=size.actions + 1, matrix_start=size.matrices + 2,
                     matrix_cols=size.matrices + 2, matrix_rowp=size.matrices + 2,
                     matrix_data=size.pair_cells + 1, matrix_cnt=size.pair_cells + 1,
                     cell_col=size.pair_cells + 1, row_ptr=size.row_entries + 1)
    return ClassOut(**{k: np.zeros(sizes[k], dt) for k, dt in _OUT.items()})


def _walk(rules, fill, progress, size=None, every_pair=False):
    """Walk every level; returns ``(O, G, level_nodes, level_entries, work_bytes, seconds)``."""
    P, cur, O, S, G, t0 = _start(rules, fill, size, every_pair)
    _, _, S, O, level_nodes, level_entries, work, gone = _levels(P, cur, 1, O, S, G, fill, progress)
    CC.add_gone(G, gone)
    return O, G, np.array(level_nodes), np.array(level_entries), work, time.perf_counter() - t0


def _start(rules, fill, size=None, every_pair=False):
    """The walk's start: ``(P, level 0, O, S, G, start time)``."""
    why = supported(rules)
    if why:
        raise ValueError(f"the class walk cannot build these rules: {why}")
    P = rules.params()
    t0 = time.perf_counter()
    O, S, G = _new_out(fill, size), _scratch(every_pair), np.zeros(CC.NG, np.int64)
    cur = _level(1, 2, 2)
    if not _root(P, cur, O):
        raise ValueError("the class walk cannot build these rules: the initial state holds cards "
                         "that are nobody's")
    G[CC.G_MATRICES], G[CC.G_CELLS], G[CC.G_ROWS], G[CC.G_DENSE] = 1, 1, 2, 1
    return P, cur, O, S, G, t0


def _levels(P, cur, n_cur, O, S, G, fill, progress, depth=None, first=0, until_nodes=None):
    """Walk the levels from ``cur`` (its ``n_cur`` nodes, level ``first`` of the tree) to the end, or
    ``depth`` of them, or up to the first level of ``until_nodes`` nodes or more. Returns ``(cur,
    n_cur, S, O, level_nodes, level_entries, work_bytes, gone)``: the level reached (no nodes at the end), the nodes and entries of the levels walked, and (a count)
    the matrices and cells dropped because no later level reads them."""
    level_nodes, level_entries, work = [], [], 0
    gone = np.zeros(3, np.int64)
    while n_cur and (depth is None or len(level_nodes) < depth) and \
            (until_nodes is None or n_cur < until_nodes):
        level_nodes.append(n_cur)
        level_entries.append(int(cur.elo[n_cur]))
        nxt = _level(2 * n_cur, 2 * int(cur.elo[n_cur]), 2 * int(cur.blo[n_cur]))
        LC = np.zeros(3, np.int64)
        base, i, chunk = int(G[CC.G_NODES]) + n_cur, 0, 64
        d = first + len(level_nodes) - 1
        while i < n_cur:
            hi = min(n_cur, i + chunk)
            t = time.perf_counter()
            st, i = walk_level(P, cur, nxt, LC, O, S, G, fill, base, i, hi)
            if st == W.DONE:
                chunk = max(16, min(chunk * 2, int(chunk * 0.25 / max(time.perf_counter() - t, 1e-4))))
                if progress is not None:
                    progress("level %d" % d, i, n_cur)
            elif st >= W.ERR_MIXED:
                raise ValueError(f"the class walk cannot build these rules: public node {i} of level "
                                 f"{d}: {_ERRORS[st]}")
            else:
                S, nxt, O = _grow(st, int(G[CC.G_NEED]), S, nxt, O)
        live = sum(getattr(O, k).nbytes for k in CC.ANCHOR_ARRAYS) + O.infoset_hash.nbytes
        work = max(work, sum(a.nbytes for a in cur) + sum(a.nbytes for a in nxt) + live)
        cur, n_cur = nxt, int(LC[0])
        if not fill:
            gone += CC.keep_read_matrices(O, G, cur.amat[:n_cur])
    return cur, n_cur, S, O, level_nodes, level_entries, work, gone


def level_walk_bytes(level_nodes, level_entries):
    """Bytes of a level-by-level walk's two levels at their largest, from the levels' sizes (a bucket
    counted as an entry: every bucket holds one or more): what a build needs beside the tree and its
    matrices, whichever way the tree was counted."""
    per = {code: sum(np.dtype(_LEVEL[k][0]).itemsize * int(np.prod(_LEVEL[k][1]))
                     for k in _GROW_LEVEL[code]) for code in _GROW_LEVEL}
    size = (per[W.NEED_LNODE] * np.asarray(level_nodes, np.int64)
            + (per[W.NEED_LENT] + per[W.NEED_LBUCK]) * np.asarray(level_entries, np.int64))
    if size.shape[0] < 2:
        return int(3 * size.sum())
    return int((size[:-1] + 2 * np.maximum(size[:-1], size[1:])).max())


def _check_keys(h):
    """Refuse two information sets with one key ``h`` (a hash collision, or one set in two public
    nodes). One sorted copy of the keys (the turn-limit-4 count checks 114 million)."""
    s = np.sort(h)
    if s.shape[0] > 1 and bool(np.any(s[1:] == s[:-1])):
        raise ValueError("the class walk found one information-set key twice (a hash collision, or "
                         "an information set in two public nodes): these rules need the history "
                         "tree")


def _size(rules, G, ln, le, work, sec, parts=()):
    return ClassSize(rules, int(G[CC.G_NODES]), int(G[CC.G_ENTRIES]), int(G[CC.G_INFOSETS]),
                     int(G[CC.G_ACTIONS]), int(G[CC.G_MATRICES]), int(G[CC.G_DENSE]),
                     int(G[CC.G_DECHIST]), int(G[CC.G_PAIRS]), _pair_kinds(G),
                     int(G[CC.G_STEPPED]), ln, le, work, sec, int(G[CC.G_CELLS]),
                     int(G[CC.G_ROWS]), parts)


def _pair_kinds(G):
    term, chance = int(G[CC.G_TERMPAIRS]), int(G[CC.G_CHPAIRS])
    return (int(G[CC.G_PAIRS]) - term - chance, chance, term)


def written(O, G, level_nodes):
    """What a walk writing the tree wrote into ``O`` (counters ``G``, ``level_nodes`` per level),
    cut to its sizes (views): the :class:`~solvers.trees.publictree.PublicFlat` fields, the action ids and the
    Coup extras (keys, contexts, hands)."""
    n, e, ni = int(G[CC.G_NODES]), int(G[CC.G_ENTRIES]), int(G[CC.G_INFOSETS])
    na, nm = int(G[CC.G_ACTIONS]), int(G[CC.G_MATRICES])
    cells, rows = int(O.matrix_start[nm]), int(O.matrix_rowp[nm])
    if (cells, rows) != (int(G[CC.G_CELLS]), int(G[CC.G_ROWS])):
        raise AssertionError(f"the class walk's matrices end at cell {cells:,} and row pointer "
                             f"{rows:,}, its counters say {int(G[CC.G_CELLS]):,} and "
                             f"{int(G[CC.G_ROWS]):,}")
    size = dict.fromkeys(_NODE_ARRAYS, n)
    size.update(dict.fromkeys(_ENTRY_ARRAYS, e), **dict.fromkeys(_INFOSET_ARRAYS, ni))
    size.update(infoset_hash=ni, infoset_actions=na, matrix_cols=nm, matrix_start=nm + 1,
                matrix_rowp=nm + 1, row_ptr=rows, cell_col=cells, matrix_data=cells)
    arrays = {k: getattr(O, k)[:size[k]] for k in size}
    arrays["entry_start"] = np.concatenate((arrays["entry_start"], [e]))
    arrays["level_start"] = np.concatenate(([0], np.cumsum(level_nodes, dtype=np.int64)))
    return arrays


def build_class_tree(rules: Rules, size: ClassSize | None = None, progress=None, *,
                     every_pair: bool = False) -> CoupPublicTree:
    """The public tree of two-player ``rules`` by the class walk (see the module docstring).

    With ``size`` (``count_class_tree(rules)``) the build is refused before it starts when the tree
    and the walk do not fit (both figures named), and the tree's arrays are allocated once at their
    final sizes; without it they grow as the walk goes (each growth checked). ``every_pair`` steps
    every pair of buckets at a decision instead of one per bucket of the seat the step reads
    (:func:`coupsolve.engine.step_reads`): the same tree, slower (the tests' check of the reuse)."""
    if size is not None:
        if not isinstance(size, ClassSize) or size.rules != rules:
            raise ValueError("size must be count_class_tree(rules) of these very rules")
        check_fits(size.tree_bytes() + size.build_bytes(),
                   f"the public tree of {rules} ({size.nodes:,} public nodes, {size.infosets:,} "
                   f"information sets) and its walk")
    O, G, ln, le, work, sec = _walk(rules, True, progress, size, every_pair)
    _check_keys(O.infoset_hash[:G[CC.G_INFOSETS]])
    arrays = written(O, G, ln)
    tree = PublicTree(rules.game_string(), infoset_actions=arrays["infoset_actions"],
                      **{k: arrays[k] for k in PublicFlat._fields})
    info = dict(count_seconds=0.0, fill_seconds=sec, bytes=tree.nbytes, work_bytes=work,
                pairs=int(G[CC.G_PAIRS]), pairs_by_kind=_pair_kinds(G),
                stepped=int(G[CC.G_STEPPED]), level_entries=le.tolist())
    return CoupPublicTree(tree, arrays["infoset_hash"], arrays["infoset_context"],
                          arrays["entry_hand"], rules, info)
