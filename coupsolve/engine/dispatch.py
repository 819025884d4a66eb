"""The engine's dispatch on the phase: :func:`legal_actions`, :func:`chance_outcomes`, a step and what it
reads, the initial state and :func:`apply`, over the phase modules' kernels (re-exported here).

:mod:`coupsolve.engine` hands out every name of this module on first use, so that importing the
package (for the layout constants and tables, as the rules and the command line do) compiles or loads
no kernel and imports no numba.
"""

import numpy as np

from coupsolve.engine.jit import njit
from coupsolve.engine.chance import draw_outcomes  # noqa: F401 (re-exported)
from coupsolve.engine.claims import (block_actions, block_challenge_actions, block_challenge_step, block_step,
                     challenge_actions, challenge_step, prove_actions, prove_step)
from coupsolve.engine.context import context_field, node_context  # noqa: F401 (re-exported)
from coupsolve.engine.core import (current_player, deck_size, emit_action, in_game, influence, is_chance,  # noqa: F401
                   is_terminal, mark_of, marks_at, next_living, num_living, pair_code)
from coupsolve.engine.deal import (choose_actions, choose_step, deal_outcomes, deal_step, event_deal_outcomes,
                   event_deal_step, reset, start_outcomes, start_step)
from coupsolve.engine.eventmat import flip_outcomes, flip_step
from coupsolve.engine.exchange import exchange_draw_outcomes, exchange_draw_step, keep_actions, keep_step
from coupsolve.engine.loss import lose_actions, lose_step, replace_outcomes, replace_step, returns  # noqa: F401
from coupsolve.engine.tables import *  # noqa: F403 (the layout constants, tables and bounds, re-exported)
from coupsolve.engine.turn import turn_actions, turn_step, vengeance_actions, vengeance_step
from coupsolve.engine.variants import faction_actions, faction_step


@njit(cache=True)
def legal_actions(P, s, out):
    """The legal actions of a decision node, sorted ascending.

    Parameters
    ----------
    P : int32[P_SIZE]
    s : int32[S_SIZE]
        A decision node (read only).
    out : int32[MAX_MOVES]
        Receives the action ids from index 0.

    Returns
    -------
    int
        How many actions were written (0 at chance and terminal nodes).
    """
    ph = s[S_PHASE]
    if ph == PH_TURN:
        return turn_actions(P, s, out)
    if ph == PH_CHALLENGE:
        return challenge_actions(P, s, out)
    if ph == PH_BLOCK_CHALLENGE:
        return block_challenge_actions(P, s, out)
    if ph == PH_BLOCK:
        return block_actions(P, s, out)
    if ph == PH_LOSE:
        return lose_actions(P, s, out)
    if ph == PH_KEEP:
        return keep_actions(P, s, out)
    if ph == PH_CHOOSE:
        return choose_actions(P, s, out)
    if ph == PH_VENGEANCE:
        return vengeance_actions(P, s, out)
    if ph == PH_PROVE:
        return prove_actions(P, s, out)
    if ph == PH_FACTION:
        return faction_actions(P, s, out)
    return 0


@njit(cache=True)
def chance_outcomes(P, s, out, prob):
    """The outcomes of a chance node and their probabilities, sorted by id.

    Parameters
    ----------
    P : int32[P_SIZE]
    s : int32[S_SIZE]
        A chance node (read only).
    out : int32[MAX_MOVES]
        Receives the outcome ids from index 0.
    prob : float64[MAX_MOVES]
        Receives their probabilities (summing to 1).

    Returns
    -------
    int
        How many outcomes were written (0 at decision and terminal nodes).
    """
    ph = s[S_PHASE]
    if ph == PH_DEAL or ph == PH_DEAL_ONE:
        return deal_outcomes(P, s, out, prob)
    if ph == PH_REPLACE:
        return replace_outcomes(P, s, out, prob)
    if ph == PH_EXCHANGE_DRAW:
        return exchange_draw_outcomes(P, s, out, prob)
    if ph == PH_START_SEAT:
        return start_outcomes(P, s, out, prob)
    if ph == PH_FLIP:
        return flip_outcomes(P, s, out, prob)
    if ph == PH_EVENT_DEAL:
        return event_deal_outcomes(P, s, out, prob)
    return 0


#: :func:`step_reads`: no player's cards, or possibly both players' (and chance's).
READS_NONE, READS_ALL = -1, -2


@njit(cache=True)
def step_reads(P, s):
    """Whose private cards (face-down hand, Exchange pool, own set out of the game) the legal actions
    and the steps of decision node ``s`` read: a seat, ``READS_NONE`` or ``READS_ALL``.

    A fact about the phase functions this module dispatches to, kept beside the dispatch: a step that
    reads no cards of a seat leaves that seat's cards alone and tells it nothing private, so the class
    walk (:mod:`coupsolve.trees.classwalk.walk`) steps one history per class of the seat it reads and reuses the
    result for every partner. Reading the *number* of a seat's face-down cards (its influence) is
    reading public state. Changing a phase function's reads means changing this table;
    ``tests/test_public_coup.py`` steps every pair as well and compares the trees.

    - Turn: the declaration and its costs read coins and influence only; Selective Coup's hit or
      miss reads the target's hand (``READS_ALL`` then).
    - Challenge: the claimant's hand (the turn's actor): is the claim true?
    - Block: none (a block is a claim, challenged in the next phase).
    - Block challenge: the blocker's hand.
    - Lose, Keep, Choose, Prove: the deciding seat's own cards (its choices list them); but a loss
      to a claimant proven right is followed, in the same step, by that claimant's card going back
      to the Court deck (``READS_ALL`` then).
    - Anything else (Factions, Vengeance, chance), and every phase under marked cards (their places
      are hidden state) or the event mat: ``READS_ALL``.
    """
    ph = s[S_PHASE]
    if P[P_MARKED] or P[P_EVENT_MAT]:
        return READS_ALL
    if ph == PH_TURN:
        return READS_ALL if P[P_SELECTIVE_COUP] else READS_NONE
    if ph == PH_CHALLENGE:
        return s[S_ACTOR]
    if ph == PH_BLOCK:
        return READS_NONE
    if ph == PH_BLOCK_CHALLENGE:
        return s[S_BLOCKER]
    if ph == PH_LOSE:
        a = s[S_AFTER]
        proven = a == AFTER_ACTION_PROVEN or a == AFTER_BLOCK_PROVEN or a == AFTER_TREATY_PROVEN
        return READS_ALL if proven else s[S_LOSER]
    if ph == PH_KEEP or ph == PH_CHOOSE or ph == PH_PROVE:
        return current_player(s)
    return READS_ALL


@njit(cache=True)
def _step(P, s, action, ev, ne):
    """Apply one action or chance outcome at the current node (no forced-step handling); return the new
    event count. The order of a turn: turn -> challenge -> block -> block challenge -> resolve.

    Callers pass ``action`` and ``ne`` as int64 (``np.int64(...)``): numba compiles the whole engine
    again for every other combination of argument types (an int32 action, a literal 0)."""
    ph = s[S_PHASE]
    if PUBLIC_DECISION[ph]:
        ne = emit_action(ev, ne, s, action)  # everyone sees the decision; the step adds what follows
    if ph == PH_TURN:
        return turn_step(P, s, action, ev, ne)
    if ph == PH_CHALLENGE:
        return challenge_step(P, s, action, ev, ne)
    if ph == PH_BLOCK:
        return block_step(P, s, action, ev, ne)
    if ph == PH_BLOCK_CHALLENGE:
        return block_challenge_step(P, s, action, ev, ne)
    if ph == PH_PROVE:
        return prove_step(P, s, action, ev, ne)
    if ph == PH_LOSE:
        return lose_step(P, s, action, ev, ne)
    if ph == PH_REPLACE:
        return replace_step(P, s, action, ev, ne)
    if ph == PH_VENGEANCE:
        return vengeance_step(P, s, action, ev, ne)
    if ph == PH_EXCHANGE_DRAW:
        return exchange_draw_step(P, s, action, ev, ne)
    if ph == PH_KEEP:
        return keep_step(P, s, action, ev, ne)
    if ph == PH_DEAL or ph == PH_DEAL_ONE:
        return deal_step(P, s, action, ev, ne)
    if ph == PH_CHOOSE:
        return choose_step(P, s, action, ev, ne)
    if ph == PH_START_SEAT:
        return start_step(P, s, action, ev, ne)
    if ph == PH_EVENT_DEAL:
        return event_deal_step(P, s, action, ev, ne)
    if ph == PH_FLIP:
        return flip_step(P, s, action, ev, ne)
    if ph == PH_FACTION:
        return faction_step(P, s, action, ev, ne)
    return ne


@njit(cache=True)
def _settle(P, s, ev, ne, buf, prob):
    """Apply every forced step: one-outcome chance events and one-choice decisions (but a forced Coup).
    Not inlined: inlined with :func:`apply` at every caller, the two compiled longer for a few percent
    of a sampler's step (docs/research/sampling-speed.md); :func:`apply` alone adds a call, not a loop."""
    while True:
        ph = s[S_PHASE]
        if ph == PH_TERMINAL:
            return ne
        if is_chance(s):
            if ph == PH_EXCHANGE_DRAW and deck_size(s) == 0:
                k = 1
                buf[0] = 0
            else:
                k = chance_outcomes(P, s, buf, prob)
        else:
            if ph == PH_TURN:
                return ne
            k = legal_actions(P, s, buf)
        if k != 1:
            return ne
        ne = _step(P, s, np.int64(buf[0]), ev, np.int64(ne))


@njit(cache=True)
def initial_state(P, s, ev, buf, prob):
    """Fill ``s`` with the first state that is not a forced step.

    Parameters
    ----------
    P : int32[P_SIZE]
    s : int32[S_SIZE]
        Overwritten with the state.
    ev : int32[k, 3]
        Receives the events of the forced steps taken (k >= MAX_EVENTS_PER_STEP).
    buf, prob : int32[MAX_MOVES], float64[MAX_MOVES]
        Scratch.

    Returns
    -------
    int
        The number of events written to ``ev``.
    """
    reset(P, s)
    return _settle(P, s, ev, np.int64(0), buf, prob)


@njit(cache=True, inline="always")
def apply(P, s, action, ev, ne, buf, prob):
    """Apply a legal action or chance outcome, then every forced step (one choice, one outcome; a forced
    Coup is still asked). The caller checks legality (:func:`legal_actions`, :func:`chance_outcomes`).
    Inlined: a compiled call passes every array field by field, and a sampler's step made this one
    call more than the two it makes.

    Parameters
    ----------
    P : int32[P_SIZE]
    s : int32[S_SIZE]
        The state, advanced in place.
    action : int
        The action or chance outcome id.
    ev : int32[k, 3]
        The event buffer; rows from ``ne`` on receive the events (k >= ne + MAX_EVENTS_PER_STEP).
    ne : int
        Rows of ``ev`` already in use.
    buf, prob : int32[MAX_MOVES], float64[MAX_MOVES]
        Scratch.

    Returns
    -------
    int
        The new number of rows of ``ev`` in use.
    """
    ne = _step(P, s, np.int64(action), ev, np.int64(ne))
    return _settle(P, s, ev, ne, buf, prob)
