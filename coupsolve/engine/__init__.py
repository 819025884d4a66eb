"""The Coup engine: the only copy of the rules, as pure functions over small integer arrays.

This module is the engine's entry point and its dispatch on the phase; each phase group is a module
of its own, and every name the OpenSpiel adapter (:mod:`coupsolve.openspiel.game`), the compiled tree builder and
the tests use is importable from here. The kernels compile with numba (``njit(cache=True)``); the
layout constants and tables are plain Python in :mod:`coupsolve.engine.tables` (re-exported here), and so are
the bounds :func:`game_bounds`, :func:`max_events` and :func:`event_cards`.

=======================  ===================================================================================
module                   what is in it
=======================  ===================================================================================
:mod:`~.tables`          parameters, state, phases, action and chance ids, tokens, tables, claims, context
:mod:`~.dispatch`        the dispatch on the phase, the initial state and ``apply`` (loaded on first use)
:mod:`~.core`            state queries, event emission, card moves, elimination
:mod:`~.chance`          drawing from the Court deck: outcomes and taking the drawn cards
:mod:`~.deal`            setup: starting seat and coins, the deal, the card choice, the event mat's cards
:mod:`~.flow`            after the deal, the end of a turn, the start of the next
:mod:`~.turn`            the actions: legal declarations, who blocks what, resolution (where Steal lives)
:mod:`~.claims`          challenge, block and block-challenge rounds, proofs, the Treaty claim
:mod:`~.influence`       losing a card, replacement draws, what follows a loss, the payoffs
:mod:`~.exchange`        the Exchange's draw and keep
:mod:`~.variants`        Selective Coup and Factions
:mod:`~.marked`          the marked cards' hooks: Inheritance, Vengeance, which copy a proof shows, keeps
:mod:`~.eventmat`        the event mat's flips and coin
:mod:`~.context`         the packed decision context for the analysis
=======================  ===================================================================================

Functions mutate the state array they are given and append *events* (what each player observes) to an
event buffer; nothing else is shared. Every kernel takes its arrays as these names (and a function's
docstring says only what its other arguments are):

``P`` : int32[P_SIZE]
    The parameters (built by :meth:`coupsolve.Rules.params`; layout in :mod:`coupsolve.engine.tables`).
``s`` : int32[S_SIZE]
    The state, advanced in place by a step.
``out``, ``buf`` : int32[MAX_MOVES]
    Legal action or chance outcome ids, written from index 0; the count is returned.
``prob`` : float64[MAX_MOVES]
    The chance outcomes' probabilities, beside ``out``.
``ev`` : int32[k, 3], k >= MAX_EVENTS_PER_STEP
    Event rows ``(owner, private_token, public_token)``; ``ne`` rows are in use, and a step returns the
    new count.

Each phase group offers, per phase, ``<phase>_actions(P, s, out)`` (decisions) or
``<phase>_outcomes(P, s, out, prob)`` (chance) beside ``<phase>_step(P, s, action, ev, ne)``;
:func:`legal_actions`, :func:`chance_outcomes` and ``_step`` below dispatch on ``s[S_PHASE]``. ``_step``
announces a public decision (``PUBLIC_DECISION``) before the phase's step adds what follows it.
"""

import importlib

from coupsolve.engine.tables import *  # noqa: F403 (the layout constants, tables and bounds, re-exported)


def __getattr__(name):
    """The kernels (:mod:`coupsolve.engine.dispatch` and the phase modules' names it re-exports), imported
    on first use: the rules, the OpenSpiel game's registration and the command line's parser read only
    the tables, and need not wait for numba."""
    if name.startswith("__"):
        raise AttributeError(name)
    dispatch = importlib.import_module("coupsolve.engine.dispatch")
    if name in globals():  # a phase module, now imported
        return globals()[name]
    try:
        return getattr(dispatch, name)
    except AttributeError:
        raise AttributeError(f"module 'coupsolve.engine' has no attribute {name!r}") from None
