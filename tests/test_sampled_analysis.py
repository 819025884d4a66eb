"""The sampled bluff table against the exact analysis, and its intervals against their definitions."""

import math
from statistics import NormalDist

import pytest
from hypothesis import given, strategies as st
from open_spiel.python.policy import UniformRandomPolicy

import coupsolve
import solvers
from coupsolve import Rules, load_game
from coupsolve.analysis.history import analyse
from coupsolve.openspiel.policy import HistoryTreePolicy
from coupsolve.analysis.sampled import MIN_EVENTS, sampled_analysis, wilson


@pytest.fixture(scope="module")
def solved():
    rules = Rules.two_player_selection(turn_limit=1)
    coup_tree = coupsolve.build_coup_tree(rules)
    result = solvers.solve(coup_tree.tree, target_exploitability=1e-3, progress=False)
    return rules, coup_tree, result.average_policy


def test_self_play_of_the_exact_strategy_finds_the_exact_rates(solved):
    rules, coup_tree, sigma = solved
    exact = analyse(coup_tree, sigma)
    game = load_game(rules)
    sampled = sampled_analysis(game, HistoryTreePolicy(game, coup_tree, sigma), games=4000, seed=7,
                               confidence=0.99)
    checked = 0
    for e, s in zip(exact.claims, sampled.claims):
        assert e.made > 0.0 or s.made.value == 0.0, e.claim  # a claim never made is never sampled
        if s.bluff.events < 200:  # the frequently made claims only
            continue
        for name in ("made", "bluff", "challenged", "challenge_success"):
            est, x = getattr(s, name), getattr(e, name)
            # where the intervals' normal approximation holds: a count that varies between games, and
            # at least 10 expected events of each outcome for a rate (a rate near 0 or 1 is left out)
            usable = est.high > est.low if name == "made" else min(x, 1 - x) * est.events >= 10
            if usable:
                assert est.low <= x <= est.high, (e.claim, name, x, est)
                checked += 1
    assert checked >= 8  # at least two claims' four figures
    # the payoffs: at turn limit 1 nearly every game is a draw (the exact game value is almost 0)
    assert abs(sampled.returns[0].value - exact.game_value[0]) < 0.01


@given(n=st.integers(1, 10_000), frac=st.floats(0, 1), conf=st.sampled_from([0.9, 0.95, 0.99]))
def test_wilson_interval_solves_its_defining_equation(n, frac, conf):
    k = round(frac * n)
    z = NormalDist().inv_cdf(0.5 + conf / 2)
    e = wilson(k, n, z)
    assert e.low <= k / n <= e.high and 0.0 <= e.low and e.high <= 1.0
    # the ends are the p with |k/n - p| = z sqrt(p (1 - p) / n), except where clipped at 0 or 1
    for p in (e.low, e.high):
        if 0.0 < p < 1.0:
            assert abs(k / n - p) == pytest.approx(z * math.sqrt(p * (1 - p) / n), rel=1e-6, abs=1e-12)
    assert math.isnan(wilson(0, 0, z).value)


@pytest.fixture(scope="module")
def four_players():
    game = load_game(Rules.standard(players=4))
    return game, sampled_analysis(game, UniformRandomPolicy(game), games=200, seed=3)


def test_groups_add_up_and_later_turns_share_a_row(four_players):
    game, a = four_players
    assert list(a.by_turn) == ["1", "2", "3", "4", "5", "6+"]
    for c, total in enumerate(a.claims):
        made = total.made.value * a.games
        assert sum(r[c].made.value for r in a.by_turn.values()) * a.games == pytest.approx(made)
        assert sum(r[c].made.value for r in a.by_influence.values()) * a.games == pytest.approx(made)
        assert total.bluff.events == round(made)
    # a uniformly random 4-player game played to the end has a winner: payoffs sum to 0 in each game
    assert sum(e.value for e in a.returns) == pytest.approx(0.0, abs=1e-9)
    assert any(r.made.value > 0 for r in a.claims)


def test_one_policy_for_all_seats_is_one_per_seat(four_players):
    game, a = four_players
    b = sampled_analysis(game, [UniformRandomPolicy(game)] * 4, games=200, seed=3)
    assert b.to_dict() == a.to_dict()
    c = sampled_analysis(game, UniformRandomPolicy(game), games=200, seed=4)
    assert c.to_dict()["claims"] != a.to_dict()["claims"]  # the seed matters


def test_table_marks_rates_from_few_events(four_players):
    game, a = four_players
    text = a.to_table()
    assert "200 sampled games" in text and "Wilson" in text
    for s in a.claims:
        if 0 < s.bluff.events < MIN_EVENTS:
            assert f"({100 * s.bluff.value:.1f}%" in text
    with pytest.raises(ValueError, match="one per seat"):
        sampled_analysis(game, [UniformRandomPolicy(game)] * 3, games=1)


def _marked(text):
    return text.strip().startswith("(")


def test_the_table_fits_100_columns_and_its_marks_are_what_the_legend_says(four_players):
    """The by-turn table was about 190 columns wide (issue 48); every line now fits WIDTH, the turns in
    blocks, and a rate is in parentheses exactly when it comes from fewer than MIN_EVENTS of what the
    legend says it counts (claims for bluff and challenged, challenges for chal. wins)."""
    from coupsolve.analysis.sampled import WIDTH, _cell

    game, a = four_players
    text = a.to_table()
    assert max(len(line) for line in text.splitlines()) <= WIDTH == 100
    assert all(f" {turn}" in text for turn in a.by_turn)  # every turn still has its column
    assert "claims for bluff and challenged, challenges for chal. wins" in text
    main = text.split("claim (character)")[1].split("\n\n")[0].splitlines()[1:]  # the claims table
    lines = {line[:23].strip(): line for line in main}
    for s in a.claims:
        if s.made.value <= 0:
            continue
        label = s.claim if s.character in s.claim.split() else f"{s.claim} ({s.character})"
        row = lines[label]
        cells = [row[40:60], row[60:80], row[80:100]]  # bluff, challenged, chal. wins (20 columns each)
        for cell, estimate in zip(cells, (s.bluff, s.challenged, s.challenge_success)):
            assert _marked(cell) == (0 < estimate.events < MIN_EVENTS), (s.claim, cell, estimate)
        assert s.challenged.events == s.bluff.events  # both count the claims; chal. wins the challenges
        assert s.challenge_success.events == round(s.challenged.value * s.challenged.events)
    for rows in a.by_turn.values():
        for row in rows:
            if row.made.value > 0:
                assert _marked(_cell(row)) == (row.bluff.events < MIN_EVENTS)


def test_the_exact_tables_legend_names_what_it_marks(solved):
    """The exact table marked a rarely challenged claim's "chal. wins" while its legend said the claim
    was made rarely (Steal, made once a game, "(0.0%)" under "the claim is made less than 0.01 times")."""
    from coupsolve.analysis.claims import REACH_THRESHOLD

    rules, coup_tree, sigma = solved
    exact = analyse(coup_tree, sigma)
    text = exact.to_table()
    main = text.split("chal. wins")[1].split("\n\n")[0].splitlines()[1:]  # the claims table
    rows = {line[:17].strip(): line for line in main}
    marked_by_challenges = [s.claim for s in exact.claims if s.made >= REACH_THRESHOLD
                            and _marked(rows[s.claim][68:80])]
    assert marked_by_challenges  # Steal at turn limit 1: made about once a game, never challenged
    for claim in marked_by_challenges:
        s = next(s for s in exact.claims if s.claim == claim)
        assert s.made * s.challenged < REACH_THRESHOLD  # marked for its challenges, not its claims
    assert "the claim is made less than" not in text and "for chal. wins, the challenges" in text
