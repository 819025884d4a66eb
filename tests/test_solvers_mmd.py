"""Magnetic Mirror Descent: OpenSpiel's MMDDilatedEnt iterate for iterate, the QRE fixed point."""

import numpy as np
import pytest
from open_spiel.python.algorithms import sequence_form_utils as utils
from open_spiel.python.algorithms.mmd_dilated import MMDDilatedEnt

import solvers
from solvers import from_openspiel_policy, to_openspiel_policy
from solvers.cfr.mmd import MMDSpec


@pytest.mark.parametrize("name, alpha, iterations", [
    ("kuhn", 0.05, 60), ("kuhn", 1.0, 30), ("leduc", 0.05, 6), ("leduc", 0.5, 4)])
def test_iterates_equal_openspiel_mmd_dilated(name, alpha, iterations, request):
    game, tree = request.getfixturevalue(name)
    ours = solvers.Solver(tree, MMDSpec("t", alpha=alpha, magnet="dilated"))
    theirs = MMDDilatedEnt(game, alpha=alpha)
    for _ in range(iterations):
        ours.step(1)
        theirs.update_sequences()
        reference = from_openspiel_policy(tree, theirs.get_policies())
        assert np.max(np.abs(ours.current_policy() - reference)) <= 1e-9
    assert np.max(np.abs(reference - tree.uniform_policy())) > 0.02  # it moved


def _regularised_response(player, opponent, alpha, game_vars, uniform):
    """The behavioural logit response of ``player`` to the opponent's sequence form, by infostate:
    bottom up, ``pi_I = softmax(Q_I / alpha)``, ``Q_Ia`` the sequence's own utility plus the soft
    values ``alpha log sum exp(Q_J / alpha)`` of the information sets just below it (with the
    uniform magnet, ``pi_I`` and the soft value take the uniform prior ``1 / |A(I)|`` in the sum)."""
    infosets, to_seq, action_maps, _, payoff, children = game_vars
    utility = payoff[0] @ opponent if player == 0 else -(payoff[0].T @ opponent)
    response = {}

    def soft_value(infostate):
        keys = action_maps[player][infostate]
        q = np.array([utility[to_seq[player][k]]
                      + sum(soft_value(j) for j in children[player].get(k, [])) for k in keys])
        top = q.max()
        weights = np.exp((q - top) / alpha) / (len(keys) if uniform else 1.0)
        response[infostate] = (keys, weights / weights.sum())
        return top + alpha * np.log(weights.sum())

    root = f"***EMPTY_INFOSET_ACTION_P{player}***"
    for infostate in children[player].get(root, []):
        soft_value(infostate)
    return response


@pytest.mark.parametrize("name, alpha, iterations, magnet", [
    ("kuhn", 0.2, 400, "dilated"), ("leduc", 2.0, 400, "dilated"), ("kuhn", 0.2, 400, "uniform"),
    ("leduc", 0.5, 400, "uniform")])
def test_fixed_temperature_converges_to_its_qre(name, alpha, iterations, magnet, request):
    """At a fixed temperature the last iterate is the logit QRE of the reduced normal form: each
    player's policy is the logit (dilated-entropy regularised) response to the other's."""
    game, tree = request.getfixturevalue(name)
    result = solvers.solve(tree, MMDSpec("t", alpha=alpha, magnet=magnet), iterations=iterations,
                           progress=False)
    game_vars = utils.construct_vars(game)
    tabular = to_openspiel_policy(tree, result.average_policy, game)
    sequences = utils.policy_to_sequence(game, tabular, game_vars[1])
    worst = 0.0
    for player in range(2):
        for infostate, (keys, probs) in _regularised_response(
                player, sequences[1 - player], alpha, game_vars, magnet == "uniform").items():
            row = tabular.policy_for_key(infostate)
            ours = np.array([row[utils.get_action_from_key(k)] for k in keys])
            worst = max(worst, np.max(np.abs(ours - probs)))
    assert worst <= 1e-8
    assert np.max(np.abs(result.average_policy - tree.uniform_policy())) > 0.05


def test_uniform_magnet_changes_the_fixed_point(kuhn):
    _, tree = kuhn
    a = solvers.solve(tree, MMDSpec("t", alpha=0.2, magnet="dilated"), iterations=300,
                      progress=False)
    b = solvers.solve(tree, MMDSpec("t", alpha=0.2, magnet="uniform"), iterations=300, progress=False)
    assert np.max(np.abs(a.average_policy - b.average_policy)) > 1e-3


def test_annealed_mmd_approaches_a_nash_equilibrium(kuhn):
    _, tree = kuhn
    fixed = solvers.solve(tree, MMDSpec("t", alpha=0.2), iterations=2000, progress=False)
    annealed = solvers.solve(tree, "mmd", iterations=6000, progress=False)
    assert annealed.exploitability < 0.005 < fixed.exploitability


def test_checkpoint_resumes_bit_for_bit(kuhn, tmp_path):
    _, tree = kuhn
    spec = "mmd"
    whole = solvers.solve(tree, spec, iterations=40, progress=False)
    path = tmp_path / "m.npz"
    solvers.solve(tree, spec, iterations=25, checkpoint=path, progress=False)
    resumed = solvers.solve(tree, iterations=40, resume=path, progress=False)
    assert resumed.algorithm == "mmd"
    assert np.array_equal(whole.average_policy, resumed.average_policy)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="alpha"):
        MMDSpec("t", alpha=0.0)
    with pytest.raises(ValueError, match="magnet"):
        MMDSpec("t", alpha=1.0, magnet="normal")
    with pytest.raises(ValueError, match="horizon"):
        MMDSpec("t", alpha=1.0, horizon=10)


@pytest.mark.parametrize("player, value", [(0, 3.0), (1, -2.0)])
def test_one_decision_leans_to_the_best_action(player, value):
    """One decision among payoffs 1, 3, -2: the QRE at a small temperature all but picks the best."""
    from test_solvers_cfr import _arrays

    tree = _arrays([0, 2, 2, 2], [player, -1, -1, -1], [0, -1, -1, -1], [1, 0, 0, 0],
                   [3, 0, 0, 0], [1.0] * 4, [0, 1.0, 3.0, -2.0], [0, 1, 4], [player], [3])
    result = solvers.solve(tree, "mmd", iterations=6000, progress=False)
    best = 1 if player == 0 else 2
    assert result.average_policy[best] > 0.999
    assert abs(result.game_value[0] - value) <= 2 * result.exploitability + 1e-12
