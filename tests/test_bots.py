"""Baseline bots (coupsolve.openspiel.bots): RandomBot is uniform, HonestBot never bluffs and counts cards."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import coupsolve
from coupsolve import engine as E
from coupsolve.openspiel.bots import HonestBot, RandomBot
from coupsolve.rules import CHARACTERS


def _games(players, turn_limit=100):
    return coupsolve.load_game(coupsolve.Rules.standard(players=players, turn_limit=turn_limit))


def _walk(game, seed, decide):
    """One game: chance and every seat's move drawn at random, ``decide(state)`` called at every
    decision first (it may return an action to play instead)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=np.asarray(probs) / sum(probs))))
            continue
        action = decide(state)
        state.apply_action(int(rng.choice(state.legal_actions())) if action is None else action)


def _counts(cards):
    return np.bincount([CHARACTERS.index(c) for c in cards], minlength=E.NCH)


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), honest_seats=st.integers(1, 31))
def test_honest_bot_never_bluffs_and_challenges_only_impossible_claims(players, seed, honest_seats):
    game = _games(players)
    bot = HonestBot(game)

    def decide(state):
        me = state.current_player()
        if not (honest_seats >> me) & 1:
            return None
        probs = bot.action_probabilities(state)
        assert sorted(probs) == sorted(state.legal_actions())
        assert sorted(probs.values())[-1] == 1.0 and sum(probs.values()) == 1.0
        action = max(probs, key=probs.get)
        claim = E.ACTION_CLAIM[action]
        hand = _counts(state.hand(me))
        if claim >= 0:  # a claim (an action's or a block's) only with the character in hand
            assert hand[E.CLAIM_CHAR[claim]] > 0, (state.action_to_string(me, action), hand)
        s = state.engine_state()
        if E.ACT_CHALLENGE in state.legal_actions():
            ph = s[E.S_PHASE]
            claimant = s[E.S_BLOCKER] if ph == E.PH_BLOCK_CHALLENGE else s[E.S_ACTOR]
            char = (s[E.S_BLOCK_CHAR] if ph == E.PH_BLOCK_CHALLENGE
                    else E.CLAIM_CHAR[E.ACTION_CLAIM[s[E.S_ACTION]]])
            up = _counts([c for f in state.face_up for c in f])
            impossible = 3 - up[char] - hand[char] <= 0
            assert (action == E.ACT_CHALLENGE) == impossible
            if action == E.ACT_CHALLENGE:  # card counting is never wrong
                assert CHARACTERS[char] not in state.hand(claimant)
        return action

    for g in range(3):
        _walk(game, seed + g, decide)


def test_honest_bot_challenges_by_the_copies_in_the_deck():
    """p0 holds Duke+Duke and p1 claims Tax: possible with three copies of each character, impossible
    with two (both are in p0's hand)."""
    for copies, expected in ((3, E.ACT_PASS), (2, E.ACT_CHALLENGE)):
        game = coupsolve.load_game(coupsolve.Rules.standard(players=2, copies=copies))
        state = game.new_initial_state()
        for name in ("Deal Duke+Duke", "Deal Captain+Contessa", "Income", "Tax"):
            state.apply_action_name(name)
        assert HonestBot(game).choose(state) == expected, copies


def test_random_bot_is_uniform_over_legal_actions():
    game = _games(4)
    bot = RandomBot(game)
    sizes = set()

    def decide(state):
        probs = bot.action_probabilities(state)
        legal = state.legal_actions()
        assert list(probs) == legal
        assert np.allclose(list(probs.values()), 1.0 / len(legal))
        sizes.add(len(legal))
        return None

    for seed in range(5):
        _walk(game, seed, decide)
    assert len(sizes) >= 3  # several kinds of decision were met
