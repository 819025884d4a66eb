"""Coup as a sampling game for :mod:`solvers.mccfr.solver`: the engine's compiled step functions, any seats.

:func:`sampling_game` binds the engine's step functions (:mod:`coupsolve.sampling.steps`) to the game-agnostic interface of
:mod:`solvers.mccfr.kernel`: a state is the engine's ``int32[S_SIZE]``, a step is ``engine.apply``
(forced steps included, as in the OpenSpiel game and the tree builder), and every player's observation
is hashed exactly as the tree builder keys information sets (:mod:`coupsolve.trees.history.builder`: the same
tokens, the same two hashes, the same seeds), for any number of players. With two players a key is
therefore the key of the same information set in :func:`coupsolve.build_tree`'s tree and in
:class:`coupsolve.openspiel.policy.PublicTreePolicy`.

``sampling_game(rules, abstraction="features")`` keys information sets by features of the current
state instead (:mod:`coupsolve.sampling.keys`): an imperfect-recall abstraction for full-length games,
with no equilibrium guarantee.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.mccfr import external as EXT
from solvers.mccfr import kernel as K
from solvers.mccfr import outcome as O
from solvers.mccfr.solver import SamplingGame

from coupsolve import engine as E
from coupsolve.engine.jit import njit as _njit_nrt
from coupsolve.rules import Rules
from coupsolve.sampling import ABSTRACTIONS
from coupsolve.sampling import keys as sampling_keys
from coupsolve.sampling.steps import FUNCTIONS

__all__ = ["sampling_game", "ABSTRACTIONS"]



# The kernels of solvers.mccfr.kernel bound to Coup, cached here (see that module on why).
@njit(cache=True)
def run_iterations(P, W, table, regret, avg, rng, stats, count, plus, linear, max_depth, state_size,
                   max_moves):
    """``solvers.mccfr.external.run_iterations`` for Coup."""
    return EXT.run_iterations(FUNCTIONS, P, W, table, regret, avg, rng, stats, count, plus, linear,
                            max_depth, state_size, max_moves)


@_njit_nrt(cache=True, nogil=True)
def run_worker(P, W, table, regret, avg, rngs, rows, stats, at, batches, batch, plus, linear, stack,
               cnt, code, logv, rkey, rcheck, rmeta, rval, t, bar):
    """``solvers.mccfr.external.run_worker`` for Coup (one worker of threaded external sampling),
    compiled without reference counting as that module says a binding should be."""
    return EXT.run_worker(FUNCTIONS, P, W, table, regret, avg, rngs, rows, stats, at, batches, batch,
                          plus, linear, stack, cnt, code, logv, rkey, rcheck, rmeta, rval, t, bar)


@njit(cache=True)
def replay_keys(P, W, moves_taken, n, state_size, max_moves, out):
    """``solvers.mccfr.kernel.replay_keys`` for Coup."""
    return K.replay_keys(FUNCTIONS, P, W, moves_taken, n, state_size, max_moves, out)


@njit(cache=True)
def tree_infoset_keys(P, W, n, state_size, max_moves, max_depth, node_infoset, node_player,
                      child_start, num_children, keys, checks):
    """``solvers.mccfr.kernel.tree_infoset_keys`` for Coup."""
    return K.tree_infoset_keys(FUNCTIONS, P, W, n, state_size, max_moves, max_depth, node_infoset,
                               node_player, child_start, num_children, keys, checks)


@njit(cache=True)
def run_outcome(P, W, table, regret, avg, rng, stats, count, plus, linear, eps, max_depth,
                state_size, max_moves):
    """``solvers.mccfr.outcome.run_outcome`` for Coup."""
    return O.run_outcome(FUNCTIONS, P, W, table, regret, avg, rng, stats, count, plus, linear, eps,
                         max_depth, state_size, max_moves)


def sampling_game(rules: Rules, abstraction: str = "exact", field=None,
                  warm_start: float = 0.0, key: int | None = None) -> SamplingGame:
    """Coup under ``rules`` (2 to 6 players) for :class:`solvers.mccfr.solver.MCCFRSolver`.

    The game id is the OpenSpiel game string (:meth:`coupsolve.Rules.game_string`), so a
    checkpoint names its rules and a policy maps to that ``python_coup`` game.

    Parameters
    ----------
    rules : Rules
    abstraction : {"exact", "features"}
        "exact": a player's information set is their whole observation sequence (perfect recall,
        the keys of the tree builder). "features": the features of the current state the player can
        act on (:mod:`coupsolve.sampling.keys`; imperfect recall, no equilibrium guarantee; the base
        game only).
    field : mapping, optional
        "features" only: the training field, the share of seats played by each baseline bot,
        ``{"honest": h, "random": r}`` (:func:`coupsolve.sampling.keys.field_scratch`; default none:
        self-play). A seat's bot is drawn per game and its moves are chance moves, so the strategy is
        trained against a mix of itself and the bots (a restricted Nash response when the share is
        below 1); the keys are those of the plain "features" game, which replays OpenSpiel histories.
    warm_start : float
        "features" and ``sampling="probe"`` only: a new information set starts at HonestBot's move
        with this much regret (Brown and Sandholm's warm start, :mod:`solvers.mccfr.probe`); the
        sampled regrets take over where they outweigh it. 0 (the default): no warm start.
    key : int, optional
        "features" only: the version of the features key (one of
        :data:`coupsolve.sampling.keys.KEY_VERSIONS`; default :data:`~coupsolve.sampling.keys.KEY_VERSION`,
        the one a new training keys by); a strategy file is read with the version it was trained with.

    Raises
    ------
    TypeError
        Not a ``Rules``.
    ValueError
        An unknown abstraction, "features" for rules with a variant, a field, a warm start or a key
        version without "features", bad shares or an unknown key version.
    """
    if not isinstance(rules, Rules):
        raise TypeError(f"expected a coupsolve.Rules, got {type(rules).__name__}")
    if abstraction not in ABSTRACTIONS:
        raise ValueError(f"abstraction must be one of {', '.join(map(repr, ABSTRACTIONS))}, got "
                         f"{abstraction!r}")
    if field and abstraction != "features":
        raise ValueError(f"a training field needs abstraction='features' (it seats bots in the features "
                         f"game only), not {abstraction!r}")
    if warm_start and abstraction != "features":
        raise ValueError(f"a warm start needs abstraction='features' (its prior is the honest bot's "
                         f"move in the features game), not {abstraction!r}")
    if key is not None and abstraction != "features":
        raise ValueError(f"a key version needs abstraction='features', not {abstraction!r}")
    P = rules.params()
    kernels, state_size = (run_iterations, replay_keys, tree_infoset_keys, run_outcome, None,
                          run_worker), E.S_SIZE
    max_depth, extra = E.game_bounds(P)[0], ()
    if abstraction == "features":
        variants = [k for k in _VARIANTS if getattr(rules, k)]
        if variants:
            raise ValueError(f"the 'features' abstraction keys the base game only; these rules have "
                             f"{', '.join(variants)} (use abstraction='exact')")
        kernels, state_size = sampling_keys.KERNELS, sampling_keys.X_SIZE
        extra = (sampling_keys.field_scratch(**dict(field or {}), warm_start=warm_start,
                                             key=sampling_keys.KEY_VERSION if key is None else key),)
        max_depth += rules.players  # the field's draws
    scratch = (np.zeros((E.MAX_EVENTS_PER_STEP * 4, 3), np.int32),  # as the tree builder's walk
               np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES, np.float64)) + extra
    return SamplingGame(kernels=kernels, params=P, scratch=scratch, num_players=rules.players,
                        state_size=state_size, max_depth=max_depth, max_moves=E.MAX_MOVES,
                        game_id=rules.game_string(), abstraction=abstraction,
                        warm_start=float(warm_start))


_VARIANTS = ("selective_coup", "contessa_blocks_tax", "factions", "ambassador_halves_steal",
             "challenge_bounty", "challenge_buyout", "marked_cards", "event_mat", "decline_proof")
