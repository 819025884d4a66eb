"""Local best response (LBR): a lower bound on a two-player strategy's exploitability without a tree.

Lisy and Bowling (2017), "Eqilibrium Approximation Quality of Current No-Limit Poker Bots", AAAI-17
workshop on computer poker. :class:`LocalBestResponse` plays one seat of two-player Coup (any turn
limit) against a fixed strategy ``sigma`` (any OpenSpiel policy of the game, e.g.
:class:`solvers.mccfr.policy.SampledPolicy`). At each of its decisions it computes:

1. *the belief* (opponent range): every history ("world") the responder cannot tell from the one
   played, found by replaying the played moves from the root, branching over every chance outcome and
   keeping a branch only while the responder's ``information_state_string`` equals the played one
   (the rules stay in the engine; nothing is re-implemented). A world's weight is its chance
   probability times ``sigma``'s probability of the opponent's moves along it (Bayes); the
   responder's own moves are its own and weigh the same in every world. Coup's private state is small
   (at most 15 two-card hands), so the worlds are few; more than ``max_worlds`` are subsampled by
   weight (seeded);
2. *each legal action's value*: for every world, ``rollouts`` seeded games from the action on, with
   the opponent playing ``sigma`` and the responder a fixed ``default`` policy (``sigma`` itself unless
   given), chance sampled; the value is the weighted mean of the responder's returns;
3. it plays the action of the largest value (the first on ties).

It uses only the responder's information and the known ``sigma``, so it is a (randomised) strategy of
that seat, and no strategy earns more than the best response: the responder's expected payoff
``LBR_p`` is at most ``BR_p``. :func:`local_br_gain` plays the responder against ``sigma`` from both
seats (half the games each) and returns the mean payoff with the half-width of its 95% interval: an
estimate of ``(LBR_0 + LBR_1) / 2``, which is at most OpenSpiel's exploitability
``(BR_0 + BR_1) / 2`` of a zero-sum game *in expectation only*: a finite sample can exceed it by
sampling error (read the interval). Everything runs through the OpenSpiel game in Python (about a
quarter of a millisecond a move), so it suits a few hundred games at most.
"""

from __future__ import annotations

import math

import numpy as np
from open_spiel.python import policy as os_policy

from coupsolve.openspiel.game import load_game
from coupsolve.rules import Rules

__all__ = ["LocalBestResponse", "local_br_gain"]


def _sample(rng, probs):
    """An index drawn from ``probs`` (a sequence summing to 1)."""
    return int(min(np.searchsorted(np.cumsum(probs), rng.random(), side="right"), len(probs) - 1))


def _move(rng, state, policy):
    """A move at ``state``: a chance outcome, or the acting player's under ``policy``."""
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        return outcomes[_sample(rng, [p for _, p in outcomes])][0]
    probs = policy.action_probabilities(state)
    actions = list(probs)
    return actions[_sample(rng, [probs[a] for a in actions])]


class LocalBestResponse(os_policy.Policy):
    """The local best response of ``seat`` to ``sigma`` (module docstring), as an OpenSpiel policy.

    Parameters
    ----------
    game : pyspiel.Game
        A two-player Coup game (``coupsolve.load_game``).
    sigma : open_spiel.python.policy.Policy
        The opponent's strategy (read at the opponent's states).
    seat : int
        The responder, 0 or 1.
    rollouts : int
        Rollouts per world and action.
    seed : int
        Seeds the rollouts and the subsampling of worlds.
    default : open_spiel.python.policy.Policy, optional
        The responder's play after the action valued (default ``sigma``).
    max_worlds : int
        At most this many worlds per decision (more are subsampled by weight).
    """

    def __init__(self, game, sigma, seat, *, rollouts=4, seed=0, default=None, max_worlds=64):
        if game.num_players() != 2:
            raise ValueError(f"the local best response is for two-player games; {game} has "
                             f"{game.num_players()} players")
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        if int(rollouts) < 1 or int(max_worlds) < 1:
            raise ValueError(f"rollouts and max_worlds must be at least 1, got {rollouts}, {max_worlds}")
        super().__init__(game, [seat])
        self.sigma, self.seat, self.rollouts = sigma, seat, int(rollouts)
        self.default = sigma if default is None else default
        self.rng = np.random.default_rng(seed)
        self.max_worlds = int(max_worlds)
        self._both = _Joint(game, {seat: self.default, 1 - seat: sigma})

    def worlds(self, state):
        """``(states, weights)``: the histories the responder cannot tell from ``state``'s, weighted by
        chance and ``sigma``'s opponent moves (normalised; step 1 of the module docstring)."""
        moves = state.history()
        target = [None] * (len(moves) + 1)
        walk = self.game.new_initial_state()
        target[0] = walk.information_state_string(self.seat)
        for i, a in enumerate(moves):
            walk.apply_action(a)
            target[i + 1] = walk.information_state_string(self.seat)
        live = [(self.game.new_initial_state(), 1.0)]
        for i, a in enumerate(moves):
            grown = []
            for s, w in live:
                if s.is_chance_node():
                    branches = s.chance_outcomes()
                elif s.current_player() == self.seat:
                    branches = [(a, 1.0)]
                elif a in s.legal_actions():
                    branches = [(a, self.sigma.action_probabilities(s).get(a, 0.0))]
                else:
                    branches = []
                for b, p in branches:
                    if p > 0.0:
                        child = s.child(b)
                        if child.information_state_string(self.seat) == target[i + 1]:
                            grown.append((child, w * p))
            live = grown
        weights = np.array([w for _, w in live])
        return [s for s, _ in live], weights / weights.sum()

    def action_values(self, state):
        """``{action: estimated value}`` for the responder at ``state`` (step 2)."""
        states, weights = self.worlds(state)
        if len(states) > self.max_worlds:
            pick = self.rng.choice(len(states), self.max_worlds, p=weights)
            states, weights = [states[i] for i in pick], np.full(self.max_worlds, 1.0 / self.max_worlds)
        values = {}
        for a in state.legal_actions():
            total = 0.0
            for s, w in zip(states, weights):
                for _ in range(self.rollouts):
                    total += w * self._rollout(s.child(a))
            values[a] = total / self.rollouts
        return values

    def _rollout(self, state):
        state = state.clone()
        while not state.is_terminal():
            state.apply_action(_move(self.rng, state, self._both))
        return state.returns()[self.seat]

    def action_probabilities(self, state, player_id=None):
        """The action of the largest estimated value, with probability 1 (step 3)."""
        values = self.action_values(state)
        best = max(values, key=values.get)  # the first on ties (dicts keep the legal order)
        return {a: float(a == best) for a in state.legal_actions()}


class _Joint(os_policy.Policy):
    """One policy per seat, as one policy."""

    def __init__(self, game, by_seat):
        super().__init__(game, sorted(by_seat))
        self.by_seat = by_seat

    def action_probabilities(self, state, player_id=None):
        return self.by_seat[state.current_player()].action_probabilities(state)


def _play(game, policies, rng, seat):
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(_move(rng, state, policies))
    return state.returns()[seat]


def local_br_gain(rules: Rules, policy, games: int, seed: int, rollouts: int = 4, model=None, **options):
    """The local best response's mean payoff against ``policy`` over both seats, with a 95% interval.

    With ``model``, the responder is the local best response to ``model`` (its beliefs and rollouts read
    ``model``), while the games are played against ``policy``. It is still a fixed strategy of its
    seat, so its mean payoff is still a lower bound on ``policy``'s exploitability in expectation, only a
    looser one. That is the measure for a policy too slow to be read at every world and rollout, such
    as a re-solving player: with its blueprint as the model, the responder is the one that measures the
    blueprint, and the two gains say how much of the blueprint's exploitable play the policy kept.

    Parameters
    ----------
    rules : Rules
        Two-player rules.
    policy : open_spiel.python.policy.Policy
        The strategy (both seats) of ``coupsolve.load_game(rules)``.
    games : int
        Games played, half with the responder in each seat (at least 2, even).
    seed : int
        Seeds the games' chance and the responders' rollouts.
    rollouts : int
    model : open_spiel.python.policy.Policy, optional
        The policy the responder assumes it plays (default ``policy``).
    **options
        Passed to :class:`LocalBestResponse` (``default``, ``max_worlds``).

    Returns
    -------
    (float, float)
        The mean (an estimate of ``(LBR_0 + LBR_1) / 2``, at most the exploitability in expectation)
        and the half-width of its 95% normal interval, ``1.96 * sqrt(var_0 / n_0 + var_1 / n_1) / 2``.
    """
    if int(games) < 2 or int(games) % 2:
        raise ValueError(f"games must be even and at least 2 (half in each seat), got {games!r}")
    game = load_game(rules)
    rng = np.random.default_rng([seed, 0])
    means, variances = [], []
    for seat in (0, 1):
        lbr = LocalBestResponse(game, policy if model is None else model, seat, rollouts=rollouts,
                                seed=seed * 2 + seat, **options)
        both = _Joint(game, {seat: lbr, 1 - seat: policy})
        out = np.array([_play(game, both, rng, seat) for _ in range(int(games) // 2)])
        means.append(out.mean())
        variances.append(out.var(ddof=1) / out.shape[0])
    return float(sum(means) / 2), float(1.96 * math.sqrt(sum(variances)) / 2)
