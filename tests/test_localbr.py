"""Local best response (coupsolve.evaluation.localbr) against the exact best response of a small two-player tree."""

import numpy as np
import pytest
from open_spiel.python import policy as os_policy

import coupsolve
import solvers
from coupsolve.evaluation.localbr import LocalBestResponse, local_br_gain

RULES = coupsolve.Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Contessa", copies=2,
                                 limit_payoff="influence")
Z99 = 2.576 / 1.96  # a 95% half-width times this is the 99% one


@pytest.fixture(scope="module")
def small():
    game = coupsolve.load_game(RULES)
    return game, coupsolve.build_tree(RULES)


def _a_decision(game, seat, rng):
    """The last state of a uniformly random game where ``seat`` acts (past the deal)."""
    while True:
        state, last = game.new_initial_state(), None
        while not state.is_terminal():
            if not state.is_chance_node() and state.current_player() == seat:
                last = state.clone()
            moves = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                     else state.legal_actions())
            state.apply_action(moves[rng.integers(len(moves))])
        if last is not None:
            return last


@pytest.mark.parametrize("seat", [0, 1])
def test_the_belief_holds_the_played_history_and_only_what_the_seat_cannot_tell_apart(small, seat):
    game, _ = small
    uniform = os_policy.UniformRandomPolicy(game)
    lbr = LocalBestResponse(game, uniform, seat)
    state = _a_decision(game, seat, np.random.default_rng(seat))
    worlds, weights = lbr.worlds(state)
    seen = state.information_state_string(seat)
    assert all(w.information_state_string(seat) == seen for w in worlds)
    assert state.history() in [w.history() for w in worlds]
    assert weights.sum() == pytest.approx(1.0) and np.all(weights > 0)
    opponent_hands = {w.information_state_string(1 - seat) for w in worlds}
    assert 1 < len(opponent_hands) <= len(worlds)  # the opponent's cards are unknown
    values = lbr.action_values(state)
    assert sorted(values) == sorted(state.legal_actions())
    probs = lbr.action_probabilities(state)
    assert sorted(probs.values()) == [0.0] * (len(probs) - 1) + [1.0]  # pure (fresh rollouts)


def test_it_gains_against_uniform_play_and_no_more_than_the_best_response(small):
    game, tree = small
    exact = solvers.exploitability(tree, tree.uniform_policy())
    mean, half = local_br_gain(RULES, os_policy.UniformRandomPolicy(game), games=200, seed=1,
                               rollouts=2)
    print(f"exact exploitability {exact:.4f}, local best response {mean:.4f} +- {half:.4f}")
    assert mean - half > 0.0  # clearly positive
    assert mean - Z99 * half <= exact  # a lower bound, up to sampling error


def test_against_a_converged_strategy_it_stays_under_the_exact_gain(small):
    game, tree = small
    result = solvers.solve(tree, iterations=300, progress=False)
    exact = solvers.exploitability(tree, result.average_policy)
    policy = solvers.to_openspiel_policy(tree, result.average_policy, game)
    mean, half = local_br_gain(RULES, policy, games=200, seed=2, rollouts=2)
    assert mean - Z99 * half <= exact
    print(f"exact exploitability {exact:.3g}, local best response {mean:.4f} +- {half:.4f}")


class _Counted(os_policy.Policy):
    """A policy that counts the states it is asked about."""

    def __init__(self, policy):
        super().__init__(policy.game, policy.player_ids)
        self.policy, self.calls = policy, 0

    def action_probabilities(self, state, player_id=None):
        self.calls += 1
        return self.policy.action_probabilities(state)


def test_a_responder_to_a_model_is_still_a_lower_bound_on_the_policy_played(small):
    game, tree = small
    exact = solvers.exploitability(tree, tree.uniform_policy())
    result = solvers.solve(tree, iterations=300, progress=False)
    model = _Counted(solvers.to_openspiel_policy(tree, result.average_policy, game))
    played = _Counted(os_policy.UniformRandomPolicy(game))
    mean, half = local_br_gain(RULES, played, games=200, seed=3, rollouts=2, model=model)
    assert model.calls > 10 * played.calls > 0  # the worlds and rollouts read the model, the games the policy
    assert mean - Z99 * half <= exact  # still a lower bound on the policy played
    assert mean - half > 0.0  # and uniform play still loses to it
    again = local_br_gain(RULES, os_policy.UniformRandomPolicy(game), games=40, seed=3, rollouts=2)
    same = local_br_gain(RULES, os_policy.UniformRandomPolicy(game), games=40, seed=3, rollouts=2,
                         model=os_policy.UniformRandomPolicy(game))
    assert again == same  # the policy itself as the model is the plain local best response


def test_refusals_name_the_problem(small):
    game, _ = small
    uniform = os_policy.UniformRandomPolicy(game)
    with pytest.raises(ValueError, match="even"):
        local_br_gain(RULES, uniform, games=3, seed=0)
    with pytest.raises(ValueError, match="two-player"):
        LocalBestResponse(coupsolve.load_game(players=3, turn_limit=1), uniform, 0)
    with pytest.raises(ValueError, match="seat"):
        LocalBestResponse(game, uniform, 2)
