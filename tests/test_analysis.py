"""The exact analysis against answers computed by hand."""

import math

import numpy as np
import pytest

import coupsolve
from coupsolve import Rules
from coupsolve import engine as E
from coupsolve.analysis import CLAIMS, analyse


@pytest.fixture(scope="module")
def tree():
    return coupsolve.build_tree(Rules.two_player_selection(turn_limit=1), context=True)


def test_uniform_policy_bluffs_at_the_rate_of_missing_the_card(tree):
    a = analyse(tree, tree.uniform_policy())
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


def test_a_constructed_bluffing_policy(tree):
    # p0 taxes always with a Duke and half the time without one (else takes Income)
    sigma = tree.uniform_policy()
    for I in range(tree.num_infosets):
        v = tree.infoset_rep[I]
        ctx = tree.node_context[v]
        if (ctx & 15) != E.PH_TURN or tree.infoset_player[I] != 0:
            continue
        acts = list(tree.actions(I))
        o = tree.infoset_offset[I]
        sigma[o:o + len(acts)] = 0.0
        holds = (ctx >> E.CTX_HAND) & 1
        sigma[o + acts.index(E.ACT_TAX)] = 1.0 if holds else 0.5
        if not holds:
            sigma[o + acts.index(E.ACT_INCOME)] = 0.5
    a = analyse(tree, sigma)
    tax = {s.claim: s for s in a.claims}["Tax"]
    p_duke = 9 / 25
    assert tax.made == pytest.approx(p_duke + (1 - p_duke) * 0.5)
    assert tax.bluff == pytest.approx((1 - p_duke) * 0.5 / (p_duke + (1 - p_duke) * 0.5))  # = 8/17


def test_totals_are_consistent_on_a_solved_strategy():
    import solvers

    rules = Rules.two_player_selection(turn_limit=2, limit_payoff="influence")
    tree = coupsolve.build_tree(rules, context=True)
    result = solvers.solve(tree, iterations=30, progress=False)
    a = analyse(tree, result.average_policy)
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


def test_analysis_needs_the_context(tree):
    bare = coupsolve.build_tree(Rules.two_player_selection(turn_limit=1))
    with pytest.raises(ValueError, match="context=True"):
        analyse(bare, bare.uniform_policy())
