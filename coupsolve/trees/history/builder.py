"""The fast Coup tree builder: the engine walked in compiled code, straight into a ``solvers.GameTree``.

Two depth-first passes over the game, both in numba with an explicit stack (no Python per node):

1. *count* (:func:`count_tree`): nodes per level and decision nodes. This gives the exact size of the
   tree (a :class:`TreeSize`), so the memory is checked (and a tree that will not fit refused) before
   anything large is allocated; a caller that already counted (the command line sizes the tree before
   building it) passes the :class:`TreeSize` to the build, which then does not count again.
2. *fill*: the level-ordered arrays of :class:`solvers.GameTree`. The children of a node are given a
   contiguous block of the next level when the node is expanded; since a depth-first walk expands the
   nodes of a level in index order, level ``d + 1`` is the concatenation of the children of level
   ``d`` in order, as ``GameTree`` requires.

Information sets come from each player's own observation sequence (the engine's event tokens, exactly
what the OpenSpiel observer prints): a decision node belongs to the information set of the acting
player's token sequence. Each sequence is hashed with two independent 64-bit polynomial hashes; the
first keys a dictionary of information sets and the second is stored and compared on every hit, so a
collision of the first hash is detected and reported instead of merging two information sets (both
colliding at once has probability about 2^-64 per pair). An information set's key string is rendered
on demand by replaying one of its histories through the OpenSpiel state
(:class:`coupsolve.trees.history.tree.KeyRenderer`), so keys are the observer's ``information_state_string``
exactly, with no per-infoset Python objects in memory.

Memory (:func:`estimate_build_bytes`, an estimate of the peak, not an upper bound, since an upper bound
counting every decision node as its own information set was twice the measured peak): the tree itself,
``solvers.estimate_tree_bytes`` (34 bytes per history, 13 per information set, 4 per action), plus
``INFOSET_BUILD_BYTES`` (85) per information set and 4 per action for the build's information-set
bookkeeping. The information sets and their actions are estimated by the count
(:mod:`coupsolve.trees.history.sketch`); the buffers sized by the decision nodes are allocated with ``np.empty`` and
only the pages the walk writes are taken. With ``context=True``, 4 bytes per history for the node
context. Both walks poll a control array every 65,536 histories, so a budget (``count_tree(max_nodes=)``)
ends a count early and Ctrl-C stops either within about a second (:mod:`coupsolve.trees.background`).

The passes are this module's :func:`count_tree` and :func:`fill_tree`; :mod:`coupsolve.trees.history.tree` turns
a filled walk into the game-agnostic ``GameTree`` (:func:`coupsolve.build_tree`) or into a
:class:`coupsolve.CoupTree` holding one with the Coup-side extras (:func:`coupsolve.build_coup_tree`).
"""

from __future__ import annotations

import time
import numba
import numpy as np
from numba import njit, types

from solvers import CHANCE, DECISION, TERMINAL
from solvers.memory import check_fits, format_bytes

from coupsolve import engine as E
from coupsolve.engine.hashing import absorb, seed_hashes
from coupsolve.trees import check_rules, max_depth
from coupsolve.trees.background import run_interruptibly
from coupsolve.trees.history.arrays import allocate, empty_infosets, empty_nodes
from coupsolve.rules import Rules
from coupsolve.engine.tables import P_PLAYERS
from coupsolve.trees.history.sketch import new_sketch, sketch_add, sketch_estimate
from coupsolve.trees.history.size import (SizeMismatch, TreeSize, TreeTooLarge, check_size,
                                          estimate_build_bytes)


OK = 0
ERR_COLLISION = 1
ERR_RECALL = 2
ERR_CAPACITY = 3
ERR_STOPPED = 4  # control[0] set (Ctrl-C) or more histories than the budget control[1]
POLL_MASK = 0xFFFF  # the walk polls its control every 65,536 histories


@njit(cache=True, nogil=True)
def _walk(P, max_depth, fill, out, table, iset, counts, control, sketch):
    """Walk the whole game depth-first with an explicit stack (one level of state per depth).

    ``fill=False``: count nodes per level into ``out.level_count``. ``fill=True``: write ``out`` and
    the information sets (``table`` maps the first hash to an index into ``iset``). ``counts``
    (int64, 8) returns ``[nodes, decision nodes, decision children, infosets, infoset actions, node of
    the error, chance nodes, chance edges, limit leaves recorded]``. Returns a status code (``OK``, ``ERR_*``:
    ``ERR_COLLISION`` for the same first hash with another second, ``ERR_RECALL`` for the same key with
    another owner or action count, ``ERR_STOPPED`` when the polled ``control`` (int64, 2) asks it to:
    ``control[0]`` non-zero (Ctrl-C) or more than ``control[1]`` histories walked). When counting,
    every decision node's information-set key goes into ``sketch`` (uint8, :mod:`coupsolve.trees.history.sketch`;
    empty: not kept).

    It is longer than 80 lines (about 115 besides this docstring): the stack is allocated here and a
    node's classification and information set are written inline, because allocated by another
    function (the compiler then cannot tell the buffers apart), or with the information set or the
    classification in a function of its own (even inlined by numba), the walk took longer
    (docs/research/design-measurements.md).
    """
    D = max_depth + 1
    n_players = P[P_PLAYERS]
    st = np.zeros((D, E.S_SIZE), dtype=np.int32)  # the state at each depth of the stack
    h = np.zeros((D, n_players, 2), dtype=np.uint64)  # per depth, per player, the two hashes
    node = np.zeros(D, dtype=np.int64)
    nxt = np.zeros(D, dtype=np.int64)  # next child to visit
    nch = np.zeros(D, dtype=np.int64)
    acts = np.zeros((D, E.MAX_MOVES), dtype=np.int32)
    probs = np.zeros((D, E.MAX_MOVES), dtype=np.float64)
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    buf = np.zeros(E.MAX_MOVES, dtype=np.int32)
    pbuf = np.zeros(E.MAX_MOVES, dtype=np.float64)
    ret = np.zeros(E.MAXP, dtype=np.float64)
    free = np.zeros(max_depth + 2, dtype=np.int64)  # next free slot per level (fill)
    if fill:
        for d in range(min(max_depth + 2, out.level_start.shape[0])):
            free[d] = out.level_start[d]
        free[0] = 1
    seed_hashes(h[0])
    absorb(h, 0, 0, ev, E.initial_state(P, st[0], ev, buf, pbuf))
    n_infosets = 0
    n_actions = 0
    counts[:3] = 0
    counts[6:] = 0  # and the limit leaves (``out.leaf_node``, when wanted)
    depth = 0
    node[0] = 0
    entered = True
    while depth >= 0:
        s = st[depth]
        if entered:
            entered = False
            counts[0] += 1
            if (counts[0] & POLL_MASK) == 0 and (control[0] != 0 or counts[0] > control[1]):
                return ERR_STOPPED
            v = node[depth]
            if not fill:
                out.level_count[depth] += 1
            p = -1
            if E.is_terminal(s):
                k = 0
                if fill:
                    E.returns(P, s, ret)
                    out.node_kind[v] = TERMINAL
                    out.node_player[v] = -1
                    out.node_infoset[v] = -1
                    out.payoff[v] = ret[0]
                    for q in range(out.payoffs.shape[1]):
                        out.payoffs[v, q] = ret[q]
                    if out.leaf_node.shape[0] > 0 and s[E.S_WINNER] < 0:  # ended at the turn limit
                        if counts[8] >= out.leaf_node.shape[0]:
                            counts[5] = v
                            return ERR_CAPACITY
                        out.leaf_node[counts[8]] = v
                        out.leaf_key[counts[8]] = h[depth]
                        counts[8] += 1
            elif E.is_chance(s):
                k = E.chance_outcomes(P, s, acts[depth], probs[depth])
                counts[6] += 1
                counts[7] += k
                if fill:
                    out.node_kind[v] = CHANCE
                    out.node_player[v] = -1
                    out.node_infoset[v] = -1
            else:
                k = E.legal_actions(P, s, acts[depth])
                p = E.current_player(s)
                counts[1] += 1
                counts[2] += k
                if sketch.shape[0] > 0:
                    sketch_add(sketch, h[depth, p, 0])
                if fill:
                    out.node_kind[v] = DECISION
                    out.node_player[v] = p
                    if out.context.shape[0] > 0:
                        out.context[v] = E.node_context(s)
            nch[depth] = k
            if fill:
                if p >= 0:  # the information set of the acting player's sequence, made if new
                    key = h[depth, p, 0]
                    if key in table:
                        I = table[key]
                        if iset.h2[I] != h[depth, p, 1]:  # same first hash, another second
                            counts[5] = v
                            return ERR_COLLISION
                        if iset.nact[I] != k or iset.player[I] != p:
                            counts[5] = v
                            return ERR_RECALL
                    else:
                        I = n_infosets
                        if I >= iset.h2.shape[0] or n_actions + k > iset.actions.shape[0]:
                            counts[5] = v  # sized by the caller from a count that was not this tree's
                            return ERR_CAPACITY
                        table[key] = I
                        iset.h2[I] = h[depth, p, 1]
                        iset.player[I] = p
                        iset.nact[I] = k
                        iset.rep[I] = v
                        for a in range(k):
                            iset.actions[n_actions + a] = acts[depth, a]
                        n_actions += k
                        n_infosets += 1
                    out.node_infoset[v] = I
                if k > 0 and (depth + 2 >= out.level_start.shape[0]
                              or free[depth + 1] + k > out.level_start[depth + 2]
                              or free[depth + 1] + k > out.node_kind.shape[0]):
                    counts[5] = v  # the next level's block is full: the size was not this tree's
                    return ERR_CAPACITY
                out.child_start[v] = free[depth + 1]
                out.num_children[v] = k
                free[depth + 1] += k
            nxt[depth] = 0
        j = nxt[depth]  # descend into the next child, or climb
        if j < nch[depth]:
            nxt[depth] = j + 1
            c = st[depth + 1]
            c[:] = s
            absorb(h, depth, depth + 1, ev, E.apply(P, c, acts[depth, j], ev, 0, buf, pbuf))
            if fill:
                w = out.child_start[node[depth]] + j
                node[depth + 1] = w
                out.chance_prob[w] = probs[depth, j] if E.is_chance(s) else 1.0
            depth += 1
            entered = True
        else:
            depth -= 1
    counts[3] = n_infosets
    counts[4] = n_actions
    return OK


def _compile_for(args) -> float:
    """Compile :func:`_walk` for the types of ``args`` (or read it from numba's disk cache) unless it
    already is, so that a count's or a fill's seconds and progress are the walk's alone; the seconds
    that took (0.0 when already compiled)."""
    if _walk.signatures:
        return 0.0
    t0 = time.perf_counter()
    _walk.compile(tuple(numba.typeof(a) for a in args))
    return time.perf_counter() - t0


def _run_walk(args, counts, control, progress):
    """Run :func:`_walk` on ``args`` so that Ctrl-C stops it; ``progress(histories so far)`` each second."""
    report = None if progress is None else (lambda: progress(int(counts[0])))
    return run_interruptibly(_walk, args, control, report)


def _control(max_nodes):
    return np.array([0, np.iinfo(np.int64).max if max_nodes is None else int(max_nodes)], np.int64)


def count_tree(rules: Rules, *, max_nodes: int | None = None, progress=None) -> TreeSize:
    """Walk the game once without storing it: nodes per level, decision nodes and their children.

    Parameters
    ----------
    rules : Rules
        Rules of any number of players.
    max_nodes : int, optional
        A budget: stop (``TreeTooLarge``) as soon as the walk has counted more histories than this
        (checked every 65,536 histories), so a refusal on memory does not wait for the whole count.
    progress : callable, optional
        Called with the histories counted so far, about once a second. Ctrl-C stops the walk within
        about a second (``KeyboardInterrupt``).

    Returns
    -------
    TreeSize
        To pass to the build (``size=``), which then does not count again.

    Raises
    ------
    TypeError
        Not a ``Rules``.
    TreeTooLarge
        More histories than ``max_nodes``.
    """
    check_rules(rules)
    D = max_depth(rules) + 1
    level_count = np.zeros(D + 1, dtype=np.int64)
    counts = np.zeros(9, dtype=np.int64)
    sketch = new_sketch()
    control = _control(max_nodes)
    args = (rules.params(), D - 1, False, empty_nodes(level_count), _new_table(), empty_infosets(), counts,
            control, sketch)
    _compile_for(args)  # a minute on the first run: ``seconds`` times the count alone
    t0 = time.perf_counter()
    status = _run_walk(args, counts, control, progress)
    if status == ERR_STOPPED:
        raise TreeTooLarge(f"the game tree of {rules} has more than {max_nodes:,} histories "
                           f"(the count stopped at {int(counts[0]):,})", int(counts[0]))
    assert status == OK
    nodes, decisions, children = (int(x) for x in counts[:3])
    infosets = min(decisions, sketch_estimate(sketch))
    actions = min(children, round(infosets * children / max(decisions, 1)))
    return TreeSize(rules, nodes, decisions, children, level_count[level_count > 0],
                    time.perf_counter() - t0, infosets, actions, int(counts[6]), int(counts[7]))


def _new_table():
    return numba.typed.Dict.empty(key_type=types.uint64, value_type=types.int64)


def fill_tree(rules: Rules, size: TreeSize | None = None, *, context: bool = False,
              leaves: bool = False, verbose: bool = False, progress=None):
    """The fill pass: ``(node arrays, information-set arrays, counts, sizes and seconds)``.

    The shared core of :func:`coupsolve.build_tree` and :func:`coupsolve.build_coup_tree`; ``size`` is counted
    when not given. Raises ``MemoryError`` before allocating a tree that will not fit.
    ``progress(histories filled, histories)`` is called about once a second; Ctrl-C stops the pass
    within about a second (``KeyboardInterrupt``). With ``leaves``, the node arrays also list the
    histories that end at the turn limit and every player's observation hashes there
    (``out.leaf_node[:counts[8]]``, ``out.leaf_key``).
    """
    check_rules(rules)
    if size is None:
        size = count_tree(rules)
    elif not isinstance(size, TreeSize) or size.rules != rules:
        raise ValueError("size must be count_tree(rules) of these very rules")
    check_size(size)
    need = estimate_build_bytes(size, context) + 8 * size.nodes * rules.players * (rules.players > 2)
    if leaves:  # a node and each player's two hashes per terminal history (an upper bound on the leaves)
        need += (8 + 16 * rules.players) * (size.nodes - size.decision_nodes - max(size.chance_nodes, 0))
    check_fits(need, f"the game tree of {rules} ({size.nodes:,} histories)")
    if verbose:
        print(f"{size.nodes:,} histories in {len(size.levels)} levels; "
              f"at most {format_bytes(need)} to build (count pass {size.seconds:.1f} s)")
    t0 = time.perf_counter()
    out, iset = allocate(size, context, leaves)
    counts = np.zeros(9, dtype=np.int64)
    control = _control(size.nodes)  # a walk past the size stops (it cannot fit the arrays)
    report = None if progress is None else (lambda done: progress(done, size.nodes))
    args = (rules.params(), max_depth(rules), True, out, _new_table(), iset, counts, control,
            np.zeros(0, np.uint8))
    compiling = _compile_for(args)  # before the progress starts (a count from the cache compiled nothing)
    t0 += compiling  # the fill's seconds leave the compile out
    status = _run_walk(args, counts, control, report)
    if status == ERR_STOPPED and control[0] != 0:
        raise KeyboardInterrupt
    if status in (ERR_STOPPED, ERR_CAPACITY) or (status == OK and (
            int(counts[0]), int(counts[1]), int(counts[2])) != (size.nodes, size.decision_nodes,
                                                                 size.decision_children)):
        raise SizeMismatch(f"the size given for the tree of {rules} ({size.nodes:,} histories, "
                           f"{size.decision_nodes:,} decisions) is not this tree's: the build stopped "
                           f"at history {int(counts[0]):,} before writing past its arrays")
    if status == ERR_COLLISION:
        raise RuntimeError(f"information-set hash collision at history {counts[5]}: please report it "
                           "(the tree would merge two information sets)")
    if status != OK:
        raise RuntimeError(f"the tree builder failed with status {status} at history {counts[5]} "
                           "(a perfect-recall violation in the engine)")
    info = {"histories": size.nodes, "infosets": int(counts[3]), "levels": len(size.levels),
            "count_seconds": size.seconds, "fill_seconds": time.perf_counter() - t0,
            "compile_seconds": compiling}
    return out, iset, counts, info


def walk_compiled() -> bool:
    """Whether the walk's kernel is compiled (in this process or in numba's disk cache): a count or a
    build then starts at once."""
    from coupsolve.engine.jit import kernel_ready

    return kernel_ready(_walk)
