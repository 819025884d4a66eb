"""The training field of the features game (coupsolve.sampling.keys): seats played by baseline bots as
chance moves, drawn per game; and MCCFR with probing (solvers.mccfr.probe)."""

import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve import engine as E
from coupsolve.sampling import keys as SK
from coupsolve.engine.honest import honest_choice
from coupsolve.sampling.game import sampling_game
from solvers.mccfr.solver import MCCFRSolver
from solvers.mccfr.policy import tree_policy

from test_mccfr import kuhn_game

# one worker compiles the sampling kernels (MCCFR) once, not both at the same time
pytestmark = pytest.mark.xdist_group("sampling")

RULES = coupsolve.Rules(players=4)


def _walk(game, rng, on_decision):
    """One game of the features functions of ``game``, moves drawn by ``rng`` (chance by its
    probabilities, decisions uniformly); ``on_decision(s, h, seat, k, acts, probs)`` at each move."""
    init, player, moves, step, _ = SK.FEATURES
    P, W = game.params, game.scratch
    s = np.zeros(game.state_size, np.int32)
    h = np.zeros((game.num_players, 2), np.uint64)
    acts, probs = np.zeros(E.MAX_MOVES, np.int32), np.zeros(E.MAX_MOVES)
    init(P, s, h, W)
    path = []
    while (pl := player(P, s)) != -4:
        k = moves(P, s, acts, probs)
        on_decision(s, h, pl, k, acts, probs)
        j = rng.choice(k, p=probs[:k] / probs[:k].sum()) if pl < 0 else rng.integers(k)
        path.append(int(acts[j]))
        step(P, s, h, acts[j], W)
    return s, path


def test_field_shares_are_checked():
    with pytest.raises(ValueError, match="must be below 1"):
        SK.field_scratch(honest=0.6, random=0.4)
    with pytest.raises(ValueError, match="at least 0"):
        SK.field_scratch(honest=-0.1)
    with pytest.raises(ValueError, match="needs abstraction='features'"):
        sampling_game(RULES, "exact", field={"honest": 0.5})
    assert np.array_equal(SK.field_scratch()[:4], [1.0, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="regret of at least 0"):
        SK.field_scratch(warm_start=-1.0)
    with pytest.raises(ValueError, match="warm start needs abstraction='features'"):
        sampling_game(RULES, "exact", warm_start=1.0)
    with pytest.raises(ValueError, match="only sampling='probe'"):
        MCCFRSolver(sampling_game(RULES, "features", warm_start=1.0), max_infosets=64)


def test_bot_seats_play_the_bots_and_keys_are_the_plain_games():
    field = sampling_game(RULES, "features", field={"honest": 0.5, "random": 0.25})
    plain = sampling_game(RULES, "features")
    rng = np.random.default_rng(11)
    drawn = np.zeros(3, np.int64)
    checked = {"honest": 0, "random": 0, "free": 0}
    for _ in range(150):
        free_keys = []

        def look(s, h, pl, k, acts, probs):
            if s[SK.X_CURSOR] < RULES.players or E.is_chance(s):
                return
            seat, model = E.current_player(s), s[SK.X_MODEL + E.current_player(s)]
            if model == SK.FIELD_HONEST:  # one move, the bot's, as a chance move of probability 1
                legal = np.zeros(E.MAX_MOVES, np.int32)
                n = E.legal_actions(field.params, s, legal)
                assert pl == -1 and k == 1 and probs[0] == 1.0
                assert acts[0] == legal[honest_choice(field.params, s, legal, n)]
                checked["honest"] += 1
            elif model == SK.FIELD_RANDOM:
                assert pl == -1 and np.allclose(probs[:k], 1.0 / k)
                checked["random"] += 1
            else:
                assert pl == seat
                free_keys.append(h[seat].copy())
                checked["free"] += 1

        s, path = _walk(field, rng, look)
        drawn += np.bincount(s[SK.X_MODEL:SK.X_MODEL + RULES.players], minlength=3)
        # the same game without the draws, in the plain game: the same keys at the free seats
        replayed, moves = [], path[RULES.players:]
        init, player, _, step, _ = SK.FEATURES
        t = np.zeros(plain.state_size, np.int32)
        h = np.zeros((RULES.players, 2), np.uint64)
        init(plain.params, t, h, plain.scratch)
        for a in moves:
            pl = player(plain.params, t)
            if pl >= 0 and s[SK.X_MODEL + pl] == SK.FIELD_FREE:
                replayed.append(h[pl].copy())
            step(plain.params, t, h, a, plain.scratch)
        assert np.array_equal(np.array(free_keys), np.array(replayed))
    assert min(checked.values()) > 100, checked
    n = drawn.sum()  # 600 seats: shares 0.25 / 0.5 / 0.25 within 5 standard deviations
    for got, share in zip(drawn, (0.25, 0.5, 0.25)):
        assert abs(got - share * n) < 5 * np.sqrt(n * share * (1 - share)), drawn


def test_probe_sampling_solves_kuhn():
    tree = solvers.GameTree.from_openspiel("kuhn_poker")
    solver = MCCFRSolver(kuhn_game(), max_infosets=64, seed=1, sampling="probe")
    solver.step(1_000)
    early = solvers.exploitability(tree, tree_policy(solver, tree))
    solver.step(49_000)
    policy = tree_policy(solver, tree)
    late = solvers.exploitability(tree, policy)
    assert late < 0.01 < early, (early, late)
    assert abs(solvers.expected_values(tree, policy)[0] + 1 / 18) < 0.005
    again = MCCFRSolver(kuhn_game(), max_infosets=64, seed=1, sampling="probe")
    again.step(50_000)
    assert np.array_equal(again.table()["regret"], solver.table()["regret"])


def test_a_probing_path_on_the_strategy_solves_kuhn_and_resumes_bit_for_bit(tmp_path):
    tree = solvers.GameTree.from_openspiel("kuhn_poker")
    solver = MCCFRSolver(kuhn_game(), max_infosets=64, seed=1, sampling="probe", explore=0.3)
    solver.step(20_000)
    uniform_path = MCCFRSolver(kuhn_game(), max_infosets=64, seed=1, sampling="probe")
    uniform_path.step(20_000)
    assert not np.array_equal(solver.table()["regret"], uniform_path.table()["regret"])
    solver.save(tmp_path / "k.npz")
    again = MCCFRSolver.load(tmp_path / "k.npz", kuhn_game())
    assert again.explore == 0.3
    for s in (solver, again):
        s.step(30_000)
    assert np.array_equal(again.table()["regret"], solver.table()["regret"])
    policy = tree_policy(solver, tree)
    assert solvers.exploitability(tree, policy) < 0.01
    assert abs(solvers.expected_values(tree, policy)[0] + 1 / 18) < 0.005
    for bad in ({"explore": 0.0}, {"explore": 1.5}, {"explore": 0.5, "sampling": "external"}):
        with pytest.raises(ValueError, match="explore must be in"):
            MCCFRSolver(kuhn_game(), max_infosets=64, **{"sampling": "probe", **bad})


def test_probe_needs_a_bound_kernel():
    g = kuhn_game()
    with pytest.raises(ValueError, match="binds no probing kernel"):
        MCCFRSolver(g._replace(kernels=g.kernels[:4]), max_infosets=64, sampling="probe")


def test_probe_trains_four_players_against_a_field():
    game = sampling_game(RULES, "features", field={"honest": 0.5})
    solver = MCCFRSolver(game, max_infosets=1 << 18, seed=4, sampling="probe", regret="rm+")
    solver.step(200)
    assert solver.iterations == 200 and solver.num_infosets > 1_000
    t = solver.table()
    assert np.isfinite(t["regret"]).all() and (t["regret"] >= 0).all()  # RM+


def test_warm_start_begins_at_the_honest_move_and_the_regrets_take_over():
    """A new information set starts at HonestBot's move with the warm start's regret: with a regret
    no sample outweighs, the strategy is HonestBot's move at every information set (its average too);
    with none, the iterates are bit for bit those of a game without the option."""
    from coupsolve.openspiel.bots import HonestBot
    from solvers.mccfr.policy import SampledPolicy

    rules = coupsolve.Rules(players=3)
    stiff = MCCFRSolver(sampling_game(rules, "features", field={"honest": 0.3}, warm_start=1e12),
                        max_infosets=1 << 16, seed=2, sampling="probe")
    stiff.step(30)
    t = stiff.table()
    assert stiff.num_infosets > 500
    # every information set's regrets: one action at the prior's 1e12 (plus sampled changes), the
    # rest far below it
    for o, k in zip(t["offset"], t["num_actions"]):
        r = t["regret"][o:o + k]
        assert (r > 1e11).sum() == 1, r
    game = coupsolve.load_game(rules)
    stiff.game = sampling_game(rules, "features")  # plays OpenSpiel games through the plain keys
    policy, honest = SampledPolicy(stiff, game), HonestBot(game)
    rng = np.random.default_rng(0)
    compared = agreed = 0
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            dist = policy.action_probabilities(state)
            if len(dist) > 1 and max(dist.values()) == 1.0:
                agreed += max(dist, key=dist.get) == honest.choose(state)
                compared += 1
            state.apply_action(honest.choose(state))
    # a key's prior is the honest move at the state that made it; the keys have imperfect recall, so
    # a state of the same key where the bot moves otherwise (its turn's target, chosen by coins the key
    # buckets) plays the first state's move
    assert compared > 50 and agreed > 0.9 * compared, (agreed, compared)
    cold = MCCFRSolver(sampling_game(rules, "features", field={"honest": 0.3}), max_infosets=1 << 16,
                       seed=2, sampling="probe")
    zero = MCCFRSolver(sampling_game(rules, "features", field={"honest": 0.3}, warm_start=0.0),
                       max_infosets=1 << 16, seed=2, sampling="probe")
    cold.step(30)
    zero.step(30)
    assert np.array_equal(cold.table()["regret"], zero.table()["regret"])
    warm = MCCFRSolver(sampling_game(rules, "features", field={"honest": 0.3}, warm_start=0.5),
                       max_infosets=1 << 16, seed=2, sampling="probe")
    warm.step(30)
    assert not np.array_equal(cold.table()["regret"][:100], warm.table()["regret"][:100])


def test_sampled_policy_plays_its_prior_where_it_has_no_average():
    from coupsolve.openspiel.bots import HonestBot
    from solvers.mccfr.policy import SampledPolicy

    rules = coupsolve.Rules(players=3)
    solver = MCCFRSolver(sampling_game(rules, "features"), max_infosets=64, sampling="probe")
    game = coupsolve.load_game(rules)
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    legal = state.legal_actions()
    honest = HonestBot(game)
    # an empty table: the prior's move with the prior, uniform without
    assert SampledPolicy(solver, game, prior=honest).action_probabilities(state) == \
        honest.action_probabilities(state)
    assert SampledPolicy(solver, game).action_probabilities(state) == {a: 1 / len(legal) for a in legal}
