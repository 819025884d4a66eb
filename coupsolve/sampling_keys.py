"""The "features" information-set abstraction of Coup for :mod:`solvers.mccfr` (imperfect recall).

The exact keys of :mod:`coupsolve.sampling` hash a player's whole observation sequence, so a
full-length game (turn limit 100) has more information sets than any table holds. Here the acting
player's key is instead hashed from what that player can act on now:

* the player's seat, and the decision context the engine holds publicly: the phase, the turn's actor,
  its declared action and target, the seat deciding a round, the challenger, the blocker and the
  block's character, the seat losing an influence and why (``S_AFTER``);
* the player's own face-down cards (and, deciding an Exchange's keep, the two drawn cards);
* for every seat: coins (capped at ``COIN_CAP``), influence and face-up cards;
* two short-history features per seat, kept in the state beside the engine's fields (``X_*``): the
  most recent character the seat claimed (by an action or a block), and whether it ever claimed the
  Duke (the issue's question is the Duke's bluff);
* the legal actions, so that a key always has one owner and one number of actions (the table's
  perfect-recall check, ``ERR_RECALL``, still holds).

The turn number, the order of past events and what the Court deck holds are not in the key. Two
histories a player can tell apart may therefore share a key: the abstraction has imperfect recall,
and MCCFR over it has no equilibrium guarantee (its average strategy is a heuristic strategy of the
full game, to be measured, e.g. head to head by :mod:`coupsolve.arena`). The base game only: rules
with a variant are refused (the variants' state is not in the key).

Only the acting player's row of the hashes ``h`` is kept up to date (the kernels read no other). The
state is the engine's ``int32[S_SIZE]`` followed by ``X_SIZE - S_SIZE`` entries of its own; the engine
never reads past ``S_SIZE``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers import _mccfr_kernel as K
from solvers import _mccfr_outcome as O

from . import engine as E
from .builder import HASH_MUL, HASH_SEED, _mix
from .sampling import coup_moves, coup_player, coup_returns
from .tables import ACTION_CLAIM, CLAIM_CHAR, DUKE, MAXP, NCH, NUM_ACTIONS

__all__ = ["FEATURES", "X_SIZE", "COIN_BUCKET", "feature_key"]

X_LAST = E.S_SIZE  # + p: the character seat p claimed most recently + 1 (0: none yet)
X_DUKE = X_LAST + MAXP  # + p: 1 once seat p has claimed the Duke (Tax or Block Foreign Aid)
X_SIZE = X_DUKE + MAXP
# coins -> bucket: 0 | 1-2 | 3-6 (can Assassinate) | 7-9 (can Coup) | 10 or more (must Coup)
COIN_BUCKET = np.array([0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4], dtype=np.int32)
_CONTEXT = (E.S_PHASE, E.S_ACTOR, E.S_ACTION, E.S_TARGET, E.S_CHALLENGER, E.S_BLOCKER, E.S_BLOCK_CHAR,
            E.S_LOSER, E.S_AFTER)


@njit(cache=True, inline="always")
def _mix2(a, tok):
    a[0] = _mix(a[0], tok, HASH_MUL[0])
    a[1] = _mix(a[1], tok, HASH_MUL[1])


@njit(cache=True)
def feature_key(P, s, p, acts, k, out):
    """The two hashes of seat ``p``'s features at the decision ``s`` (legal actions ``acts[:k]``)
    into ``out`` (uint64, (2,))."""
    out[0] = HASH_SEED[0] + np.uint64(p)
    out[1] = HASH_SEED[1] + np.uint64(p)
    for f in _CONTEXT:
        _mix2(out, s[f] + 1)
    for c in range(NCH):
        _mix2(out, s[E.S_HAND + NCH * p + c])
    if s[E.S_PHASE] == E.PH_KEEP and s[E.S_ACTOR] == p:
        for c in range(NCH):
            _mix2(out, s[E.S_POOL + c])
    for c in range(NCH):  # the face-up cards of the whole table, per character
        up = 0
        for q in range(P[E.P_PLAYERS]):
            up += s[E.S_FACEUP + NCH * q + c]
        _mix2(out, up)
    for q in range(P[E.P_PLAYERS]):
        infl = E.influence(s, q)
        _mix2(out, infl)
        if infl > 0:
            _mix2(out, COIN_BUCKET[min(s[E.S_COINS + q], COIN_BUCKET.shape[0] - 1)])
            _mix2(out, s[X_DUKE + q])
    _mix2(out, k)
    for a in range(k):
        _mix2(out, acts[a])


@njit(cache=True)
def _rekey(P, s, h, W):
    """The acting player's row of ``h`` from the features of ``s`` (nothing at chance or the end)."""
    ev, buf, prob = W
    if E.is_terminal(s) or E.is_chance(s):
        return
    p = E.current_player(s)
    feature_key(P, s, p, buf, E.legal_actions(P, s, buf), h[p])


@njit(cache=True)
def features_init(P, s, h, W):
    """The initial state (after its forced steps), the history features cleared, the actor's key."""
    ev, buf, prob = W
    E.initial_state(P, s, ev, buf, prob)
    s[E.S_SIZE:] = 0
    _rekey(P, s, h, W)


@njit(cache=True)
def features_step(P, s, h, a, W):
    """Record a claim made by ``a``, apply it and its forced steps, key the next actor."""
    ev, buf, prob = W
    if not (E.is_terminal(s) or E.is_chance(s)) and a < NUM_ACTIONS and ACTION_CLAIM[a] >= 0:
        p = E.current_player(s)
        c = CLAIM_CHAR[ACTION_CLAIM[a]]
        s[X_LAST + p] = c + 1
        if c == DUKE:
            s[X_DUKE + p] = 1
    E.apply(P, s, a, ev, 0, buf, prob)
    _rekey(P, s, h, W)


FEATURES = (features_init, coup_player, coup_moves, features_step, coup_returns)


# The kernels bound to the features (cached here; see solvers._mccfr_kernel on why).
@njit(cache=True)
def run_iterations(P, W, table, regret, avg, rng, stats, count, plus, linear, max_depth, state_size,
                   max_moves):
    """``solvers._mccfr_kernel.run_iterations`` for Coup's features."""
    return K.run_iterations(FEATURES, P, W, table, regret, avg, rng, stats, count, plus, linear,
                            max_depth, state_size, max_moves)


@njit(cache=True)
def replay_keys(P, W, moves_taken, n, state_size, max_moves, out):
    """``solvers._mccfr_kernel.replay_keys`` for Coup's features."""
    return K.replay_keys(FEATURES, P, W, moves_taken, n, state_size, max_moves, out)


@njit(cache=True)
def tree_infoset_keys(P, W, n, state_size, max_moves, max_depth, node_infoset, node_player,
                      child_start, num_children, keys, checks):
    """``solvers._mccfr_kernel.tree_infoset_keys`` for Coup's features."""
    return K.tree_infoset_keys(FEATURES, P, W, n, state_size, max_moves, max_depth, node_infoset,
                               node_player, child_start, num_children, keys, checks)


@njit(cache=True)
def run_outcome(P, W, table, regret, avg, rng, stats, count, plus, linear, eps, max_depth,
                state_size, max_moves):
    """``solvers._mccfr_outcome.run_outcome`` for Coup's features."""
    return O.run_outcome(FEATURES, P, W, table, regret, avg, rng, stats, count, plus, linear, eps,
                         max_depth, state_size, max_moves)


KERNELS = (run_iterations, replay_keys, tree_infoset_keys, run_outcome)
