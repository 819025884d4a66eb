"""``coupsolve.evaluation.losses``: each player's lost cards by cause, read from a game's events."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import coupsolve
from coupsolve.evaluation.arena import play
from coupsolve.evaluation.losses import CAUSES, CardLosses, losses, table
from coupsolve.openspiel.bots import HonestBot, RandomBot
from coup_helpers import SMALL_RULES, play as play_names

TRUE, BLUFF, COUP, ASSASSINATION = range(len(CAUSES))


def test_a_challenge_of_a_true_claim_and_a_caught_bluff():
    """p1 challenges p0's Tax (p0 holds the Duke), then bluffs a Steal, is challenged and loses its
    last card: one loss each way, the last one a forced step the game took by itself."""
    rules = coupsolve.Rules.standard(players=2)
    state = play_names(rules, ["Deal Duke+Duke", "Deal Captain+Contessa", "Tax", "Challenge", "Lose Captain",
                               "Draw Duke", "Steal p0", "Challenge"])
    assert state.is_terminal()
    expected = np.zeros((2, len(CAUSES)), dtype=np.int64)
    expected[1, TRUE] = expected[1, BLUFF] = 1
    assert (losses(state.events, 2) == expected).all()


def test_a_coup_and_an_assassination_challenged_and_then_taken():
    """p0 Coups p1; p1 Assassinates p0, who challenges (the Assassin is there) and loses a card for
    it, then its last to the Assassination: the attack and the challenge are told apart."""
    rules = coupsolve.Rules.standard(players=2, starting_coins="7,7")
    state = play_names(rules, ["Deal Duke+Duke", "Deal Assassin+Contessa", "Coup p1", "Lose Contessa",
                               "Assassinate p0", "Challenge", "Draw Duke", "Pass"])
    assert state.is_terminal()
    got = losses(state.events, 2)
    assert got[0].tolist() == [1, 0, 0, 1] and got[1].tolist() == [0, 0, 1, 0]


def _random_games(rules, seed, games):
    game = coupsolve.load_game(rules)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=np.asarray(probs) / sum(probs))))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        yield state


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), which=st.integers(0, len(SMALL_RULES) - 1))
def test_every_card_turned_face_up_is_counted_once(seed, which):
    """Random play of every small rule set (each variant is in one): a seat's losses are its face-up
    cards, plus the losses paid off in coins under the challenge buyout."""
    rules = SMALL_RULES[which]
    for state in _random_games(rules, seed, 3):
        n = rules.players
        got = losses(state.events, n)
        paid = [sum(1 for _, _, t in state.events if t == (p + 1) * coupsolve.engine.TOKEN_SEAT
                    + coupsolve.engine.ACT_PAY) for p in range(n)]
        assert got.sum(axis=1).tolist() == [len(state.face_up[p]) + paid[p] for p in range(n)]


def test_a_match_against_honest_bot_loses_no_card_to_its_bluffs():
    """HonestBot never bluffs, so it is never caught, and whoever challenges it challenges a true claim;
    the seats rotate, so each entry's counts are its own, whatever seat it sat in."""
    game = coupsolve.load_game(coupsolve.Rules.two_player_selection(turn_limit=100))
    watch = CardLosses(40, 2)
    play(game, [RandomBot(game), HonestBot(game)], 40, seed=3, names=["random", "honest"], watch=watch)
    summary = watch.summary(["random", "honest"])
    assert summary["honest"][CAUSES[BLUFF]] == (0.0, 0.0)
    assert summary["random"][CAUSES[TRUE]][0] > 0  # RandomBot challenges at random
    assert watch.counts.sum(axis=2).max() <= 2  # a two-player game: two cards a seat
    lines = table(summary, {"random": "RandomBot"})
    assert lines[1].split()[0] == "RandomBot" and len(lines) == 3


def test_summary_pools_entries_of_one_name_by_deal():
    watch = CardLosses(4, 2)
    watch.counts[:, 0, COUP] = [1, 0, 1, 2]  # deals of two games: (1, 0) and (1, 2)
    mean, half = watch.summary(["a", "b"])["a"][CAUSES[COUP]]
    assert mean == pytest.approx(1.0) and half == pytest.approx(1.959963984540054 * np.std([0.5, 1.5], ddof=1)
                                                                   / np.sqrt(2))
