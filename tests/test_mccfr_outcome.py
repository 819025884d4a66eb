"""Outcome-sampling MCCFR (solvers.mccfr.outcome) and the 'features' keys (coupsolve.sampling.keys)."""

import numpy as np
import pytest
from coup_helpers import play_randomly
from test_mccfr import _tables_equal, _uniform, kuhn_game, tl1  # noqa: F401 (tl1: a fixture)

import coupsolve
import solvers
from coupsolve.sampling.game import sampling_game
from solvers.mccfr.solver import MCCFRSolver, train
from solvers.mccfr.policy import SampledPolicy, tree_policy

# one worker compiles the sampling kernels (MCCFR) once, not both at the same time
pytestmark = pytest.mark.xdist_group("sampling")


@pytest.fixture(scope="module")
def kuhn_tree():
    return solvers.GameTree.from_openspiel("kuhn_poker")


# ---------------------------------------------------------------- convergence
def test_kuhn_outcome_sampling_converges(kuhn_tree):
    # measured at 100,000 iterations, seeds 0-2: exploitability 0.0024, 0.0091, 0.0046
    for seed in (0, 1):
        solver = MCCFRSolver(kuhn_game(), max_infosets=64, seed=seed, sampling="outcome")
        solver.step(100_000)
        policy = tree_policy(solver, kuhn_tree)
        assert solvers.exploitability(kuhn_tree, policy) < 0.02
        assert abs(solvers.expected_values(kuhn_tree, policy)[0] + 1 / 18) < 0.005
        assert solver.num_infosets == 12


def test_coup_turn_limit_1_outcome_sampling_converges(tl1):
    rules, tree = tl1[0], tl1[1].tree
    solver = MCCFRSolver(sampling_game(rules), max_infosets=20_000, seed=7, sampling="outcome")
    curve = []
    for total in (1_000, 10_000, 100_000):
        solver.step(total - solver.iterations)
        curve.append(solvers.exploitability(tree, tree_policy(solver, tree)))
    uniform = solvers.exploitability(tree, _uniform(tree))
    assert uniform > curve[0] > curve[1] > curve[2], (uniform, curve)
    assert solver.num_infosets <= tree.num_infosets


# ---------------------------------------------------------------- determinism, checkpoints
def test_outcome_checkpoint_resumes_bit_for_bit_and_kinds_do_not_mix(tmp_path):
    game = sampling_game(coupsolve.Rules(turn_limit=1))
    whole = MCCFRSolver(game, max_infosets=20_000, seed=9, sampling="outcome", epsilon=0.4)
    whole.step(3_000)
    part = MCCFRSolver(game, max_infosets=20_000, seed=9, sampling="outcome", epsilon=0.4)
    train(part, iterations=1_200, progress=False, checkpoint=tmp_path / "o.npz")
    resumed = MCCFRSolver.load(tmp_path / "o.npz", game)
    assert (resumed.sampling, resumed.epsilon, resumed.iterations) == ("outcome", 0.4, 1_200)
    resumed.step(1_800)
    assert _tables_equal(whole, resumed)
    external = MCCFRSolver(game, max_infosets=20_000, seed=9)
    external.step(300)
    assert not _tables_equal(whole, external)
    external.save(tmp_path / "e.npz")
    with pytest.raises(ValueError, match="checkpoint of sampling 'external', not of 'outcome'"):
        MCCFRSolver.load(tmp_path / "e.npz", game, sampling="outcome")
    with pytest.raises(ValueError, match="checkpoint of sampling 'outcome', not of 'external'"):
        MCCFRSolver.load(tmp_path / "o.npz", game, sampling="external")
    with pytest.raises(ValueError, match="checkpoint of abstraction 'exact', not of 'features'"):
        MCCFRSolver.load(tmp_path / "o.npz", sampling_game(coupsolve.Rules(turn_limit=1), "features"))


def test_bad_sampling_arguments():
    game = sampling_game(coupsolve.Rules(turn_limit=1))
    with pytest.raises(ValueError, match="sampling must be one of"):
        MCCFRSolver(game, sampling="chance")
    with pytest.raises(ValueError, match="epsilon must be in"):
        MCCFRSolver(game, sampling="outcome", epsilon=0.0)
    with pytest.raises(ValueError, match="abstraction must be one of"):
        sampling_game(coupsolve.Rules(turn_limit=1), abstraction="public")
    with pytest.raises(ValueError, match="base game only"):
        sampling_game(coupsolve.Rules(turn_limit=1, factions=True), abstraction="features")


# ---------------------------------------------------------------- the features abstraction
def _play(game, names):
    state = game.new_initial_state()
    for name in names:
        if state.is_chance_node() and name is None:
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action_name(name)
    return state


def test_features_merge_histories_the_exact_keys_tell_apart():
    rules = coupsolve.Rules.standard(players=4, turn_limit=100)
    game = coupsolve.load_game(rules)
    deals = ["Deal Duke+Captain", "Deal Assassin+Contessa", "Deal Duke+Ambassador", "Deal Captain+Captain"]
    once, twice = _play(game, deals + ["Income"] * 4), _play(game, deals + ["Income"] * 8)
    other = _play(game, ["Deal Duke+Duke"] + deals[1:] + ["Income"] * 4)
    assert once.current_player() == twice.current_player() == other.current_player() == 0
    keys = {}
    for abstraction in ("exact", "features"):
        solver = MCCFRSolver(sampling_game(rules, abstraction), max_infosets=1_000)
        policy = SampledPolicy(solver, game)
        keys[abstraction] = [tuple(policy.infoset_hashes(s)) for s in (once, twice, other)]
    assert len(set(keys["exact"])) == 3
    # 3 coins and 4 coins are one bucket: the same features; another hand of the player's is not
    assert keys["features"][0] == keys["features"][1] != keys["features"][2]


def test_features_train_four_players_full_length_and_play_as_a_policy():
    rules = coupsolve.Rules.standard(players=4, turn_limit=100)
    solver = MCCFRSolver(sampling_game(rules, "features"), max_infosets=400_000, seed=3,
                         sampling="outcome")
    solver.step(2_000)  # a key with two owners or numbers of actions would raise
    t = solver.table()
    assert set(np.unique(t["owner"])) == {0, 1, 2, 3}
    game = coupsolve.load_game(rules)
    policy = SampledPolicy(solver, game)
    rng = np.random.default_rng(0)
    state, learnt = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        probs = policy.action_probabilities(state)
        assert list(probs) == state.legal_actions() and abs(sum(probs.values()) - 1.0) < 1e-12
        learnt += len(set(probs.values())) > 1
        state.apply_action(int(rng.choice(list(probs), p=list(probs.values()))))
    assert learnt > 0


def test_a_features_strategy_read_onto_the_tree_plays_as_it_does_through_openspiel(tl1):  # noqa: F811
    # the measurement of a blueprint's recipe at a turn limit (examples/mccfr_convergence.py --features)
    # reads the features strategy onto the history tree: it must be the strategy SampledPolicy plays
    from coupsolve.openspiel.policy import HistoryTreePolicy

    rules, coup = tl1
    solver = MCCFRSolver(sampling_game(rules, "features"), max_infosets=1 << 16, seed=5, sampling="probe")
    solver.step(3_000)
    flat = tree_policy(solver, coup.tree)
    # imperfect recall: information sets the tree tells apart share a key, and so a row
    assert solver.num_infosets < coup.tree.num_infosets
    game = coupsolve.load_game(rules)
    read, played = HistoryTreePolicy(game, coup, flat), SampledPolicy(solver, game)
    mixed = []

    def same(state):
        if not state.is_chance_node():
            a, b = read.action_probabilities(state), played.action_probabilities(state)
            assert list(a) == list(b) and np.allclose(list(a.values()), list(b.values()), rtol=0, atol=1e-12)
            mixed.append(len(set(a.values())) > 1)

    rng = np.random.default_rng(2)
    for _ in range(40):
        play_randomly(game.new_initial_state(), rng, same)
    assert any(mixed)
