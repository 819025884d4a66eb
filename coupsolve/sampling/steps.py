"""Coup's compiled step functions in the shape :mod:`solvers.mccfr.kernel` takes: a state is the
engine's ``int32[S_SIZE]``, a step is ``engine.apply`` (forced steps included, as in the OpenSpiel game
and the tree builders), and every player's observation is hashed as the tree builders key information
sets (:mod:`coupsolve.engine.hashing`: the same tokens, the same two hashes, the same seeds).
"""

from __future__ import annotations

from coupsolve import engine as E
from coupsolve.engine.jit import njit as _njit_nrt
from coupsolve.engine.hashing import absorb_events, seed_hashes


@_njit_nrt(cache=True)
def coup_init(P, s, h, W):
    """The initial state (after its forced steps) and every player's hashes."""
    ev, buf, prob = W
    seed_hashes(h)
    absorb_events(h, h, ev, E.initial_state(P, s, ev, buf, prob))


@_njit_nrt(cache=True)
def coup_player(P, s):
    """The seat to act, -1 at chance, -4 at the end (``engine.current_player``)."""
    return E.current_player(s)


@_njit_nrt(cache=True)
def coup_moves(P, s, out, prob):
    """Legal actions, or chance outcomes with their probabilities."""
    if E.is_chance(s):
        return E.chance_outcomes(P, s, out, prob)
    return E.legal_actions(P, s, out)


@_njit_nrt(cache=True)
def coup_step(P, s, h, a, W):
    """Apply ``a`` and its forced steps; mix the events into the hashes."""
    ev, buf, prob = W
    absorb_events(h, h, ev, E.apply(P, s, a, ev, 0, buf, prob))


@_njit_nrt(cache=True)
def coup_returns(P, s, ret):
    """The payoffs of a terminal state."""
    E.returns(P, s, ret)


# Compiled without reference counting, as the engine is (coupsolve.engine.jit): they allocate nothing, and
# the kernels below own the arrays they are passed.
FUNCTIONS = (coup_init, coup_player, coup_moves, coup_step, coup_returns)
