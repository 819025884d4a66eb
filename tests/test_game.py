"""The python_coup OpenSpiel game: conformance, round trips, bad input, information hiding."""

import pickle

import numpy as np
import pyspiel
import pytest

import coupsolve
from coupsolve import Rules
from coupsolve import engine as E
from coup_helpers import play, play_randomly, same_views, views

GRID = [
    "python_coup(players=2,turn_limit=3)",
    "python_coup(players=2)",
    "python_coup(players=3,turn_limit=5)",
    "python_coup(players=4,starting_seat=random)",
    "python_coup(players=6,turn_limit=8,limit_payoff=influence)",
    "python_coup(setup=selection,turn_limit=2)",
    "python_coup(setup=selection,starting_seat=random,limit_payoff=influence)",
    "python_coup(players=3,characters=Duke+Captain+Contessa,copies=2,starting_coins=0;1)",
]


@pytest.mark.parametrize("game_string", GRID)
def test_random_sim(game_string):
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("game_string", GRID[:3] + GRID[5:6])
def test_clone_pickle_and_serialize_round_trips(game_string):
    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(7)

    def copies_are_equal(state):
        for copy in (state.clone(), pickle.loads(pickle.dumps(state)),
                     pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]):
            assert str(copy) == str(state)
            assert copy.history() == state.history()
            for p in range(game.num_players()):
                assert copy.information_state_string(p) == state.information_state_string(p)

    play_randomly(game.new_initial_state(), rng, copies_are_equal)
    assert pickle.loads(pickle.dumps(game)).rules == game.rules


def test_game_string_round_trips_through_rules():
    rules = Rules(players=4, starting_seat="random", starting_coins="0,1", characters="Duke+Contessa+Captain",
                  turn_limit=12, limit_payoff="influence")
    game = coupsolve.load_game(rules)
    assert game.rules == rules
    assert pyspiel.load_game(str(game)).rules == rules
    assert Rules.from_json(rules.to_json()) == rules
    assert game.num_players() == 4
    assert game.num_distinct_actions() == E.NUM_ACTIONS


@pytest.mark.parametrize("limit", [1, 2, 3, 4])
def test_max_game_length_bounds_every_game(limit):
    game = coupsolve.load_game(Rules.two_player_selection(turn_limit=limit))
    assert game.max_game_length() == 4 + limit * (2 * 2 + 4)
    rng = np.random.default_rng(limit)
    for _ in range(30):
        state = play_randomly(game.new_initial_state(), rng)
        assert len(state.history()) <= game.max_game_length()
        assert state.turn <= limit


def test_state_properties_and_table():
    s = play(Rules.standard(players=3), ["Deal Duke+Captain", "Deal Contessa+Contessa", "Deal Assassin+Duke",
                                          "Tax", "Challenge", "Draw Ambassador"])
    assert s.coins == [5, 2, 2]
    assert s.influence == [2, 1, 2]
    assert s.face_up == [[], ["Contessa"], []]
    assert s.hand(0) == ["Captain", "Ambassador"]
    text = str(s)
    assert "p1" in text and "Contessa" in text and "turn 2/100" in text


BAD_RULES = [
    (dict(players=7), "players"),
    (dict(players=1), "players"),
    (dict(players=6, characters="Duke+Captain", copies=2), "deal"),
    (dict(characters="Duke+Jester"), "Jester"),
    (dict(turn_limit=-1), "turn_limit"),
    (dict(turn_limit=0), "turn_limit"),
    (dict(setup="selection", players=3), "selection"),
    (dict(setup="selection", copies=2), "copies"),
    (dict(setup="draft"), "setup"),
    (dict(limit_payoff="coins"), "limit_payoff"),
    (dict(starting_seat=4), "starting_seat"),
    (dict(starting_seat="first"), "starting_seat"),
    (dict(starting_coins="1,x"), "starting_coins"),
    (dict(starting_coins="-1"), "starting_coins"),
    (dict(forced_coup=5), "forced_coup"),
    (dict(setup="selection", event_mat=True), "event_mat with setup=selection"),
    (dict(challenge_buyout=-5), "challenge_buyout"),
    (dict(challenge_bounty=-1), "challenge_bounty"),
    (dict(factions="maybe"), "factions"),
]


@pytest.mark.parametrize("options,word", BAD_RULES)
def test_impossible_rules_are_refused_with_a_reason(options, word):
    with pytest.raises(ValueError, match=word):
        Rules(**options)


def test_bad_game_strings_and_actions():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'jokers'"):
        pyspiel.load_game("python_coup(jokers=2)")
    with pytest.raises(pyspiel.SpielError, match="closing bracket"):
        pyspiel.load_game("python_coup(players=3")
    with pytest.raises(ValueError, match="players"):
        pyspiel.load_game("python_coup(players=9)")
    with pytest.raises(ValueError, match="unknown rules option"):
        Rules.from_dict({"players": 2, "jokers": 1})
    state = play(Rules(), ["Deal Duke+Duke", "Deal Captain+Captain"])
    with pytest.raises(ValueError, match=r"illegal action 'Pass' \(22\) for p0; legal: Income, Foreign Aid"):
        state.apply_action(E.ACT_PASS)
    with pytest.raises(ValueError, match="'Steal p2' is not legal here; legal: .*Steal p1"):
        state.apply_action_name("Steal p2")
    with pytest.raises(ValueError, match="'Stael p1' is not an action name"):
        state.apply_action_name("Stael p1")
    state.apply_action_name("foreign aid")  # case and spacing are forgiven
    assert state.current_player() == 1


# ---- information hiding ----------------------------------------------------------------------------
@pytest.mark.parametrize("script_a,script_b,hidden_from", [
    # p1's dealt hand differs; p1's Exchange draw and keep differ
    (["Deal Duke+Captain", "Deal Contessa+Contessa", "Income", "Exchange", "Pass", "Draw Duke+Assassin",
      "Keep Assassin+Contessa"],
     ["Deal Duke+Captain", "Deal Assassin+Ambassador", "Income", "Exchange", "Pass", "Draw Captain+Contessa",
      "Keep Assassin+Captain"], 0),
    # p0's replacement draw after a proven Tax differs
    (["Deal Duke+Captain", "Deal Contessa+Contessa", "Tax", "Challenge", "Draw Assassin"],
     ["Deal Duke+Captain", "Deal Contessa+Contessa", "Tax", "Challenge", "Draw Ambassador"], 1),
])
def test_private_cards_do_not_leak(script_a, script_b, hidden_from):
    rules = Rules()
    a, b = play(rules, script_a), play(rules, script_b)
    assert same_views(views(a, hidden_from), views(b, hidden_from))
    other = 1 - hidden_from
    assert not same_views(views(a, other), views(b, other))


def test_selection_choice_is_private():
    rules = Rules.two_player_selection(turn_limit=3)
    a = play(rules, ["Choose Duke", "Choose Captain", "Deal Ambassador", "Deal Contessa"])
    b = play(rules, ["Choose Assassin", "Choose Captain", "Deal Ambassador", "Deal Contessa"])
    assert same_views(views(a, 1), views(b, 1))
    assert not same_views(views(a, 0), views(b, 0))
    # even before the deal: p1 choosing does not see p0's choice
    assert (play(rules, ["Choose Duke"]).information_state_string(1)
            == play(rules, ["Choose Contessa"]).information_state_string(1))


def test_forced_steps_do_not_change_information_states():
    # p1 loses one of two identical cards (forced) or chooses between different ones: p0's view of the
    # public reveal is the same "p1 Lose Contessa" either way.
    rules = Rules()
    forced = play(rules, ["Deal Duke+Captain", "Deal Contessa+Contessa", "Tax", "Challenge"])
    chosen = play(rules, ["Deal Duke+Captain", "Deal Contessa+Ambassador", "Tax", "Challenge",
                          "Lose Contessa"])
    assert forced.current_player() == chosen.current_player() == -1  # p0's replacement draw
    s0 = forced.information_state_string(0)
    assert s0 == chosen.information_state_string(0)
    assert "p1 Lose Contessa" in s0 and "p0 proved" in s0


def test_perfect_recall_information_state_includes_own_private_draws():
    s = play(Rules(), ["Deal Duke+Captain", "Deal Contessa+Contessa", "Income", "Exchange", "Pass",
                       "Draw Duke+Assassin"])
    assert "p1 Draw Duke+Assassin" in s.information_state_string(1)
    assert "p1 drew 2 cards" in s.information_state_string(0)
    assert "Draw" not in s.information_state_string(0).replace("drew", "")
