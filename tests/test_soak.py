"""A seeded soak of the raw engine over the option grid: thousands of random games, checked step by step.

``test_invariants.py`` draws ~200 rule sets with hypothesis and checks the coin flow of each step; this
soak adds breadth: 1,000 seeded rule sets per run (players 2 to 6, both setups where allowed, every variant
on or off, small decks, odd coins and costs), 10 random games each (about 7 s). The checks are written here from the
state layout alone (no engine helper decides whether a state is right):

- every chosen action is in the legal list, which is non-empty, without repeats and within the action ids;
- chance outcomes have positive probabilities summing to 1;
- coins are never negative, zero for seats not in play, and never above the starting coins plus what
  ``turn`` turns can bring in (:func:`coin_bound`);
- every card is in exactly one place (hands, face up, Court deck, out of the game, Exchange pool, event
  mat face down or flipped), ``copies`` of each character in the game and none of the others; a seat
  holds at most 2 cards face down and, once dealt, exactly 2 cards face down or face up (but for a
  proven claimant waiting for a replacement draw, whose shown card went back to the deck);
- the turn never passes the turn limit, and a game ends by elimination or at the limit, within a bound on
  its steps; its returns sum to 0.

The larger soak (``-m slow``) plays ten times as many games over ten times as many rule sets.
"""

import numpy as np
import pytest

from coupsolve import CHARACTERS, Rules
from coupsolve import engine as E
from coup_helpers import random_engine_game

SEED = 20261123
FLAGS = ("selective_coup", "contessa_blocks_tax", "factions", "ambassador_halves_steal", "marked_cards",
         "decline_proof")
# the places a card can be: blocks of 5 counts per seat, and blocks of 5 counts shared
PLACES_PER_SEAT = (E.S_HAND, E.S_FACEUP)
PLACES_SHARED = (E.S_DECK, E.S_OUT, E.S_POOL, E.S_EVENT, E.S_EVENT_UP)


def option_grid(i: int) -> Rules:
    """The i-th seeded rule set: players, setup, deck, coins, costs and every variant drawn at random."""
    rng = np.random.default_rng([SEED, i])
    n = int(rng.integers(2, 7))
    selection = n == 2 and rng.random() < 0.35
    chars = tuple(c for c in CHARACTERS if rng.random() < 0.6) or (CHARACTERS[int(rng.integers(5))],)
    if selection and len(chars) < 2:
        chars = CHARACTERS[:2]
    kw = {name: bool(rng.random() < 0.4) for name in FLAGS}
    kw["event_mat"] = not selection and rng.random() < 0.3
    need = 2 * n + (E.event_cards(n) if kw["event_mat"] else 0)
    copies = 3 if selection else max(int(rng.integers(1, 5)), -(-need // len(chars)))
    coup = int(rng.choice([7, 7, 0, 1, 4, 12]))
    coins = rng.choice([0, 1, 2, 3, 5, 6, 7, 9, 11, 13, 40], size=int(rng.integers(1, n + 1)))
    return Rules(players=n, setup="selection" if selection else "standard", characters=chars, copies=copies,
                 turn_limit=int(rng.integers(1, 13)), limit_payoff=str(rng.choice(["draw", "influence"])),
                 starting_seat="random" if rng.random() < 0.4 else int(rng.integers(n)),
                 starting_coins=None if rng.random() < 0.3 else tuple(int(c) for c in coins),
                 coup_cost=coup, forced_coup=coup + int(rng.choice([0, 1, 3, 50])),
                 assassinate_cost=int(rng.choice([3, 3, 0, 1, 5])),
                 challenge_bounty=int(rng.choice([0, 0, 1, 2, 7])),
                 challenge_buyout=int(rng.choice([0, 0, 1, 3, 5, 100])), **kw)


def coin_bound(rules: Rules, turn: int) -> int:
    """The most coins all seats together can hold during turn ``turn`` (0 in setup).

    A turn brings at most 3 coins from an action (Tax), a bounty for each of at most 4 challenges (of the
    action, of a block, of a Treaty, of a Vengeance's block), 4 of the Inheritance and 1 of the event mat.
    """
    return sum(rules.coins_by_turn_order) + turn * (3 + 4 * rules.challenge_bounty + 4 + 1)


def max_steps(rules: Rules) -> int:
    """A generous bound on a game's steps: the setup, then 8 per seat per turn."""
    return 5 * rules.players + 10 + rules.turn_limit * 8 * (rules.players + 2)


class Checker:
    """The step-by-step checks of one rule set (``on_step`` for ``random_engine_game``)."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.P = rules.params()
        n = rules.players
        starts = [b + E.NCH * p for b in PLACES_PER_SEAT for p in range(n)] + list(PLACES_SHARED)
        self.card_index = np.array([[b + c for c in range(E.NCH)] for b in starts])  # [places, 5]
        self.hands = np.array([[E.S_HAND + E.NCH * p + c for c in range(E.NCH)] for p in range(n)])
        self.up = self.hands - E.S_HAND + E.S_FACEUP
        self.expected = np.array([rules.copies if c in rules.characters else 0 for c in CHARACTERS])
        self.buf = np.zeros(E.MAX_MOVES, dtype=np.int32)
        self.prob = np.zeros(E.MAX_MOVES)

    def __call__(self, before, action, legal, after, events):
        rules, n = self.rules, self.rules.players
        assert len(legal) > 0 and action in legal and len(set(legal.tolist())) == len(legal)
        if E.is_chance(before):
            k = E.chance_outcomes(self.P, before, self.buf, self.prob)
            assert k == len(legal) and self.prob[:k].min() > 0 and abs(self.prob[:k].sum() - 1) < 1e-12
        else:
            assert legal.min() >= 0 and legal.max() < E.NUM_ACTIONS
        coins = after[E.S_COINS:E.S_COINS + E.MAXP]
        turn = after[E.S_TURN]
        assert coins.min() >= 0 and not coins[n:].any()
        assert coins.sum() <= coin_bound(rules, turn), (coins, turn)
        cards = after[self.card_index]
        assert cards.min() >= 0 and np.array_equal(cards.sum(axis=0), self.expected)
        down = after[self.hands].sum(axis=1)
        assert down.max() <= 2
        if turn > 0:
            held = down + after[self.up].sum(axis=1)
            if after[E.S_PHASE] == E.PH_REPLACE:  # a proven card went back to the deck; its owner draws
                held[after[E.S_DRAWER]] += 1
            assert np.all(held == 2)
        assert 0 <= turn <= rules.turn_limit

    def finish(self, steps, final):
        rules, n = self.rules, self.rules.players
        assert E.is_terminal(final) and steps <= max_steps(rules)
        living = int((final[self.hands].sum(axis=1) > 0).sum())
        assert living == 1 or final[E.S_TURN] == rules.turn_limit
        out = np.zeros(E.MAXP)
        E.returns(self.P, final, out)
        assert abs(out.sum()) < 1e-12


def soak(configs, games_per_config, first_seed=0):
    """Play ``games_per_config`` random games of each of the rule sets ``option_grid(i)``, i in ``configs``;
    return the number of games played."""
    played = 0
    for i in configs:
        rules = option_grid(i)
        check = Checker(rules)
        for g in range(games_per_config):
            steps, final = random_engine_game(rules, [SEED, first_seed + i, g], check)
            check.finish(steps, final)
            played += 1
    return played


def test_the_grid_covers_the_options():
    grid = [option_grid(i) for i in range(1000)]
    assert {r.players for r in grid} == set(range(2, 7))
    assert {r.setup for r in grid} == {"standard", "selection"}
    for name in FLAGS + ("event_mat",):
        assert {getattr(r, name) for r in grid} == {False, True}
    assert {r.copies for r in grid} >= {1, 2, 3, 4} and min(len(r.characters) for r in grid) == 1
    assert {r.coup_cost for r in grid} >= {0, 1, 12} and any(r.challenge_bounty == 7 for r in grid)


def test_soak():
    assert soak(range(1000), 10) == 10_000


@pytest.mark.slow
def test_soak_large():
    assert soak(range(1000, 11_000), 10) == 100_000


def _corrupt(s, index, delta):
    out = s.copy()
    out[index] += delta
    return out


def test_the_checks_can_fail():
    """A state with a negative coin, a card counted twice or lost, or a turn past the limit is caught."""
    rules = Rules(players=3, turn_limit=3)
    check = Checker(rules)
    seen = []
    random_engine_game(rules, 0, lambda *step: seen.append(step) or check(*step))
    before, action, legal, after, events = seen[-1]
    for index, delta in ((E.S_COINS, -after[E.S_COINS] - 1), (E.S_DECK, 1), (E.S_HAND + E.NCH, -1),
                         (E.S_TURN, rules.turn_limit), (E.S_COINS + rules.players, 1)):
        with pytest.raises(AssertionError):
            check(before, action, legal, _corrupt(after, index, delta), events)
    with pytest.raises(AssertionError):
        check(before, E.NUM_ACTIONS, legal, after, events)
