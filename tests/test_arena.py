"""Head-to-head evaluation (coupsolve.evaluation.arena): intervals, seat rotation, determinism, a real difference."""

import numpy as np
import pytest
from open_spiel.python import policy as os_policy

import coupsolve
from coupsolve.evaluation.arena import Z95, play
from coupsolve.openspiel.bots import HonestBot, RandomBot


def _game(players, turn_limit=100):
    return coupsolve.load_game(coupsolve.Rules.standard(players=players, turn_limit=turn_limit))


def test_a_policy_against_itself_is_even():
    game = _game(3)
    bot = RandomBot(game)
    res = play(game, [bot, bot, bot], 300, seed=1)
    assert len(res.names) == 3
    for name in res.names:
        low, high = res.interval(name)
        assert low <= 0.0 <= high, (name, low, high)
    # zero-sum: the entries' payoffs of each game sum to zero
    assert np.allclose(res.payoffs.sum(axis=1), 0.0)
    deals = res.payoffs.reshape(100, 3, 3).mean(axis=1)  # the sample is the deal: its 3 rotations
    assert res.deals == 100 and np.allclose(res.mean, deals.mean(axis=0))
    assert np.allclose(res.half_width, Z95 * deals.std(axis=0, ddof=1) / np.sqrt(100))


def test_honest_bot_beats_random_bot():
    game = _game(4)
    honest, rand = HonestBot(game), RandomBot(game)
    res = play(game, [honest, rand, rand, rand], 200, seed=2,
               names=["honest", "random", "random", "random"])
    assert res.names == ("honest", "random")
    assert res.interval("honest")[0] > 0.0 > res.interval("random")[1]
    assert res.win_rate[0] > 0.5 > res.win_rate[1]
    # pooled: the honest bot's payoff and the three random bots' mean payoff sum to zero each game
    assert np.allclose(res.payoffs[:, 0] + 3 * res.payoffs[:, 1], 0.0)


class _SeatRecorder(os_policy.Policy):
    """Uniform, and remembers the seats it was asked to play."""

    def __init__(self, game):
        super().__init__(game, list(range(game.num_players())))
        self.seats = set()

    def action_probabilities(self, state, player_id=None):
        self.seats.add(state.current_player())
        legal = state.legal_actions()
        return {a: 1.0 / len(legal) for a in legal}


def test_seats_rotate_and_seeds_repeat():
    game = _game(3, turn_limit=3)
    recorders = [_SeatRecorder(game) for _ in range(3)]
    play(game, recorders, 6, seed=0)
    assert all(r.seats == {0, 1, 2} for r in recorders)
    game = _game(3)
    rand = RandomBot(game)
    a, b, c = (play(game, [rand] * 3, 30, seed=s) for s in (5, 5, 6))
    assert np.array_equal(a.payoffs, b.payoffs)
    assert not np.array_equal(a.payoffs, c.payoffs)


def test_bad_arguments():
    game = _game(2)
    bot = RandomBot(game)
    with pytest.raises(ValueError, match="one policy per seat"):
        play(game, [bot], 10, seed=0)
    with pytest.raises(ValueError, match="one name per policy"):
        play(game, [bot, bot], 10, seed=0, names=["a"])
    with pytest.raises(ValueError, match="at least 4 .two deals"):
        play(game, [bot, bot], 2, seed=0)
    with pytest.raises(ValueError, match="a multiple of the 2 seats"):
        play(game, [bot, bot], 7, seed=0)
    with pytest.raises(ValueError, match="without a value function"):
        play(game, [bot, bot], 4, seed=0).interval("0", adjusted=True)


def test_draws_are_counted():
    """A game no seat won (the turn limit) is a draw: counted and told (match printed no draws)."""
    short, full = _game(2, turn_limit=1), _game(2)
    bot = RandomBot(short)
    res = play(short, [bot, bot], 40, seed=2)
    decided = (res.payoffs[:, 0] != 0)  # a draw pays 0 to both under the draw payoff
    assert res.draw_rate == pytest.approx(1 - decided.mean()) and res.draw_rate > 0.5
    assert "draw rate" in str(res)
    long = play(full, [RandomBot(full)] * 2, 20, seed=2)
    assert long.draw_rate == 0.0  # played to the end: someone wins


def test_paired_differences_are_over_the_same_deals():
    """Two players against the same opponent on the same seeded deals: the paired mean is the
    difference of the two means, its interval the per-deal differences' own; a player paired with
    itself differs by exactly nothing (the deals repeat); different numbers of deals are refused."""
    from coupsolve.evaluation.arena import paired

    game = _game(2)
    honest, rand = HonestBot(game), RandomBot(game)
    a = play(game, [honest, rand], 120, seed=3, names=["strategy", "opponent"])
    b = play(game, [rand, rand], 120, seed=3, names=["strategy", "opponent"])
    x, y = a.deal_means("strategy"), b.deal_means("strategy")
    assert x.shape == (60,) and np.isclose(x.mean(), a.mean[0])
    mean, half = paired(x, y)
    assert np.isclose(mean, a.mean[0] - b.mean[0])
    assert np.isclose(half, Z95 * (x - y).std(ddof=1) / np.sqrt(60)) and half > 0
    assert mean - half > 0  # the honest bot beats the random one, paired
    again = play(game, [honest, rand], 120, seed=3, names=["strategy", "opponent"])
    assert paired(x, again.deal_means("strategy")) == (0.0, 0.0)
    with pytest.raises(ValueError, match="same deals"):
        paired(x, y[:-1])
    with pytest.raises(ValueError, match="value function"):
        a.deal_means("strategy", adjusted=True)
