"""How far a re-solve looks (coupsolve.search): the opening, one solve at the game's start per seat
that plays every decision before the second turn (coupsolve.search.opening), and the cap on a
two-turn tree's histories that shortens the lookahead (SearchSettings.most_histories)."""

import functools

import numpy as np
import pytest

from coup_helpers import play_randomly
from coupsolve import Rules, load_game
from coupsolve.sampling.keys import KEY_VERSION
from coupsolve.search import Blueprint, ResolvingPolicy, SearchSettings, resolve
from coupsolve.search.opening import covers, kept
from coupsolve.search.resolve import solve_opening
from coupsolve.trees import rooted
from coupsolve.trees.rooted import count_rooted_public_tree, public_root

pytestmark = pytest.mark.xdist_group("search")
FULL = Rules.two_player_selection(turn_limit=100)
SHORT = FULL.replace(turn_limit=1)
#: Late in a game of the shipped blueprint against itself (benchmarks/resolve.py, seed 5): one card
#: each, 720 x 7 private states, a two-turn tree of tens of thousands of histories
LATE = [57, 57, 2, 1, 3, 22, 9, 43, 2, 23, 32, 2, 22, 16, 22, 22, 2, 22, 10, 22, 28]
CHEAP = SearchSettings(continuations=1, rollouts=1, budget=1, held_rollouts=1, held_budget=1, iterations=20, seed=3)


def _decisions(rules, seed, games=1, last_turn=None):
    """Clones of the decisions with a choice of ``games`` random games (up to ``last_turn``)."""
    rng, game, out = np.random.default_rng(seed), load_game(rules), []

    def visit(state):
        if not state.is_chance_node() and len(state.legal_actions()) > 1 and \
                (last_turn is None or state.turn <= last_turn):
            out.append(state.clone())

    for _ in range(games):
        play_randomly(game.new_initial_state(), rng, visit)
    return out


def _blueprint(rules):
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.solver import MCCFRSolver

    solver = MCCFRSolver(sampling_game(rules, abstraction="features"), max_infosets=1 << 16, seed=3,
                         sampling="probe")
    solver.step(1000)
    return Blueprint(rules, solver, {"rules": rules.to_dict(), "abstraction": "features",
                                     "features_key": KEY_VERSION}, source="test")


@functools.lru_cache(maxsize=1)
def short_blueprint():
    """A blueprint of the game that ends after turn 1: two turns ahead from its start is the whole game,
    so its opening costs little."""
    return _blueprint(SHORT)


@functools.lru_cache(maxsize=1)
def full_blueprint():
    return _blueprint(FULL)


def test_the_opening_covers_the_decisions_that_look_as_far_as_the_start():
    """A decision is played from the opening exactly where a re-solve there would be cut at the same
    turn as one at the game's start, two turns ahead; never one turn ahead, nor with the opening off."""
    horizon = public_root(FULL, ()).turn_limit_ahead(2)
    met = set()
    for state in _decisions(FULL, 4, games=6, last_turn=3):
        same = public_root(FULL, state.history()).turn_limit_ahead(2) == horizon
        met.add(same)
        assert covers(state, SearchSettings(lookahead=2)) == same
        assert not covers(state, SearchSettings(lookahead=1))
        assert not covers(state, SearchSettings(lookahead=2, opening=False))
    assert met == {True, False}


def test_each_seats_decisions_in_the_opening_are_its_solve_at_the_start():
    """Seat 0's opening is the re-solve at the game's start; seat 1's holds seat 0's challenges to the
    honest model instead of its own, so the two differ; every decision of the first turn reads its
    seat's solve, and the policy plays it without solving again."""
    bp = short_blueprint()
    s = CHEAP._replace(lookahead=2, honest=0.9, trust=1.0)
    at_start = resolve(bp, (), s._replace(opening=False))
    assert not at_start.opening and at_start.lookahead == 2
    policy = ResolvingPolicy(load_game(SHORT), bp, s)
    seats = set()
    for state in _decisions(SHORT, 1, games=2):
        me = state.current_player()
        r = resolve(bp, state.history(), s)
        assert r.opening and r.player == me and r.root.actions == ()
        mine = solve_opening(bp, s, me)
        assert r.game is mine.game and r.value == mine.value
        if me == 0:
            assert r.game.tree.num_histories == at_start.game.tree.num_histories
            np.testing.assert_array_equal(mine.result.average_policy, at_start.result.average_policy)
        assert policy.action_probabilities(state) == r.probabilities
        assert not policy.opening_due(state) and kept(bp, s, me)
        seats.add(me)
    assert seats == {0, 1}
    assert not np.array_equal(solve_opening(bp, s, 0).result.average_policy,
                              solve_opening(bp, s, 1).result.average_policy)


def test_a_two_turn_tree_past_the_cap_looks_one_turn_ahead(monkeypatch):
    """Two turns ahead, the tree at LATE holds H histories: capped at H the re-solve looks two turns
    ahead; at H - 1 it looks one, the very re-solve one turn ahead makes, seed for seed; below even the
    one-turn tree's, still one. Where the one-turn tree times the growth passes the cap, the two-turn
    tree is not counted at all."""
    bp = full_blueprint()
    # every history at the root kept, whatever the ranges; every tree under the cap counted
    s = CHEAP._replace(lookahead=2, opening=False, prune=0.0, growth=1.0)
    root = public_root(FULL, LATE)
    ranges = [np.ones(n) for n in root.num_private]
    h1, h = (count_rooted_public_tree(FULL.replace(turn_limit=root.turn_limit_ahead(k)), root, *ranges).walk.histories
             for k in (1, 2))
    assert h1 < h  # what lets the counts stop at the first tree past the cap
    assert resolve(bp, LATE, s._replace(most_histories=h)).lookahead == 2
    assert resolve(bp, LATE, s._replace(most_histories=h1 - 1)).lookahead == 1  # one turn ahead at least
    short = resolve(bp, LATE, s._replace(most_histories=h - 1))
    one = resolve(bp, LATE, s._replace(lookahead=1))
    assert short.lookahead == one.lookahead == 1
    assert short.probabilities == one.probabilities
    assert short.game.tree.num_histories == one.game.tree.num_histories

    counted = []

    def counting(rules, *args):
        counted.append(rules.turn_limit)
        return count_rooted_public_tree(rules, *args)

    monkeypatch.setattr(rooted, "count_rooted_public_tree", counting)
    assert resolve(bp, LATE, s._replace(most_histories=h, growth=float(h // h1))).lookahead == 2
    assert counted == [root.turn_limit_ahead(1), root.turn_limit_ahead(2)]
    counted.clear()
    assert resolve(bp, LATE, s._replace(most_histories=h, growth=h / h1 * 1.01)).lookahead == 1
    assert counted == [root.turn_limit_ahead(1)]


@pytest.mark.parametrize("argv, honest, trust", [
    ([], SearchSettings().honest, SearchSettings().trust),
    (["--search-honest", "0", "--search-trust", "1"], 0.0, 1.0),
    (["--search-trust", "0.25"], SearchSettings().honest, 0.25),
])
def test_the_command_line_takes_the_opponent_models_settings_or_the_librarys(argv, honest, trust):
    """``--search-honest`` and ``--search-trust`` reach the settings; an option not given is the
    library's default, not one of the command line's own."""
    from coupsolve.cli.args import build_parser
    from coupsolve.cli.search import search_settings

    for command in ("play", "match", "serve"):
        args = build_parser().parse_args([command, "--search", "2", *argv])
        s = search_settings(args)
        assert (s.lookahead, s.honest, s.trust) == (2, honest, trust)
