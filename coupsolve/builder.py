"""The fast Coup tree builder: the engine walked in compiled code, straight into a ``solvers.GameTree``.

Two depth-first passes over the game, both in numba with an explicit stack (no Python per node):

1. *count*: nodes per level and decision nodes. This gives the exact size of the tree, so the memory
   is checked (and a tree that will not fit refused) before anything large is allocated.
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
on demand by replaying one of its histories through the OpenSpiel state, so keys are the observer's
``information_state_string`` exactly, with no per-infoset Python objects in memory.

Memory: the tree itself is ``GameTree.estimate_bytes``; the builder adds the stack (small), the
information-set dictionary (about ``INFOSET_DICT_BYTES`` per information set) and 32 bytes per
information set of bookkeeping.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit, types

from solvers.tree import GameTree
from solvers.memory import check_fits, format_bytes

from . import engine as E
from .rules import Rules

INFOSET_DICT_BYTES = 64  # numba typed dict entry (key, value, hash, index) with slack for growth
HASH_MUL = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F))
HASH_SEED = (np.uint64(0x243F6A8885A308D3), np.uint64(0x13198A2E03707344))

OK = 0
ERR_COLLISION = 1
ERR_RECALL = 2


@njit(cache=True, inline="always")
def _mix(h, token, mul):
    return (h ^ np.uint64(token + 1)) * mul + np.uint64(0x632BE59BD9B4E019)


@njit(cache=True)
def _walk(P, max_depth, fill, level_count, level_start,
          node_kind, node_player, node_infoset, child_start, num_children, chance_prob, payoff,
          table, is_h2, is_player, is_nact, is_rep, is_actions, context, counts):
    """Walk the whole game depth-first. ``fill=False``: count nodes per level into ``level_count``.

    ``fill=True``: write the node arrays and information sets. ``counts`` returns
    ``[nodes, decision nodes, decision children, infosets, infoset actions, error node]``.
    Returns a status code.
    """
    S = E.S_SIZE
    D = max_depth + 1
    st = np.zeros((D, S), dtype=np.int32)
    h = np.zeros((D, 2, 2), dtype=np.uint64)  # per depth, per player, the two hashes
    node = np.zeros(D, dtype=np.int64)
    nxt = np.zeros(D, dtype=np.int64)  # next child to visit
    nch = np.zeros(D, dtype=np.int64)
    acts = np.zeros((D, E.MAX_MOVES), dtype=np.int32)
    probs = np.zeros((D, E.MAX_MOVES), dtype=np.float64)
    ev = np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), dtype=np.int32)
    buf = np.zeros(E.MAX_MOVES, dtype=np.int32)
    pbuf = np.zeros(E.MAX_MOVES, dtype=np.float64)
    ret = np.zeros(E.MAXP, dtype=np.float64)
    free = np.zeros(D + 1, dtype=np.int64)
    if fill:
        for d in range(min(D + 1, level_start.shape[0])):
            free[d] = level_start[d]
    n_infosets = 0
    n_actions = 0

    ne = E.initial_state(P, st[0], ev, buf, pbuf)
    for p in range(2):
        h[0, p, 0] = HASH_SEED[0] + np.uint64(p)
        h[0, p, 1] = HASH_SEED[1] + np.uint64(p)
    for i in range(ne):
        for p in range(2):
            tok = ev[i, 1] if (ev[i, 0] < 0 or ev[i, 0] == p) else ev[i, 2]
            h[0, p, 0] = _mix(h[0, p, 0], tok, HASH_MUL[0])
            h[0, p, 1] = _mix(h[0, p, 1], tok, HASH_MUL[1])

    depth = 0
    node[0] = 0
    if fill:
        free[0] = 1
    counts[0] = 0
    counts[1] = 0
    counts[2] = 0
    entered = True
    while depth >= 0:
        s = st[depth]
        if entered:
            entered = False
            counts[0] += 1
            if not fill:
                level_count[depth] += 1
            v = node[depth]
            if E.is_terminal(s):
                if fill:
                    E.returns(P, s, ret)
                    node_kind[v] = 2
                    node_player[v] = -1
                    node_infoset[v] = -1
                    child_start[v] = free[depth + 1]
                    num_children[v] = 0
                    payoff[v] = ret[0]
                nch[depth] = 0
            elif E.is_chance(s):
                k = E.chance_outcomes(P, s, acts[depth], probs[depth])
                nch[depth] = k
                if fill:
                    node_kind[v] = 1
                    node_player[v] = -1
                    node_infoset[v] = -1
            else:
                k = E.legal_actions(P, s, acts[depth])
                nch[depth] = k
                p = E.current_player(s)
                counts[1] += 1
                counts[2] += k
                if fill:
                    node_kind[v] = 0
                    node_player[v] = p
                    if context.shape[0] > 0:
                        context[v] = E.node_context(s)
                    key = h[depth, p, 0]
                    h2 = h[depth, p, 1]
                    if key in table:
                        I = table[key]
                        if is_h2[I] != h2:
                            counts[5] = v
                            return ERR_COLLISION
                        if is_nact[I] != k or is_player[I] != p:
                            counts[5] = v
                            return ERR_RECALL
                    else:
                        I = n_infosets
                        if I >= is_h2.shape[0]:
                            counts[5] = v
                            return 3  # capacity (the caller sized it from the decision count)
                        table[key] = I
                        is_h2[I] = h2
                        is_player[I] = p
                        is_nact[I] = k
                        is_rep[I] = v
                        for j in range(k):
                            is_actions[n_actions + j] = acts[depth, j]
                        n_actions += k
                        n_infosets += 1
                    node_infoset[v] = I
            if fill and nch[depth] > 0:
                child_start[v] = free[depth + 1]
                num_children[v] = nch[depth]
                free[depth + 1] += nch[depth]
            nxt[depth] = 0
        # descend into the next child, or climb
        j = nxt[depth]
        if j < nch[depth]:
            nxt[depth] = j + 1
            c = st[depth + 1]
            c[:] = s
            ne = E.apply(P, c, acts[depth, j], ev, 0, buf, pbuf)
            for p in range(2):
                a0 = h[depth, p, 0]
                a1 = h[depth, p, 1]
                for i in range(ne):
                    tok = ev[i, 1] if (ev[i, 0] < 0 or ev[i, 0] == p) else ev[i, 2]
                    a0 = _mix(a0, tok, HASH_MUL[0])
                    a1 = _mix(a1, tok, HASH_MUL[1])
                h[depth + 1, p, 0] = a0
                h[depth + 1, p, 1] = a1
            if fill:
                w = child_start[node[depth]] + j
                node[depth + 1] = w
                chance_prob[w] = probs[depth, j] if E.is_chance(s) else 1.0
            depth += 1
            entered = True
        else:
            depth -= 1
    counts[3] = n_infosets
    counts[4] = n_actions
    return OK


def _max_depth(rules: Rules) -> int:
    return E.game_bounds(rules.params())[0]


def count_tree(rules: Rules) -> dict:
    """Walk the game once without storing it: nodes per level, decision nodes and their children."""
    _check_two_players(rules)
    D = _max_depth(rules) + 1
    level_count = np.zeros(D + 1, dtype=np.int64)
    counts = np.zeros(6, dtype=np.int64)
    empty8, empty32, empty64, emptyf = (np.zeros(0, np.int8), np.zeros(0, np.int32),
                                        np.zeros(0, np.int64), np.zeros(0, np.float64))
    t0 = time.perf_counter()
    status = _walk(rules.params(), D - 1, False, level_count, empty64, empty8, empty8, empty32, empty64,
                   empty32, emptyf, emptyf, _new_table(), np.zeros(0, np.uint64), empty8, empty32, empty64,
                   empty32, empty32, counts)
    assert status == OK
    levels = level_count[level_count > 0]
    return {"nodes": int(counts[0]), "decision_nodes": int(counts[1]), "decision_children": int(counts[2]),
            "levels": levels, "seconds": time.perf_counter() - t0}


def estimate_build_bytes(size: dict) -> int:
    """Bytes of the tree (an upper bound: every decision node counted as its own information set)."""
    d, a = size["decision_nodes"], size["decision_children"]
    tree = GameTree.estimate_bytes(size["nodes"], d, a, len(size["levels"]))
    return tree + d * (INFOSET_DICT_BYTES + 8 + 1 + 4 + 8)


def _new_table():
    return numba.typed.Dict.empty(key_type=types.uint64, value_type=types.int64)


def _check_two_players(rules: Rules):
    if rules.players != 2:
        raise ValueError(f"players: the solvers handle two-player zero-sum games; these rules have "
                         f"{rules.players} players")


def build_tree(rules: Rules, *, context: bool = False, verbose: bool = False) -> GameTree:
    """The whole game tree of two-player ``rules`` as a :class:`solvers.GameTree`.

    With ``context=True`` the tree also carries ``tree.node_context`` (int32 per node: the packed
    decision context of :func:`coupsolve.engine.node_context`, for :mod:`coupsolve.analysis`).

    Raises ``MemoryError`` (naming the estimate and the memory available) before allocating a tree
    that will not fit, and ``ValueError`` for rules the solvers cannot take (more than two players).
    ``tree.build_info`` holds the sizes and the seconds of each pass.
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"build_tree takes a coupsolve.Rules, got {type(rules).__name__}")
    size = count_tree(rules)
    need = estimate_build_bytes(size) + (4 * size["nodes"] if context else 0)
    check_fits(need, f"the game tree of {rules} ({size['nodes']:,} histories)")
    if verbose:
        print(f"{size['nodes']:,} histories in {len(size['levels'])} levels; "
              f"at most {format_bytes(need)} to build (count pass {size['seconds']:.1f} s)")
    t0 = time.perf_counter()
    n, dn, da = size["nodes"], size["decision_nodes"], size["decision_children"]
    levels = size["levels"]
    level_start = np.zeros(len(levels) + 1, dtype=np.int64)
    level_start[1:] = np.cumsum(levels)
    node_kind = np.empty(n, np.int8)
    node_player = np.empty(n, np.int8)
    node_infoset = np.empty(n, np.int32)
    child_start = np.empty(n, np.int64)
    num_children = np.empty(n, np.int32)
    chance_prob = np.empty(n, np.float64)
    payoff = np.zeros(n, np.float64)
    chance_prob[0] = 1.0
    is_h2 = np.empty(dn, np.uint64)
    is_player = np.empty(dn, np.int8)
    is_nact = np.empty(dn, np.int32)
    is_rep = np.empty(dn, np.int64)
    is_actions = np.empty(da, np.int32)
    counts = np.zeros(6, dtype=np.int64)
    node_context = np.zeros(n if context else 0, np.int32)
    table = _new_table()
    status = _walk(rules.params(), _max_depth(rules), True, np.zeros(0, np.int64), level_start,
                   node_kind, node_player, node_infoset, child_start, num_children, chance_prob, payoff,
                   table, is_h2, is_player, is_nact, is_rep, is_actions, node_context, counts)
    if status == ERR_COLLISION:
        raise RuntimeError(f"information-set hash collision at history {counts[5]}: please report it "
                           "(the tree would merge two information sets)")
    if status != OK:
        raise RuntimeError(f"the tree builder failed with status {status} at history {counts[5]} "
                           "(a perfect-recall violation in the engine)")
    del table
    m, na = int(counts[3]), int(counts[4])
    num_act = is_nact[:m].copy()
    offset = np.zeros(m, dtype=np.int64)
    offset[1:] = np.cumsum(num_act)[:-1]
    rep = is_rep[:m].copy()
    fill_seconds = time.perf_counter() - t0

    renderer = _KeyRenderer(rules, level_start, child_start, rep)
    tree = GameTree(node_kind=node_kind, node_player=node_player, node_infoset=node_infoset,
                    child_start=child_start, num_children=num_children, chance_prob=chance_prob,
                    payoff=payoff, level_start=level_start, infoset_player=is_player[:m].copy(),
                    infoset_num_actions=num_act, infoset_offset=offset,
                    infoset_actions=is_actions[:na].copy(), game_id=rules_game_id(rules),
                    infoset_keys=renderer)
    tree.state_at = renderer.state  # the OpenSpiel state of history v (replayed from the root)
    tree.rules = rules
    tree.infoset_rep = rep
    tree.node_context = node_context if context else None
    tree.build_info = {"histories": n, "infosets": m, "levels": len(levels),
                       "count_seconds": size["seconds"], "fill_seconds": fill_seconds,
                       "seconds": size["seconds"] + time.perf_counter() - t0,
                       "bytes": tree.nbytes, "bytes_per_history": tree.nbytes / n}
    return tree


def rules_game_id(rules: Rules) -> str:
    """The game id of a Coup tree: the OpenSpiel game string (so a policy maps to that game)."""
    from .game import load_game

    return str(load_game(rules))


class _KeyRenderer:
    """Render an information set's key by replaying one of its histories through the OpenSpiel state."""

    def __init__(self, rules, level_start, child_start, rep):
        self.rules, self.level_start, self.child_start, self.rep = rules, level_start, child_start, rep
        self._game = None

    def path(self, v: int) -> list[int]:
        """Child indices from the root to node v (parents found by binary search per level)."""
        ls, cs = self.level_start, self.child_start
        out = []
        d = int(np.searchsorted(ls, v, side="right")) - 1
        while d > 0:
            lo, hi = ls[d - 1], ls[d]
            parent = lo + int(np.searchsorted(cs[lo:hi], v, side="right")) - 1
            out.append(v - int(cs[parent]))
            v, d = parent, d - 1
        return out[::-1]

    def state(self, v: int):
        from .game import load_game

        if self._game is None:
            self._game = load_game(self.rules)
        state = self._game.new_initial_state()
        for k in self.path(v):
            moves = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                     else state.legal_actions())
            state.apply_action(moves[k])
        return state

    def __call__(self, i: int) -> str:
        state = self.state(int(self.rep[i]))
        return state.information_state_string(state.current_player())

