"""The public-tree solver on Coup equals the history solver, and its best response holds up in play.

Turn limits 1 and 2 under the influence payoff (under the draw payoff turn limit 1 is worth 0 for
every strategy, too weak a check): both solvers step together with every algorithm and are compared
after every iteration (:func:`test_solvers_public.assert_same_iterates`, information sets matched by
their sequence hash) until rounding noise decides a choice, which in Coup happens after the first
iteration; beyond it, the public tree's exploitability of its own policy must equal the history tree's
evaluation of that policy, and the two runs' values agree within their NashConvs. Then the exact best-response value computed on the public tree is checked by
playing that best response against the strategy through the OpenSpiel game: the value must lie in the
sampled mean's 99% interval.
"""

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.trees.stepwalk.build import build_public_tree
from coupsolve.openspiel.policy import PublicTreePolicy, sampled_value
from solvers import Solver
from solvers.history.best_response import best_response
from test_public_coup import history_public_pair
from test_solvers_public import ALGORITHMS, TIE


def _pair(turn_limit, builder="walk"):
    return history_public_pair(
        coupsolve.Rules.two_player_selection(turn_limit=turn_limit, limit_payoff="influence"), builder)


# the class walk's tree (coupsolve.trees.classwalk.build) at turn limit 2: other public nodes, the same iterates
@pytest.fixture(scope="module",
                params=[(1, "walk"), (2, "walk"), pytest.param((2, "class"), marks=pytest.mark.slow)],
                ids=["tl1", "tl2", "tl2-class"])
def pair(request):
    return _pair(*request.param)


@pytest.mark.parametrize("updates", ["alternating", "simultaneous"])
def test_iterates_equal_the_history_solver(pair, updates):
    history, public, perm = pair
    T = history.tree
    for algorithm in ALGORITHMS:
        a = Solver(T, algorithm, updates=updates)
        b = Solver(public.tree, algorithm, updates=updates)
        for _ in range(6):
            a.step(1)
            b.step(1)
            ra = a.representation.get_state()["regret"]
            rb = b.representation.get_state()["regret"][perm]
            size = np.maximum.reduceat(np.maximum(np.abs(ra), np.abs(rb)), T.infoset_offset)
            same = np.minimum.reduceat((ra == rb).astype(np.int8), T.infoset_offset) == 1
            gap = np.maximum.reduceat(np.abs(a.current_policy() - b.current_policy()[perm]),
                                      T.infoset_offset)
            tie = np.any((size < TIE) & ~same & (gap > 1e-9))
            np.testing.assert_allclose(b.average_policy()[perm], a.average_policy(), atol=1e-9,
                                       rtol=0)
            assert abs(b.exploitability() - a.exploitability()) < 1e-9
            if tie:
                break
            np.testing.assert_allclose(b.current_policy()[perm], a.current_policy(), atol=1e-9,
                                       rtol=0)


@pytest.mark.parametrize("turn_limit", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_best_response_value_is_inside_the_sampled_interval(turn_limit):
    """At turn limit 2 the exact figure is also the history solver's: both must agree to 1e-9."""
    history, coup_public, perm = _pair(turn_limit) if turn_limit > 1 else (None, None, None)
    rules = coupsolve.Rules.two_player_selection(turn_limit=turn_limit, limit_payoff="influence")
    coup_public = coup_public or build_public_tree(rules)
    solver = Solver(coup_public.tree, "cfr+")
    solver.step(30)
    avg = solver.average_policy()
    game = coupsolve.load_game(rules)
    for player in (0, 1):
        value, br = solver.representation.best_response(avg, player)
        if history is not None:
            exact = best_response(history.tree, avg[perm], player).value
            assert abs(exact - value) < 1e-9
        policies = [PublicTreePolicy(game, coup_public, br if q == player else avg) for q in (0, 1)]
        mean, half = sampled_value(game, policies, games=3000, seed=11 + player)
        mine = mean if player == 0 else -mean
        assert abs(mine - value) <= max(half, 1e-12)
    # and the best response is worth at least the strategy's own value to that player
    assert solver.representation.best_response(avg, 1)[0] >= -solver.evaluate()[1] - 1e-12


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_public_exploitability_is_the_history_trees_and_both_runs_converge(pair, algorithm):
    """Regret matching at information sets whose regrets are rounding noise lets the two runs choose
    differently from the first iteration on, and in Coup that changes later iterates (after 40
    iterations the exploitabilities differ by up to 5e-4). So after 40 iterations: the public tree's
    exact exploitability of its own average policy must equal the history tree's evaluation of that
    same policy to 1e-9, and the two runs' values must agree within their NashConvs."""
    history, public, perm = pair
    a, b = Solver(history.tree, algorithm), Solver(public.tree, algorithm)
    a.step(40)
    b.step(40)
    mapped = b.average_policy()[perm]
    assert abs(solvers.exploitability(history.tree, mapped) - b.exploitability()) < 1e-9
    ea, va = a.evaluate()
    eb, vb = b.evaluate()
    assert abs(va - vb) <= 2.0 * (ea + eb) + 1e-12


@pytest.fixture(scope="module")
def draw_pair():
    """Turn limit 2 under the draw payoff: a third of the public tree's entries are at terminals that
    pay nothing (a draw at the limit)."""
    return history_public_pair(coupsolve.Rules.two_player_selection(turn_limit=2), "class")


@pytest.mark.parametrize("algorithm", ["cfr+", pytest.param("dcfr", marks=pytest.mark.slow),
                                       pytest.param("pcfr+", marks=pytest.mark.slow)])
@pytest.mark.parametrize("updates,threads", [("alternating", 1), ("alternating", 2),
                                             ("simultaneous", 1)])
def test_terminals_that_pay_nothing_are_never_read_by_a_solve(draw_pair, algorithm, updates, threads):
    """The solving passes skip a terminal whose payoff is zero (``solvers.public._node._void``): its
    entries' reach, values and predictions, set to NaN before the solve, are still NaN after it (a
    pass that read one would spread the NaN into the strategy), and the iterates are still the
    history solver's: the first iteration's regrets to 1e-9 (player 0's with alternating updates:
    rounding noise in regrets that are zero decides some of player 0's new choices differently,
    which player 1's first update then sees), and after 8 iterations the public tree's
    exploitability of its own average policy equals the history tree's evaluation of it."""
    _check_a_solve_with_draws(*draw_pair, algorithm, updates, threads)


@pytest.mark.slow  # the history tree takes 7 GiB, both builds about 5 minutes
def test_turn_limit_3_solve_is_the_history_solvers():
    """:func:`test_terminals_that_pay_nothing_are_never_read_by_a_solve` at turn limit 3 (draw payoff,
    the class walk's tree): CFR+ on one and two threads."""
    pair = history_public_pair(coupsolve.Rules.two_player_selection(turn_limit=3), "class")
    for threads in (1, 2):
        _check_a_solve_with_draws(*pair, "cfr+", "alternating", threads)


def _check_a_solve_with_draws(history, public, perm, algorithm, updates, threads):
    f = public.tree.flat
    void = np.repeat((f.node_kind == solvers.TERMINAL) & (f.term_scale == 0.0), np.diff(f.entry_start))
    assert void.sum() > public.tree.num_entries // 4
    a = Solver(history.tree, algorithm, updates=updates)
    b = Solver(public.tree, algorithm, updates=updates, threads=threads)
    S = b.representation.state
    buffers = [S.reach, S.v] + ([S.w] if S.w.shape[0] else [])
    for x in buffers:
        x[void] = np.nan
    a.step(1)
    b.step(1)
    T = history.tree
    mine = np.repeat(T.infoset_player == 0 if updates == "alternating" else T.infoset_player >= 0,
                     T.infoset_num_actions)
    ra = a.representation.get_state()["regret"]
    rb = b.representation.get_state()["regret"][perm]
    assert mine.sum() > 1000
    np.testing.assert_allclose(rb[mine], ra[mine], atol=1e-9, rtol=0)
    b.step(7)
    assert all(np.isnan(x[void]).all() for x in buffers)
    avg = b.average_policy()
    assert np.isfinite(avg).all() and np.isfinite(S.regret).all()
    assert abs(solvers.exploitability(history.tree, avg[perm]) - b.exploitability()) < 1e-9


@pytest.mark.slow  # about 1.5 minutes: OpenSpiel's own best responses over the whole Python game
@pytest.mark.parametrize("builder", ["walk", "class"])
def test_an_assassination_on_the_last_turn_is_valued_as_openspiel_values_it(builder):
    """With three coins each, seat 1 can assassinate on turn 2, the last turn: the Contessa's block,
    the challenges of both claims and the double loss happen just before the limit's influence payoff
    (in the card-selection setup two turns later, at turn limit 4). Each seat's best-response value
    on the public tree, of a policy a few CFR+ iterations in, equals OpenSpiel's best response to that
    policy over its own game (``PublicTreePolicy``: the tree's policy looked up by its keys)."""
    from open_spiel.python.algorithms import exploitability as os_exploitability

    from coupsolve.trees.classwalk.build import build_class_tree

    rules = coupsolve.Rules.standard(players=2, turn_limit=2, characters="Duke+Assassin+Contessa",
                                     copies=2, starting_coins="3", limit_payoff="influence")
    public = (build_public_tree if builder == "walk" else build_class_tree)(rules)
    solver = Solver(public.tree, "cfr+")
    solver.step(6)
    avg = solver.average_policy()
    ours = [solver.representation.best_choices(avg, seat)[0] for seat in (0, 1)]
    game = coupsolve.load_game(rules)
    theirs = os_exploitability.nash_conv(game, PublicTreePolicy(game, public, avg),
                                         return_only_nash_conv=False)
    value0 = solver.evaluate()[1]
    assert abs(ours[0] - value0 - theirs.player_improvements[0]) < 1e-9
    assert abs(ours[1] + value0 - theirs.player_improvements[1]) < 1e-9
    assert min(theirs.player_improvements) > 1e-3  # not a solved game: the responses have work to do
