"""The leaves of a public tree rooted mid-game (:mod:`coupsolve.trees.rooted`), valued by seeded
rollouts of a blueprint and its biased continuations: what a re-solve's depth-limited game stands on.

The rooted walk records every history at its terminal public nodes with its state
(``build_rooted_public_tree(..., leaf_states=True)``). From each distinct leaf state the rest of the
game is played ``rollouts`` times per pair of continuations (:func:`solvers.mccfr.rollout.play_rows`,
the kernel :mod:`coupsolve.depth.rollouts` uses for a cut from the game's start), and a pair of private
states at a leaf is worth the chance-weighted mean over its histories
(Brown, Sandholm and Amos, "Depth-limited solving for imperfect-information games", NeurIPS 2018).

The blueprint keys its decisions by features of the state, some of them from the past: each player's
most recent claim, whether it ever claimed the Duke and (version 3 of the key) how many times it
claimed each character. A leaf's state gets them as they stood at the tree's root
(:meth:`~coupsolve.search.blueprint.Blueprint.features_state` of the root's history), then the claims
of the turn it ends, which its state still declares (the action's and the block's), less those the
root's history holds already (a root in the middle of a turn, after its claim, counts the claim once).
With a lookahead of one turn that is every claim, and the leaf's state is exactly the one the game
without the cut reaches. Looking further ahead, the claims of the turns between are not in it: the
continuations are then the blueprint read with those features as recorded (the counts short of those
turns' claims), strategies of the rest of the game all the same (they depend only on what their
player observes), so the leaf values are still exact values of a pair of strategies, as multi-valued
leaves require, up to the rollouts' noise.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.mccfr.rollout import state_hash
from solvers.trees.derive import parents
from solvers.trees.leaves import public_leaf_pairs

from coupsolve import engine as E
from coupsolve.engine.core import next_living
from coupsolve.engine.flow import next_turn
from coupsolve.depth.continuations import CONTINUATIONS, check_count
from coupsolve.depth.public import WEIGHT_RTOL, JoinedLeaves, group_starts, public_leaves
from coupsolve.depth.rollouts import play_states
from coupsolve.depth.values import LeafValues
from coupsolve.sampling.keys import record_claim, rekey

__all__ = ["distinct_rows", "rooted_leaf_values", "through"]


@njit(cache=True, inline="always")
def _last_turns_claims(s, root):
    """The claims of the turn a leaf's state ends, still in its declaration: the actor's action's
    and the blocker's; in the root's own turn, only those declared after the root (the tail holds the
    others: ``root`` is the root's turn and whether it had declared its action and its block)."""
    same = s[E.S_TURN] == root[0]
    kind = s[E.S_ACTION]
    claim = E.ACTION_CLAIM[kind] if kind >= 0 else -1
    if claim >= 0 and not (same and root[1]):
        record_claim(s, s[E.S_ACTOR], E.CLAIM_CHAR[claim])
    if s[E.S_BLOCKER] >= 0 and s[E.S_BLOCK_CHAR] >= 0 and not (same and root[2]):
        record_claim(s, s[E.S_BLOCKER], s[E.S_BLOCK_CHAR])


def _root_declared(state):
    """What :func:`_rows` needs of the root's state (``int32[S_SIZE]`` or longer): its turn, whether its
    action was declared and whether a block was (int64, (3,))."""
    return np.array([state[E.S_TURN], state[E.S_ACTION] >= 0, state[E.S_BLOCKER] >= 0], np.int64)


@njit(cache=True)
def _rows(P, W, engine, tail, root, states, hashes, keys):
    """The features game's rows of the leaf states ``engine`` (each followed by ``tail``, the features
    at the root; ``root``: :func:`_root_declared`), the acting player's keys and a 64-bit hash of each
    row (its rollouts' seed). A leaf's state is as the cut game ended it, at its turn limit; under the
    blueprint's rules (``P``) the next turn begins, as it would have in the game without the cut."""
    for i in range(engine.shape[0]):
        states[i, :E.S_SIZE] = engine[i]
        states[i, E.S_SIZE:] = tail
        s = states[i]
        _last_turns_claims(s, root)
        s[E.S_ACTOR] = next_living(P, s, s[E.S_ACTOR])
        next_turn(P, s)
        rekey(P, states[i], hashes[i], W)
        keys[i] = state_hash(states[i], states.shape[1])  # as the history tree's leaf rows key theirs


#: Odd 64-bit multipliers of :func:`distinct_rows`'s row hash (fixed: the result does not depend on them).
_MIX = np.random.default_rng(0x5EED).integers(1, 2**63, size=256, dtype=np.uint64) | np.uint64(1)


def distinct_rows(a, chunk=1 << 16):
    """``np.unique(a, axis=0, return_inverse=True)`` of a 2-D integer array, the same arrays, at a
    fraction of the cost on many rows: the rows are hashed to 64 bits and sorted by hash (``np.unique``
    on rows sorts them as byte strings), only the distinct ones compared whole; should two distinct
    rows share a hash, the exact ``np.unique`` is used instead."""
    a = np.ascontiguousarray(a)
    if a.shape[0] == 0 or a.shape[1] > _MIX.size:
        uniq, inverse = np.unique(a, axis=0, return_inverse=True)
        return uniq, inverse.reshape(-1)
    mix = _MIX[:a.shape[1]]
    h = np.empty(a.shape[0], np.uint64)
    for lo in range(0, a.shape[0], chunk):
        h[lo:lo + chunk] = (a[lo:lo + chunk].astype(np.uint64) * mix).sum(axis=1)  # wraps mod 2**64
    _, first, by_hash = np.unique(h, return_index=True, return_inverse=True)
    reps = a[first]
    for lo in range(0, a.shape[0], chunk):
        if not np.array_equal(reps[by_hash[lo:lo + chunk]], a[lo:lo + chunk]):
            uniq, inverse = np.unique(a, axis=0, return_inverse=True)
            return uniq, inverse.reshape(-1)
    uniq, rep_row = np.unique(reps, axis=0, return_inverse=True)
    return uniq, rep_row.reshape(-1)[by_hash]


def through(f, infoset, node, entry):
    """Which of the histories at public nodes ``node`` (below ``infoset``'s node, a flat public tree
    ``f``'s information set), with entries ``entry`` (``(histories, 2)``, local to their node), pass
    through ``infoset``: their acting player's entry, followed up the tree to that node, is the set's."""
    top, player = int(f.infoset_node[infoset]), int(f.infoset_player[infoset])

    def first(v):  # the player's first entry at nodes v
        return f.entry_start[v] + (f.num_entries0[v] if player == 1 else 0)

    own = np.arange(first(top), f.entry_start[top + 1])
    own = own[f.entry_ref[own] == infoset] - first(top)
    parent = parents(f)
    node, e = np.array(node, np.int64), np.array(entry[:, player], np.int64)
    up = node > top  # a node below ``top`` comes after it in level order
    while up.any():
        v = node[up]
        e[up] = f.entry_parent[first(v) + e[up]]
        node[up] = parent[v]
        up = node > top
    return (node == top) & np.isin(e, own)


def rooted_leaf_values(rooted, blueprint, history, k: int = 2, *, rollouts: int = 4, seed: int = 0,
                       threads: int = 1, budget: int | None = None, focus: int | None = None,
                       focus_rollouts: int = 0, focus_budget: int | None = None):
    """``(JoinedLeaves, LeafValues)`` of ``rooted`` (a tree built with ``leaf_states=True``, of the
    blueprint's rules cut at some turn) under ``k`` continuations of ``blueprint`` (a
    :class:`~coupsolve.search.blueprint.Blueprint`), ``rollouts`` games per distinct leaf state and pair
    of continuations, seeded by ``seed``, on ``threads`` threads (the values do not depend on how many);
    ``history``: the root's history from the game's start (its
    claims, module docstring). The joined leaves go to
    :func:`coupsolve.depth.public.public_depth_limited_game`; the leaf values' rows are the distinct
    leaf states, with standard errors. With a ``budget`` (games in all), fewer rollouts per leaf state,
    at least one, when the leaf states are too many for ``rollouts`` each: the values are then
    noisier, and their standard errors say so.

    ``focus`` (an information set of ``rooted.tree``) and ``focus_rollouts``: the leaf states of the
    histories through it are played ``focus_rollouts`` times instead (at least ``rollouts``), under
    ``focus_budget`` games in all (None: no cap). A re-solve plays the move of the hand its player holds, which
    weighs that hand's leaf values against the other's range alone; the other hands' values are
    averaged over both ranges, so fewer rollouts of them cost less precision."""
    k = check_count(k)
    L = rooted.leaf_histories
    if L is None:
        raise ValueError("the rooted tree was built without leaf_states")
    leaves = public_leaves(rooted)
    at = np.flatnonzero(np.isin(L.node, leaves))
    uniq, row_of = distinct_rows(L.state[at])
    g = blueprint.game
    states = np.zeros((uniq.shape[0], g.state_size), np.int32)
    hashes = np.zeros((uniq.shape[0], g.num_players, 2), np.uint64)
    keys = np.zeros(uniq.shape[0], np.uint64)
    at_root = blueprint.features_state(history)
    _rows(g.params, g.scratch, np.ascontiguousarray(uniq), at_root[E.S_SIZE:].copy(), _root_declared(at_root), states,
          hashes, keys)
    focused = np.zeros(uniq.shape[0], bool)
    if focus is not None:
        focused[row_of.reshape(-1)[through(rooted.tree.flat, focus, L.node[at], L.entry[at])]] = True
    mean = np.zeros((uniq.shape[0], k, k))
    stderr = np.zeros_like(mean)
    counts = []
    for rows, want, cap in ((~focused, rollouts, budget), (focused, max(rollouts, focus_rollouts), focus_budget)):
        n = int(rows.sum())
        if n == 0:
            continue
        if cap is not None:
            want = max(1, min(want, int(cap) // max(1, n * k * k)))
        mean[rows], stderr[rows] = play_states(g, "features", blueprint.table, blueprint.warm > 0, states[rows],
                                               hashes[rows], keys[rows], k, rollouts=want, seed=seed,
                                               threads=threads)
        counts.append(want)
    pairs = public_leaf_pairs(rooted.tree, leaves)
    leaf = np.searchsorted(leaves, L.node[at])
    e0, e1 = L.entry[at, 0], L.entry[at, 1]
    order, first = group_starts(leaf, e0, e1)
    w, rows, head = L.prob[at][order], row_of.reshape(-1)[order], order[first]
    if not (first.size == pairs.leaf.size and np.array_equal(leaf[head], pairs.leaf)
            and np.array_equal(e0[head], pairs.entry0) and np.array_equal(e1[head], pairs.entry1)):
        raise ValueError("the recorded leaf histories are not the public leaves' pairs of entries")
    weight = np.add.reduceat(w, first)
    if not np.allclose(weight, pairs.weight, rtol=WEIGHT_RTOL * 1e3, atol=0.0):
        raise ValueError("the recorded leaf histories weigh a pair of entries otherwise than the tree")
    values = np.stack([np.add.reduceat(w[:, None] * mean[rows, c], first) for c in range(k)], axis=1) \
        / weight[:, None, None]
    played = " or ".join(str(c) for c in dict.fromkeys(counts)) or str(rollouts)
    source = f"{played} rollouts (seed {seed}) of {blueprint.source}"
    leaf_values = LeafValues(L.node[at], mean, CONTINUATIONS[:k], source, stderr=stderr, states=uniq.shape[0],
                             row_of=row_of.reshape(-1))
    return JoinedLeaves(rooted, leaves, pairs, values), leaf_values
