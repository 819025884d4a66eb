"""The selection table (coupsolve.analysis.selection): each turn-1 rate under CFR+, under MMD and over
the epsilon-equilibria; the bilinear intervals behind it (solvers.history.intervals.bilinear_interval)
against Kuhn poker's known equilibrium family, the rates against the exact analysis, the programs'
profiles against the exact best response."""

import json
import math

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.analysis import analyse
from coupsolve.analysis.selection import (DETERMINED, Selection, SelectionRow, check_rules, rate_forms,
                                          selection)
from coupsolve.rules import Rules
from solvers.history.intervals import EquilibriumPolytope, ratio_at
from solvers.history.mmd import SequenceForm, history_sequences, sequence_form

pytest.importorskip("scipy")

TL1 = Rules.two_player_selection(turn_limit=1)


@pytest.fixture(scope="module")
def coup_tree():
    return coupsolve.build_coup_tree(TL1)


@pytest.fixture(scope="module")
def chosen(coup_tree):
    """The selection at turn limit 1, intervals for the card choices and the rates whose condition
    holds at least 0.9 times a game (the Steal's bluff and challenge rates)."""
    return selection(TL1, coup_tree=coup_tree, mmd_iterations=3000, min_weight=0.9)


def _kuhn_bet_then_call(tree):
    """Player 1 calls given player 0 bets first, as bilinear forms: each deal's chance reach times
    player 0's bet sequence and player 1's call sequence (numerator) or its empty one."""
    seq, reach = history_sequences(tree)
    num, den = ([], [], []), ([], [], [])
    for c0 in "012":
        bet = int(tree.infoset_offset[tree.infoset_index(c0)]) + 1
        for c1 in "012":
            if c1 == c0:
                continue
            call = int(tree.infoset_offset[tree.infoset_index(c1 + "b")]) + 1
            for form, s1 in ((num, call), (den, tree.num_actions + 1)):
                form[0].append(bet)
                form[1].append(s1)
                form[2].append(1 / 6)
    return tuple(np.array(v) for v in num), tuple(np.array(v) for v in den)


def test_kuhn_bilinear_rate_over_the_equilibrium_family(kuhn):
    """Kuhn's equilibria (Kuhn 1950): player 0 bets a Jack with alpha in [0, 1/3], a King with 3
    alpha, never a Queen first; player 1 calls with a Queen 1/3, a King always, a Jack never. So
    P(call | bet) = (alpha (1/3 + 1) + 3 alpha (0 + 1/3)) / (2 alpha + 6 alpha) = 7/24 for every
    alpha > 0: determined, though the bet itself is not. The outer bound holds it, and every
    equilibrium met attains exactly it."""
    _, tree = kuhn
    num, den = _kuhn_bet_then_call(tree)
    found = EquilibriumPolytope(tree).bilinear_interval(num, den, epsilon=0.0)
    assert found.low <= 7 / 24 + 1e-9 and found.high >= 7 / 24 - 1e-9
    assert found.seen_low == pytest.approx(7 / 24, abs=1e-7)
    assert found.seen_high == pytest.approx(7 / 24, abs=1e-7)
    assert not found.exact and found.programs >= 4


def test_kuhn_bilinear_interval_holds_a_solve(kuhn):
    """At epsilon 1e-3 a CFR+ strategy of exploitability under it lies inside the outer bounds."""
    _, tree = kuhn
    num, den = _kuhn_bet_then_call(tree)
    result = solvers.solve(tree, "cfr+", target_exploitability=5e-4, iterations=10_000, progress=False)
    z = sequence_form(result.average_policy, tree, SequenceForm(tree))
    found = EquilibriumPolytope(tree).bilinear_interval(num, den, 1e-3, witnesses=[z])
    value = ratio_at(z, num, den)
    assert found.low - 1e-9 <= value <= found.high + 1e-9
    assert found.seen_low <= value <= found.seen_high


def test_rates_equal_the_exact_analysis(coup_tree):
    """Each rate's bilinear forms at a CFR+ strategy give the exact analysis's turn-1 figures (a
    separate computation: reach probabilities by a pass over the tree)."""
    result = solvers.solve(coup_tree.tree, iterations=20, progress=False)
    z = sequence_form(result.average_policy, coup_tree.tree, SequenceForm(coup_tree.tree))
    a = analyse(coup_tree, result.average_policy)
    stats = {s.claim: s for s in a.by_turn[1]}
    field = {"bluff": "bluff", "challenged": "challenged", "challenge wins": "challenge_success"}
    checked = 0
    for form in rate_forms(coup_tree):
        if form.kind == "card choice":
            seat, card = form.subject.split()
            expected = a.choice[int(seat[1])][card]
        else:
            expected = getattr(stats[form.subject], field[form.kind])
            if form.kind != "challenge wins":
                assert form.weight(z) == pytest.approx(stats[form.subject].made, abs=1e-12)
        assert form.value(z) == pytest.approx(expected, abs=1e-10)
        checked += 1
    assert checked >= 10 + 3 * 4


def test_intervals_hold_both_solves_and_verdicts_follow(chosen):
    rows = [r for r in chosen.rows if not math.isnan(r.low)]
    assert len(rows) == 12  # ten card choices, the Steal's bluff and challenge rates
    for name, value in (("cfr+", "cfr_plus"), ("mmd", "mmd")):
        if chosen.solves[name]["exploitability"] <= chosen.epsilon:
            for r in rows:
                assert r.low - 1e-7 <= getattr(r, value) <= r.high + 1e-7
                assert r.seen_low - 1e-7 <= getattr(r, value) <= r.seen_high + 1e-7
    for r in chosen.rows:
        if r.verdict == "determined":
            assert r.high - r.low < DETERMINED
        elif r.verdict == "not determined":
            assert r.seen_high - r.seen_low >= DETERMINED
    steal = {r.kind: r for r in chosen.rows if r.subject == "Steal"}
    assert steal["bluff"].verdict == "not determined"  # CFR+ 0%, MMD about 60%: both equilibria
    assert 0.0 < steal["bluff"].weight_low <= 1.0 + 1e-9 and 0.0 < steal["bluff"].weight_high <= 1.0 + 1e-9


def _behavioural(tree, z):
    """The behavioural policy of the sequence forms ``z`` (uniform where a parent has no reach)."""
    sf = SequenceForm(tree)
    sigma = np.empty(tree.num_actions)
    for i in range(tree.num_infosets):
        o, n = int(tree.infoset_offset[i]), int(tree.infoset_num_actions[i])
        row = np.clip(z[o:o + n], 0.0, None)
        sigma[o:o + n] = row / row.sum() if z[sf.parent[i]] > 1e-12 and row.sum() > 0 else 1.0 / n
    return sigma


def test_extreme_profile_is_an_epsilon_equilibrium(coup_tree):
    """The profile attaining the largest Duke choice of player 0, as a behavioural policy, has
    exploitability at most epsilon by the exact best response, and chooses the Duke as the program
    says."""
    tree = coup_tree.tree
    form = next(f for f in rate_forms(coup_tree) if f.subject == "p0 Duke")
    polytope = EquilibriumPolytope(tree)
    num = {int(s): float(w) for s, w in zip(form.numerator[0], form.numerator[2])}
    value, z = polytope.extreme(num, None, 1e-3, sign=-1.0)
    sigma = _behavioural(tree, z)
    assert solvers.exploitability(tree, sigma) <= 1e-3 + 1e-6
    assert form.value(sequence_form(sigma, tree, SequenceForm(tree))) == pytest.approx(value, abs=1e-6)


@pytest.mark.parametrize("turn_limit, claim", [
    (1, "Steal"), pytest.param(2, "Tax", marks=pytest.mark.slow)])  # turn limit 2: 35 s to minutes
def test_attained_bluff_rates_are_epsilon_equilibria_by_the_analysis(coup_tree, turn_limit, claim):
    """The two profiles attaining a claim's smallest and largest turn-1 bluff rate: each, as a
    behavioural policy, has exploitability at most epsilon by the exact best response, and the exact
    analysis (reach by a pass over the tree) reads the same bluff rate off it."""
    if turn_limit != 1:
        coup_tree = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=turn_limit))
    tree = coup_tree.tree
    form = next(f for f in rate_forms(coup_tree) if f.subject == claim and f.kind == "bluff")
    found = EquilibriumPolytope(tree).bilinear_interval(form.numerator, form.denominator, 1e-3)
    assert found.seen_high - found.seen_low >= DETERMINED
    for value, z in zip((found.seen_low, found.seen_high), found.profiles):
        sigma = _behavioural(tree, z)
        assert solvers.exploitability(tree, sigma) <= 1e-3 + 1e-6
        stats = next(s for s in analyse(coup_tree, sigma).by_turn[1] if s.claim == claim)
        assert stats.bluff == pytest.approx(value, abs=1e-6)


def test_table_json_and_plot(chosen, tmp_path):
    text = chosen.to_table()
    assert "Steal bluff" in text and "not determined" in text and "[0.0%, 100.0%]" in text
    back = Selection.from_dict(json.loads(json.dumps(chosen.to_dict())))
    for a, b in zip(chosen.rows, back.rows):
        assert a.verdict == b.verdict and a.cfr_plus == b.cfr_plus and a.mmd == b.mmd
        assert (math.isnan(a.low) and math.isnan(b.low)) or a.low == b.low
    row = chosen.to_dict()["rates"][0]
    assert {"cfr_plus", "mmd", "low", "high", "verdict"} <= set(row)
    chosen.plot(tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 10_000


def test_verdicts_of_a_row():
    row = SelectionRow("bluff", "Tax", 0.5, 0.5, 1.0, 1.0, low=0.49, high=0.505)
    assert row.verdict == "determined"
    row = SelectionRow("bluff", "Tax", 0.5, 0.6, 1.0, 1.0, low=0.0, high=1.0, seen_low=0.5, seen_high=0.6)
    assert row.verdict == "not determined"
    row.seen_high = 0.51
    assert row.verdict == "open"
    assert SelectionRow("bluff", "Tax", 0.5, 0.6, 1.0, 1.0).verdict == "no interval"
    assert SelectionRow("bluff", "Tax", 0.5, 0.5, 1.0, 1.0, seen_low=0.5, seen_high=0.5).verdict == "open"


@pytest.mark.parametrize("rules, words", [
    (Rules.two_player_selection(turn_limit=3), "turn limit 3"),
    (Rules.standard(players=3, turn_limit=1), "3 players")])
def test_rules_it_refuses(rules, words):
    with pytest.raises(ValueError, match=words):
        check_rules(rules)


@pytest.mark.slow
def test_solve_selection_prints_writes_and_draws(tmp_path, capsys):
    """``solve --selection`` at turn limit 1 (about 3 minutes): the table, the JSON's three figures of
    every rate, the plot beside --plot's."""
    from coupsolve.cli import main

    report, plot = tmp_path / "r.json", tmp_path / "rates.png"
    assert main(["solve", "--turn-limit", "1", "--iterations", "30", "--no-progress", "--selection",
                 "--json", str(report), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "turn 1 rates under CFR+, under MMD" in out and "Steal bluff" in out
    rates = json.loads(report.read_text())["selection"]["rates"]
    assert len(rates) >= 10 + 3 * 4
    for r in rates:
        assert {"cfr_plus", "mmd", "low", "high", "verdict"} <= set(r)
        if r["low"] is not None:
            assert r["low"] - 1e-7 <= r["cfr_plus"] <= r["high"] + 1e-7
    assert (tmp_path / "rates.selection.png").stat().st_size > 10_000


SMALL = Rules.standard(players=2, turn_limit=1, characters="Duke+Captain+Contessa", copies=2)


@pytest.mark.parametrize("rules", [pytest.param(SMALL, id="standard-3-characters-tl1"),
                                   pytest.param(TL1, id="selection-tl1", marks=pytest.mark.slow)])
def test_solves_exploitability_by_openspiel_and_intervals_hold_them(rules):
    """The exploitabilities the selection records (and so which solves count as epsilon-equilibria)
    are OpenSpiel's, on its Python game; every computed interval holds each such solve's rate."""
    from open_spiel.python.algorithms import exploitability as os_exploitability

    chosen = selection(rules, mmd_iterations=2000)
    game = coupsolve.load_game(rules)
    for name, value in (("cfr+", "cfr_plus"), ("mmd", "mmd")):
        result = chosen.results[name]
        theirs = os_exploitability.exploitability(game, result.to_openspiel_policy(game))
        assert chosen.solves[name]["exploitability"] == pytest.approx(theirs, abs=1e-9)
        if theirs <= chosen.epsilon:
            for r in chosen.rows:
                if not math.isnan(r.low) and not math.isnan(getattr(r, value)):
                    assert r.low - 1e-7 <= getattr(r, value) <= r.high + 1e-7
    assert any(not math.isnan(r.low) for r in chosen.rows)
