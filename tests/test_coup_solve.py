"""Solving Coup: our figures against OpenSpiel's own tools on the Python game."""

import numpy as np
import pytest
from open_spiel.python.algorithms import exploitability as os_exploitability

import coupsolve
import solvers
from coupsolve import Rules


# OpenSpiel's Python best response walks the Python game state by state: about a minute on the
# selection setup (63,973 histories), so that case is behind ``slow``; the default run checks the same
# agreement on a small standard deal (844 histories), which still maps every information set's policy.
GAMES = [pytest.param(Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Contessa", copies=2),
                      id="standard-3-characters-tl1"),
         pytest.param(Rules.two_player_selection(turn_limit=1), id="selection-tl1", marks=pytest.mark.slow)]


@pytest.fixture(scope="module", params=GAMES)
def solved(request):
    rules = request.param
    tree = coupsolve.build_tree(rules)
    return rules, tree, solvers.solve(tree, algorithm="cfr+", iterations=40, progress=False)


def test_exploitability_matches_openspiel_on_the_python_game(solved):
    rules, tree, result = solved
    game = coupsolve.load_game(rules)
    ours = solvers.exploitability(tree, result.average_policy)
    theirs = os_exploitability.exploitability(game, result.to_openspiel_policy(game))
    assert ours == pytest.approx(theirs, abs=1e-9)
    assert ours < 1e-3


def test_save_load_round_trip_and_refusal(solved, tmp_path):
    rules, tree, result = solved
    path = tmp_path / "s.npz"
    result.save(path)
    again = solvers.SolveResult.load(path, tree=tree)
    assert np.array_equal(again.average_policy, result.average_policy)
    other = coupsolve.build_tree(rules.replace(limit_payoff="influence"))
    with pytest.raises(ValueError, match="game"):
        solvers.SolveResult.load(path, tree=other)
