"""Variance reduction for head-to-head play: control variates in the spirit of AIVAT.

A game's payoff is noisy: the deal and every randomised choice move it. AIVAT (Burch, Schmid,
Moravcik, Morrill and Bowling, "AIVAT: a new variance reduction technique for agent evaluation in
imperfect information games", AAAI 2018) subtracts from it, at each event whose distribution is known,
the part of the outcome that event explains: with a value function ``V`` (a number per seat for any
state, fixed before the games), the event that moved the game from state ``h`` to ``h·a`` contributes

    V(h·a) - sum over a' of p(a') V(h·a')

where ``p`` is the distribution ``a`` was drawn from. Given ``h`` its expectation is exactly 0, for
any ``V``, so the corrected payoff (the payoff less the sum of the contributions) has the plain
payoff's expectation; a ``V`` close to the game's value removes most of its variance. Here every event
qualifies: the chance events (the rules give their probabilities) and every seat's decisions, because
every player in a match is a program whose ``action_probabilities`` are asked for before the action
is drawn (AIVAT proper corrects only the known players' decisions, as a human opponent's are not
known). The games are simulated, so ``V`` may read the whole state, both hands included.

:class:`LinearValue` is the value function used for Coup: a least-squares fit of each seat's final
payoff on the differences between its features and its opponents' (face-down cards of each character,
coins), fitted on separate pilot games (:func:`fit_value`) so that it is fixed before the matched
games are played.
"""

from __future__ import annotations

import numpy as np

from coupsolve.evaluation.arena import play, play_one

__all__ = ["LinearValue", "coup_features", "fit_value", "match", "match_names", "PILOT_GAMES", "PILOT_STREAM"]

#: The first of the two streams of seeded games the pilot games come from (the matches' is 0).
PILOT_STREAM = 1


def coup_features(state):
    """Per seat, the features a Coup state's value is fitted on: face-down cards of each character
    and coins (capped at 12: past that they buy nothing more), shape ``(players, characters + 1)``;
    ``python_coup`` states only."""
    from coupsolve import engine as E

    s = state.engine_state()
    n = state.num_players_
    hands = np.array([s[E.S_HAND + E.NCH * p:E.S_HAND + E.NCH * (p + 1)] for p in range(n)], np.float64)
    coins = np.array(s[E.S_COINS:E.S_COINS + n], np.float64)[:, None]
    return np.hstack([hands, np.minimum(coins, 12.0)])


class LinearValue:
    """``V(state)[i] = scale * w · (f_i - mean of the others' f_j)`` for features ``f``
    (:func:`coup_features`): the values of all seats sum to 0, as a zero-sum game's payoffs do. A
    terminal state is worth ``scale`` times its returns. The corrections are linear in ``V``, so
    ``scale`` is the control variates' coefficient: :func:`fit_value` sets it to the one that
    minimises the corrected payoff's variance on pilot games (about 0 where the fit explains nothing,
    so that a poor fit cannot add much variance)."""

    def __init__(self, weights, features=coup_features, scale=1.0):
        self.weights = np.asarray(weights, np.float64)
        self.features = features
        self.scale = float(scale)

    @staticmethod
    def relative(f):
        """Each seat's features less the mean of the other seats'."""
        n = f.shape[0]
        return f - (f.sum(axis=0, keepdims=True) - f) / (n - 1)

    def __call__(self, state):
        if state.is_terminal():
            return self.scale * np.asarray(state.returns(), np.float64)
        return self.scale * (self.relative(self.features(state)) @ self.weights)


def fit_value(game, seat_policies, games, seed, features=coup_features):
    """A :class:`LinearValue` for games of ``seat_policies``, fixed before the matched games: its
    weights fitted by least squares on ``games`` pilot games seeded by ``seed`` (every decision state
    met, each seat's relative features against its final payoff), then its scale, the control
    variates' best coefficient ``cov(payoff, correction) / var(correction)``, on ``games`` more
    (rounded up to whole deals). Both come from streams of seeded games of their own, never the
    matches' (:func:`~coupsolve.evaluation.arena.play`'s ``stream`` 0), whatever the seeds."""
    rows, targets = [], []
    rng = np.random.default_rng([PILOT_STREAM, seed])
    n = game.num_players()
    for g in range(int(games)):
        order = [seat_policies[(s + g) % n] for s in range(n)]
        met = []
        returns, _ = play_one(game, order, rng, visit=lambda st: met.append(features(st)))
        rows.extend(LinearValue.relative(f) for f in met)
        targets.extend(np.asarray(returns, np.float64) for _ in met)
    if not rows:
        raise ValueError("the pilot games met no decision: nothing to fit a value on")
    weights, *_ = np.linalg.lstsq(np.concatenate(rows), np.concatenate(targets), rcond=None)
    value = LinearValue(weights, features)
    pilot = play(game, seat_policies, max(2 * n, -(-int(games) // n) * n), seed, value=value,
                 stream=PILOT_STREAM + 1)
    corr = (pilot.payoffs - pilot.adjusted).ravel()
    ret = pilot.payoffs.ravel()
    var = corr.var()
    value.scale = float(np.cov(ret, corr, bias=True)[0, 1] / var) if var > 0 else 0.0
    return value


#: Pilot games a match plays first, by default, to fit its control variates' value function.
PILOT_GAMES = 200


def match(game, policy, other, games, seed, pilot=PILOT_GAMES, pilot_policy=None, watch=None):
    """``policy`` in one seat against ``other`` in every other seat, in the duplicate deals of
    :func:`~coupsolve.evaluation.arena.play`, with the variance-reduced estimate beside the plain one
    when the game is Coup and ``pilot`` is not 0 (a value fitted by :func:`fit_value` on ``pilot``
    pilot games and as many more, seeded by ``seed`` in the pilot streams). ``pilot_policy``, if given,
    stands in for ``policy`` in the pilot games (and for ``other`` too when that is ``policy`` itself):
    a cheaper player, such as the blueprint of a re-solving one. The estimate stays unbiased whatever
    value is fitted; a stand-in only makes the value fit the matched games less well. The result's
    names are ``"strategy"`` and ``"opponent"``; ``watch`` is given each matched game's final state
    (not the pilot games'), as by :func:`~coupsolve.evaluation.arena.play`."""
    n = game.num_players()
    policies = [policy] + [other] * (n - 1)
    coup = hasattr(game.new_initial_state(), "engine_state")
    stand_in = policy if pilot_policy is None else pilot_policy
    pilots = [stand_in] + [stand_in if other is policy else other] * (n - 1)
    value = fit_value(game, pilots, pilot, seed) if pilot and coup else None
    return play(game, policies, games, seed, names=match_names(n), value=value, watch=watch)


def match_names(players):
    """The names of :func:`match`'s entries, one per seat: the strategy's, then the opponent's."""
    return ["strategy"] + ["opponent"] * (players - 1)
