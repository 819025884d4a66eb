"""The edges of the rules configuration: every field's range, bad input, game-string round trips.

One table row per ``Rules`` field: the values at the edges of its range (accepted, and the game they
build plays), and the values just outside it, of a wrong type, non-integral or huge (refused with a
one-line ``ValueError`` that starts with the field's name). Integral floats such as ``2.0`` are refused
like any other float: a whole-number field takes an integer.
"""

import dataclasses

import numpy as np
import pyspiel
import pytest

import coupsolve
from coupsolve import Rules
from coupsolve import rules as R

HUGE = [2**31 - 1, 2**31, 10**30, -2**31]
FLAG = ([False, True, "true", "False", 0, 1], ["ture", "yes", 2, -1, 0.5, 1.0, None, *HUGE])


def _coins(context=None):
    """The row of a field of coins: 0 to 1000."""
    return context or {}, [0, 1000], [-1, 1001, 1.5, 3.0, "3", None, *HUGE]


# field -> (other fields the edges need, accepted values, refused values)
TABLE = {
    "players": ({}, [2, 6], [1, 7, 0, 2.5, 3.0, "3", True, None, *HUGE]),
    "setup": ({}, ["standard", "selection"], ["Standard", "selectoin", "", 1, None, True]),
    "turn_limit": ({}, [1, 10_000], [0, -1, 10_001, 100_000, 2.5, 5.0, "5", None, *HUGE]),
    "limit_payoff": ({}, ["draw", "influence"], ["drew", "Draw", 0, None]),
    "starting_seat": ({"players": 6}, [0, 5, "p5", "3", "random"],
                      [-1, 6, 1.5, 1.0, True, "randon", "p1.5", "p", "", None, *HUGE]),
    "starting_coins": ({"players": 6}, [0, 1000, (0,) * 6, (1000, 0), [4, 5], "1000;0", "1,2", "3;", None],
                       [-1, 1001, (1.5,), (True,), 2.5, 3.0, "1,x", "1.5", (0,) * 7, (), "", ";", {}, *HUGE,
                        (2**31,), "10000000000"]),
    "characters": ({"copies": 4}, [("Duke",), "Contessa", coupsolve.CHARACTERS],
                   ["Duek", "Duke+Duke", (), "", 5, None, ("Duke", 3)]),
    "copies": ({}, [1, 100], [0, -1, 101, 2.5, 3.0, "3", None, *HUGE]),
    "coup_cost": _coins({"forced_coup": 1000}),
    "assassinate_cost": _coins(),
    "forced_coup": _coins({"coup_cost": 0}),
    "selective_coup": ({}, *FLAG),
    "contessa_blocks_tax": ({}, *FLAG),
    "factions": ({}, *FLAG),
    "ambassador_halves_steal": ({}, *FLAG),
    "challenge_bounty": _coins(),
    "challenge_buyout": _coins(),
    "marked_cards": ({}, *FLAG),
    "event_mat": ({}, *FLAG),
    "decline_proof": ({}, *FLAG),
}
GOOD = [(f, v) for f, (_, good, _) in TABLE.items() for v in good]
BAD = [(f, v) for f, (_, _, bad) in TABLE.items() for v in bad]


def test_the_table_covers_every_field():
    fields = {f.name for f in dataclasses.fields(Rules)}
    assert set(TABLE) == fields
    assert set(R.RANGES) == fields  # the exported ranges too


@pytest.mark.parametrize("field,value", BAD, ids=lambda x: repr(x)[:20])
def test_values_outside_a_range_are_refused_naming_the_field(field, value):
    with pytest.raises(ValueError, match=rf"^{field}\b") as err:
        Rules(**{**TABLE[field][0], field: value})
    assert "\n" not in str(err.value)


def _play(game, seed, moves=40):
    """A few random moves through the OpenSpiel state (chance by its probabilities)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(moves):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert min(probs) > 0 and abs(sum(probs) - 1) < 1e-12
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("field,value", GOOD, ids=lambda x: repr(x)[:20])
def test_values_at_the_edges_are_accepted_and_play(field, value):
    rules = Rules(**{**TABLE[field][0], field: value})
    game = coupsolve.load_game(rules)
    state = _play(game, seed=len(GOOD))
    assert all(0 <= c <= 10**6 for c in state.coins)
    # the game string reads back to the same rules
    assert pyspiel.load_game(str(game)).rules == rules


# every way of writing the starting coins, each as a single value and as a list
COIN_FORMS = [3, (3,), [3], "3", "3;", "3,", 0, (1, 2), [1, 2], "1,2", "1;2", " 1 ; 2 ", np.int64(4),
              (np.int32(2), 5)]


@pytest.mark.parametrize("coins", COIN_FORMS, ids=repr)
def test_starting_coins_round_trip_through_game_strings(coins):
    rules = Rules(turn_limit=4, starting_coins=coins)
    game = coupsolve.load_game(rules)
    text = str(game)
    assert pyspiel.load_game(text).rules == rules
    assert coupsolve.load_game(text).rules == rules
    assert pyspiel.load_game(rules.game_string()).rules == rules  # a saved strategy's game (the CLI)
    state = _play(game, seed=1, moves=6)
    game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert game2.rules == rules and str(state2) == str(state)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def _nondefault():
    """Every field at a value other than its default (one rules object, valid together)."""
    return Rules(players=3, setup="standard", turn_limit=7, limit_payoff="influence", starting_seat="random",
                 starting_coins=(0, 4), characters=("Duke", "Captain", "Contessa"), copies=4, coup_cost=6,
                 assassinate_cost=2, forced_coup=9, selective_coup=True, contessa_blocks_tax=True,
                 factions=True, ambassador_halves_steal=True, challenge_bounty=1, challenge_buyout=4,
                 marked_cards=True, event_mat=True, decline_proof=True)


def test_every_field_round_trips_through_the_game_string():
    rules = _nondefault()
    default = Rules()
    assert all(getattr(rules, f.name) != getattr(default, f.name) for f in dataclasses.fields(Rules)
               if f.name != "setup")
    selection = Rules.two_player_selection(turn_limit=3, starting_seat=1, starting_coins=5)
    for r in (rules, selection):
        game = coupsolve.load_game(r)
        assert pyspiel.load_game(str(game)).rules == r
        assert coupsolve.load_game(str(game)).rules == r
        assert Rules.from_json(r.to_json()) == r


@pytest.mark.parametrize("text,field", [
    ("python_coup(turn_limit=100000)", "turn_limit"),
    ("python_coup(turn_limit=3000000000)", "turn_limit"),
    ("python_coup(challenge_bounty=2147483647)", "challenge_bounty"),
    ("python_coup(copies=1000000000)", "copies"),
    ("python_coup(starting_coins=-1)", "starting_coins"),
    ("python_coup(players=9)", "players"),
    ("python_coup(copies=2.5)", "copies"),
    ("python_coup(factions=maybe)", "factions"),
])
def test_bad_game_strings_give_the_rules_error(text, field):
    with pytest.raises(ValueError, match=rf"^{field}\b") as err:
        coupsolve.load_game(text)
    assert "\n" not in str(err.value)


def test_values_that_fit_openspiel_are_checked_by_the_constructor_too():
    with pytest.raises(ValueError, match="^challenge_bounty"):
        pyspiel.load_game("python_coup(challenge_bounty=2147483647)")
    with pytest.raises(ValueError, match="^copies"):
        pyspiel.load_game("python_coup", {"copies": 10**9})


@pytest.mark.parametrize("how", ["string", "options"])
def test_unknown_names_list_the_valid_ones(how):
    with pytest.raises(ValueError, match="jokers.*players.*turn_limit") as err:
        if how == "string":
            coupsolve.load_game("python_coup(players=3,jokers=2)")
        else:
            coupsolve.load_game(jokers=2)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text", ["python_coup(players=3", "kuhn_poker()", "python_coup(players)",
                                  "python_coup(turn_limit=1,turn_limit=2)",
                                  "python_coup(turn_limit=1, players=2, turn_limit=1)"])
def test_malformed_game_strings(text):
    with pytest.raises(ValueError, match="game string"):
        coupsolve.load_game(text)


def test_the_ranges_are_documented_from_the_table():
    for name, rng in R.RANGES.items():
        assert f"{name}: {rng.describe()}" in " ".join(Rules.__doc__.split())


def test_a_parameter_given_twice_is_named():
    # OpenSpiel's own parser keeps the last value silently; coupsolve's refuses the string
    with pytest.raises(ValueError, match=r"turn_limit is given more than once") as err:
        coupsolve.load_game("python_coup(turn_limit=1,turn_limit=2)")
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("options", [{}, {"turn_limit": 1}, {"players": 3, "turn_limit": 2}])
def test_one_default_setup_through_every_door(options):
    """``Rules(...)``, ``coupsolve.load_game(...)`` and OpenSpiel's game string with no ``setup`` are one
    game (the standard setup); the command line's default preset is named in its output instead."""
    rules = Rules(**options)
    text = "python_coup(" + ",".join(f"{k}={v}" for k, v in options.items()) + ")"
    assert str(pyspiel.load_game(text)) == rules.game_string()
    assert coupsolve.load_game(**options).rules == rules == pyspiel.load_game(text).rules
    assert rules.setup == "standard"


@pytest.mark.parametrize("rules", [Rules(), Rules(turn_limit=1), Rules.two_player_selection(turn_limit=1),
                                   Rules.standard(players=4, selective_coup=True)])
def test_the_rules_name_their_setup_and_players(rules):
    # "Rules(turn_limit=1)" left the setup implicit, and the doors' defaults differ (the CLI's is selection)
    assert f"players={rules.players}, setup={rules.setup}" in str(rules)
