"""The exact analysis against answers computed by hand."""

import math

import numpy as np
import pytest

import coupsolve
from coupsolve import Rules
from coupsolve import engine as E
from coupsolve.analysis.history import analyse
from coupsolve.analysis.claims import CLAIMS
from coup_helpers import histories

# Under pytest-xdist (`make test`) the module runs in one worker: its solved fixtures are made once.
pytestmark = pytest.mark.xdist_group("analysis")


@pytest.fixture(scope="module")
def coup_tree():
    return coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=1))


def test_uniform_policy_bluffs_at_the_rate_of_missing_the_card(coup_tree):
    a = analyse(coup_tree, coup_tree.tree.uniform_policy())
    # p0 lacks a given character with probability 4/5 (own choice) * 4/5 (dealt card) = 16/25, and so
    # does p1 when it blocks Foreign Aid (its dealt card is any of the five with probability 1/5 by
    # symmetry). (The blocks of a Steal are conditioned by the challenge before them, so they differ.)
    rows = {s.claim: s for s in a.claims}
    for claim in ("Tax", "Steal", "Exchange", "Block Duke"):
        assert rows[claim].bluff == pytest.approx(16 / 25)
        assert rows[claim].challenged == pytest.approx(1 / 2)
        assert rows[claim].challenge_success == pytest.approx(16 / 25)
    # one turn with five legal actions (p0 has 1 coin): each claim is made 1/5 times per game
    for claim in ("Tax", "Steal", "Exchange"):
        assert rows[claim].made == pytest.approx(1 / 5)
    assert rows["Block Duke"].made == pytest.approx(1 / 5 * 1 / 2)
    assert rows["Assassinate"].made == 0 and math.isnan(rows["Assassinate"].bluff)
    assert a.choice[0] == pytest.approx({c: 0.2 for c in coupsolve.CHARACTERS})


def test_a_constructed_bluffing_policy(coup_tree):
    # p0 taxes always with a Duke and half the time without one (else takes Income)
    tree = coup_tree.tree
    sigma = tree.uniform_policy()
    for I in range(tree.num_infosets):
        v = coup_tree.infoset_rep[I]
        ctx = coup_tree.node_context[v]
        if (ctx & 15) != E.PH_TURN or tree.infoset_player[I] != 0:
            continue
        acts = list(tree.actions(I))
        o = tree.infoset_offset[I]
        sigma[o:o + len(acts)] = 0.0
        holds = (ctx >> E.CTX_HAND) & 1
        sigma[o + acts.index(E.ACT_TAX)] = 1.0 if holds else 0.5
        if not holds:
            sigma[o + acts.index(E.ACT_INCOME)] = 0.5
    a = analyse(coup_tree, sigma)
    tax = {s.claim: s for s in a.claims}["Tax"]
    p_duke = 9 / 25
    assert tax.made == pytest.approx(p_duke + (1 - p_duke) * 0.5)
    assert tax.bluff == pytest.approx((1 - p_duke) * 0.5 / (p_duke + (1 - p_duke) * 0.5))  # = 8/17


def test_totals_are_consistent_on_a_solved_strategy():
    import solvers

    rules = Rules.two_player_selection(turn_limit=2, limit_payoff="influence")
    coup_tree = coupsolve.build_coup_tree(rules)
    result = solvers.solve(coup_tree.tree, iterations=30, progress=False)
    a = analyse(coup_tree, result.average_policy)
    assert a.game_value[0] == pytest.approx(result.game_value[0])
    for rows in [a.claims] + list(a.by_turn.values()) + list(a.by_influence.values()):
        for s in rows:
            for x in (s.bluff, s.challenged, s.challenge_success):
                assert math.isnan(x) or 0.0 <= x <= 1.0 + 1e-12
    for c, claim in enumerate(CLAIMS):
        by_turn = sum(rows[c].made for rows in a.by_turn.values())
        by_infl = sum(rows[c].made for rows in a.by_influence.values())
        assert by_turn == pytest.approx(a.claims[c].made) and by_infl == pytest.approx(a.claims[c].made)
    for seat in (0, 1):
        assert sum(a.choice[seat].values()) == pytest.approx(1.0)
        assert sum(p for p, _ in a.hand_value[seat].values()) == pytest.approx(1.0)
        # the value of the game is the choice-weighted value of each choice
        mean = sum(a.choice[seat][c] * a.choice_value[seat][c] for c in a.choice[seat])
        assert mean == pytest.approx(a.game_value[seat], abs=1e-9)
    assert "Tax" in a.to_table()


# Small games with every claim but the Treaty: turn limit 2 reaches claimants down to one influence.
FOUR = Rules.standard(players=2, characters="Duke+Assassin+Captain+Contessa", copies=1, starting_coins="3,3")
INDEPENDENT = [FOUR.replace(turn_limit=1), FOUR.replace(turn_limit=2),
               Rules.standard(players=2, turn_limit=1, characters="Captain+Ambassador+Contessa", copies=2,
                              starting_coins="3,3")]
# The character each claim names, written out here rather than taken from the analysis.
CLAIMED = {"Tax": "Duke", "Steal": "Captain", "Assassinate": "Assassin", "Exchange": "Ambassador",
           "Block Duke": "Duke", "Block Contessa": "Contessa", "Block Captain": "Captain",
           "Block Ambassador": "Ambassador"}


def _claim(name):
    """The claim an action name makes ('Steal p1' -> 'Steal'), or None."""
    claim = name if name.startswith("Block ") else name.split()[0]
    return claim if claim in CLAIMED else None


def _counts_by_walking(game, policy):
    """(made, bluffs, challenges, successes) per (turn, claimant's influence, claim), from a walk of
    the OpenSpiel game: action names, seats' hands and influence, reach under ``policy``."""
    counts = {}

    def add(turn, infl, claim, field, w):
        row = counts.setdefault((turn, "one" if infl == 1 else "two", claim), [0.0] * 4)
        row[field] += w

    for state, reach, path in histories(game, policy):
        if state.is_terminal() or state.is_chance_node():
            continue
        player = state.current_player()
        for a, p in policy.action_probabilities(state).items():
            name, w = state.action_to_string(player, a), reach * p
            if _claim(name):
                claimant, claim, field = player, _claim(name), 0
            elif name == "Challenge":  # of the latest claim
                claimant, claim = next((q, _claim(n)) for q, n in reversed(path) if _claim(n))
                field = 2
            else:
                continue
            add(state.turn, state.influence[claimant], claim, field, w)
            if CLAIMED[claim] not in state.hand(claimant):
                add(state.turn, state.influence[claimant], claim, field + 1, w)
    return counts


def _counts(stats):
    """The analysis's row as expected counts (made, bluffs, challenges, successes)."""
    made = stats.made
    challenges = stats.challenged * made if made > 0 else 0.0
    return (made, stats.bluff * made if made > 0 else 0.0, challenges,
            stats.challenge_success * challenges if challenges > 0 else 0.0)


@pytest.mark.parametrize("rules", INDEPENDENT, ids=str)
def test_by_turn_and_by_influence_match_a_walk_of_the_openspiel_game(rules):
    import solvers

    coup_tree = coupsolve.build_coup_tree(rules)
    game = coupsolve.load_game(rules)
    result = solvers.solve(coup_tree.tree, iterations=20, progress=False)
    a = analyse(coup_tree, result.average_policy)
    walked = _counts_by_walking(game, result.to_openspiel_policy(game))
    assert {claim for _, _, claim in walked} >= {"Steal", "Block Captain"}
    assert all(sum(row[f] for row in walked.values()) > 0 for f in range(4))  # bluffs, caught ones too
    if rules.turn_limit == 2:
        assert {(t, infl) for t, infl, _ in walked} >= {(1, "two"), (2, "two"), (2, "one")}
    zero = [0.0] * 4
    for c, claim in enumerate(CLAIMS):
        for t, rows in a.by_turn.items():
            want = [sum(walked.get((t, i, claim), zero)[f] for i in ("one", "two")) for f in range(4)]
            assert _counts(rows[c]) == pytest.approx(want, abs=1e-9, rel=0)
        for i, rows in a.by_influence.items():
            want = [sum(walked.get((t, i, claim), zero)[f] for t in a.by_turn) for f in range(4)]
            assert _counts(rows[c]) == pytest.approx(want, abs=1e-9, rel=0)
        want = [sum(row[f] for key, row in walked.items() if key[2] == claim) for f in range(4)]
        assert _counts(a.claims[c]) == pytest.approx(want, abs=1e-9, rel=0)


def test_analysis_needs_the_context():
    bare = coupsolve.build_tree(Rules.two_player_selection(turn_limit=1))
    with pytest.raises(ValueError, match="context=True"):
        analyse(bare, bare.uniform_policy())


def _hands_checked(a, seat, strict_equal=False):
    """Every hand's best-response value is at least its value under the strategy (equal if
    ``strict_equal``); returns the probability-weighted mean of the best-response values."""
    for hand, (p, v) in a.hand_value[seat].items():
        br = a.hand_best_response[seat][hand]
        assert br >= v - 1e-12, (seat, hand, br, v)
        if strict_equal:
            assert br == pytest.approx(v, abs=1e-12), (seat, hand)
    return sum(p * a.hand_best_response[seat][h] for h, (p, _) in a.hand_value[seat].items())


@pytest.mark.parametrize("rules", [FOUR.replace(turn_limit=2), Rules.two_player_selection(turn_limit=1)],
                         ids=str)
def test_hand_values_by_best_response(rules, monkeypatch):
    """A hand's best-response value is never below its value under the strategy, equal to it where the
    strategy is a best response; their mean is the seat's best-response value (standard setup) or the
    choice-weighted mean of the choices' best-response values (card selection); one best response a seat."""
    import importlib

    import solvers

    B = importlib.import_module("solvers.history.best_response")  # the package's best_response is the function
    coup_tree = coupsolve.build_coup_tree(rules)
    tree = coup_tree.tree
    sigma = solvers.solve(tree, iterations=5, progress=False).average_policy
    calls = []
    original = B.best_response
    monkeypatch.setattr(B, "best_response", lambda *args: calls.append(args[2]) or original(*args))
    a = analyse(coup_tree, sigma)
    assert sorted(calls) == [0, 1]  # one best response for each seat, shared by the choice and the hands
    gains = []
    for seat in (0, 1):
        mean = _hands_checked(a, seat)
        best = original(tree, sigma, seat)
        if rules.setup == "selection":
            assert mean == pytest.approx(sum(a.choice[seat][c] * a.choice_best_response[seat][c]
                                             for c in a.choice[seat]), abs=1e-9)
            assert mean <= best.value + 1e-12
        else:
            assert mean == pytest.approx(best.value, abs=1e-9)
        gains += [a.hand_best_response[seat][h] - v for h, (_, v) in a.hand_value[seat].items()]
        # where the seat already plays a best response, every hand's two values agree and their mean is
        # the best-response value
        again = analyse(coup_tree, best.policy)
        assert _hands_checked(again, seat, strict_equal=True) == pytest.approx(best.value, abs=1e-9)
    assert max(gains) > 1e-3  # five iterations are far from a best response: the column tells them apart
    data = a.to_dict()["hand_best_response"]
    assert set(data) == {"0", "1"} and set(data["0"]) == set(a.hand_value[0])
    assert "best response" in a.to_table().split("value by starting hand")[1]


def test_an_analysis_read_back_from_its_dict_is_the_same(coup_tree, tmp_path):
    """``Analysis.from_dict`` inverts ``to_dict`` (a strategy file's kept analysis): the same dict,
    table and plot, NaN rates (claims never made) included."""
    import json

    a = analyse(coup_tree, coup_tree.tree.uniform_policy(), meta={"title": "uniform"})
    d = json.loads(json.dumps(a.to_dict()))
    back = coupsolve.analysis.history.Analysis.from_dict(d)
    assert back.to_dict() == a.to_dict()
    assert back.to_table() == a.to_table()
    assert math.isnan({s.claim: s for s in back.claims}["Assassinate"].bluff)
    assert set(back.choice) == {0, 1} and set(back.by_turn) == set(a.by_turn)
    back.plot(tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0
