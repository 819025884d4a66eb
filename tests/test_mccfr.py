"""External-sampling MCCFR (solvers.mccfr.solver): Kuhn poker through the same kernels, Coup at any seats."""

import numpy as np
import pyspiel
import pytest
from numba import njit
from open_spiel.python.algorithms import exploitability as os_exploitability
from open_spiel.python.algorithms import external_sampling_mccfr as os_es

import coupsolve
import solvers
from coupsolve.engine.hashing import HASH_MUL, mix, seed_hashes
from coupsolve.sampling.game import sampling_game
from solvers.mccfr.solver import MCCFRSolver, SamplingGame, TableFull, bind, train
from solvers.mccfr.policy import SampledPolicy, tree_policy

# one worker compiles the sampling kernels (MCCFR) once, not both at the same time
pytestmark = pytest.mark.xdist_group("sampling")

# ---------------------------------------------------------------- Kuhn poker as a sampling game
# state: [card of p0, card of p1, moves taken, move 1, move 2, move 3]; chance deals p0 then p1.


@njit(cache=True)
def _see(h, owner, private, public):
    for p in range(h.shape[0]):
        tok = private if p == owner or owner < 0 else public
        h[p, 0] = mix(h[p, 0], tok, HASH_MUL[0])
        h[p, 1] = mix(h[p, 1], tok, HASH_MUL[1])


@njit(cache=True)
def kuhn_init(P, s, h, W):
    s[:] = -1
    s[2] = 0
    seed_hashes(h)


@njit(cache=True)
def _kuhn_over(s):
    n = s[2]
    if n < 2:
        return False
    last, prev = s[2 + n], s[1 + n]
    return not (n == 2 and prev == 0 and last == 1)  # pass, bet: player 0 answers


@njit(cache=True)
def kuhn_player(P, s):
    if s[1] < 0:
        return -1
    if _kuhn_over(s):
        return -4
    return s[2] % 2


@njit(cache=True)
def kuhn_moves(P, s, out, prob):
    if s[1] < 0:
        k = 0
        for c in range(3):
            if c != s[0]:
                out[k] = c
                k += 1
        for j in range(k):
            prob[j] = 1.0 / k
        return k
    out[0] = 0
    out[1] = 1
    return 2


@njit(cache=True)
def kuhn_step(P, s, h, a, W):
    if s[0] < 0:
        s[0] = a
        _see(h, 0, 10 + a, 5)
    elif s[1] < 0:
        s[1] = a
        _see(h, 1, 10 + a, 5)
    else:
        s[2] += 1
        s[2 + s[2]] = a
        _see(h, -1, 20 + a, 20 + a)


@njit(cache=True)
def kuhn_returns(P, s, ret):
    n = s[2]
    bets = 0
    for t in range(n):
        bets += s[3 + t]
    last = s[2 + n]
    if last == 0 and bets == 1:  # a fold: the last bettor wins the ante
        winner = (n - 2) % 2
        stake = 1.0
    else:
        winner = 0 if s[0] > s[1] else 1
        stake = 1.0 + (1.0 if bets >= 1 else 0.0)
    ret[winner] = stake
    ret[1 - winner] = -stake


def kuhn_game():
    fns = (kuhn_init, kuhn_player, kuhn_moves, kuhn_step, kuhn_returns)
    return SamplingGame(kernels=bind(fns), params=np.zeros(1, np.int32), scratch=(np.zeros(1, np.int32),),
                        num_players=2, state_size=6, max_depth=5, max_moves=4, game_id="kuhn_poker()")


@pytest.fixture(scope="module")
def kuhn_tree():
    return solvers.GameTree.from_openspiel("kuhn_poker")


@pytest.fixture(scope="module")
def tl1():
    rules = coupsolve.Rules(turn_limit=1, limit_payoff="influence")  # under 'draw' nearly anything is exact
    return rules, coupsolve.build_coup_tree(rules, context=False)


# ---------------------------------------------------------------- Kuhn
def test_kuhn_converges_like_openspiel(kuhn_tree):
    uniform = solvers.exploitability(kuhn_tree, _uniform(kuhn_tree))
    solver = MCCFRSolver(kuhn_game(), max_infosets=64, seed=3)
    solver.step(20_000)
    ours = tree_policy(solver, kuhn_tree)
    mine = solvers.exploitability(kuhn_tree, ours)
    game = pyspiel.load_game("kuhn_poker")
    np.random.seed(3)
    theirs = os_es.ExternalSamplingSolver(game)
    for _ in range(1_000):
        theirs.iteration()
    other = os_exploitability.exploitability(game, theirs.average_policy())
    assert uniform > 0.4
    assert mine < 0.02 and other < 0.1, (mine, other)
    assert solver.num_infosets == kuhn_tree.num_infosets == 12
    # the average strategy's value approaches Kuhn's -1/18 for player 0
    assert abs(solvers.expected_values(kuhn_tree, ours)[0] + 1 / 18) < 0.01


def test_kuhn_openspiel_policy_equals_tree_policy(kuhn_tree):
    solver = MCCFRSolver(kuhn_game(), max_infosets=64, seed=1, regret="rm+", average="linear")
    solver.step(500)
    game = pyspiel.load_game("kuhn_poker")
    exact = solvers.exploitability(kuhn_tree, tree_policy(solver, kuhn_tree))
    assert abs(os_exploitability.exploitability(game, SampledPolicy(solver, game)) - exact) < 1e-12


def _uniform(tree):
    return np.repeat(1.0 / tree.infoset_num_actions, tree.infoset_num_actions)


# ---------------------------------------------------------------- Coup, two players
def test_coup_turn_limit_1_converges(tl1):
    rules, tree = tl1[0], tl1[1].tree
    solver = MCCFRSolver(sampling_game(rules), max_infosets=20_000, seed=7)
    curve = []
    for total in (100, 1_000, 10_000):
        solver.step(total - solver.iterations)
        curve.append(solvers.exploitability(tree, tree_policy(solver, tree)))
    uniform = solvers.exploitability(tree, _uniform(tree))
    assert curve[0] > curve[1] > curve[2], curve
    assert curve[2] < 0.05 < uniform, (curve, uniform)
    assert solver.num_infosets <= tree.num_infosets


def test_coup_openspiel_policy_is_the_tree_policy(tl1):
    rules, coup_tree = tl1
    tree = coup_tree.tree
    solver = MCCFRSolver(sampling_game(rules), max_infosets=20_000, seed=2)
    solver.step(3_000)
    flat = tree_policy(solver, tree)
    policy = SampledPolicy(solver, coupsolve.load_game(rules))
    uniform = flat == np.repeat(1.0 / tree.infoset_num_actions, tree.infoset_num_actions)
    learnt = np.flatnonzero(~np.logical_and.reduceat(uniform, tree.infoset_offset))
    assert len(learnt) > 50
    rng = np.random.default_rng(0)
    for i in np.concatenate([rng.choice(learnt, 40, replace=False),
                             rng.choice(tree.num_infosets, 20, replace=False)]):
        state = coup_tree.state_at(int(coup_tree.infoset_rep[i]))
        o, m = tree.infoset_offset[i], tree.infoset_num_actions[i]
        probs = policy.action_probabilities(state)
        assert list(probs) == list(tree.infoset_actions[o:o + m])
        assert np.array_equal(list(probs.values()), flat[o:o + m])


@pytest.mark.slow
def test_coup_openspiel_exploitability_equals_tree(tl1):
    rules, tree = tl1[0], tl1[1].tree
    solver = MCCFRSolver(sampling_game(rules), max_infosets=20_000, seed=2)
    solver.step(300)
    game = coupsolve.load_game(rules)
    exact = solvers.exploitability(tree, tree_policy(solver, tree))
    assert abs(os_exploitability.exploitability(game, SampledPolicy(solver, game)) - exact) < 1e-9


# ---------------------------------------------------------------- determinism, checkpoints
def _tables_equal(a, b):
    ta, tb = a.table(), b.table()
    return all(np.array_equal(ta[k], tb[k]) for k in ta)


def test_same_seed_same_tables_other_seed_differs():
    game = sampling_game(coupsolve.Rules(turn_limit=1))
    a, b, c = (MCCFRSolver(game, max_infosets=20_000, seed=s) for s in (5, 5, 6))
    a.step(200)
    b.step(50)
    b.step(150)  # chunks do not matter
    c.step(200)
    assert _tables_equal(a, b)
    assert not _tables_equal(a, c)


def test_checkpoint_resume_is_bit_identical(tmp_path):
    game = sampling_game(coupsolve.Rules(turn_limit=1))
    whole = MCCFRSolver(game, max_infosets=20_000, seed=9, regret="rm+", average="linear")
    whole.step(300)
    part = MCCFRSolver(game, max_infosets=20_000, seed=9, regret="rm+", average="linear")
    assert not train(part, iterations=120, progress=False, checkpoint=tmp_path / "c.npz")
    resumed = MCCFRSolver.load(tmp_path / "c.npz", game, max_infosets=30_000)  # a larger table
    assert resumed.iterations == 120
    train(resumed, iterations=300, progress=False)
    assert _tables_equal(whole, resumed)
    with pytest.raises(ValueError, match="checkpoint of game"):
        MCCFRSolver.load(tmp_path / "c.npz", sampling_game(coupsolve.Rules(turn_limit=2)))


def test_checkpoint_gives_back_its_notes(tmp_path):
    from solvers import npz as _npz
    from solvers.mccfr.solver import _OWN_META
    from solvers.mccfr.solver import CHECKPOINT_KIND as _KIND

    game = sampling_game(coupsolve.Rules(turn_limit=1))
    solver = MCCFRSolver(game, max_infosets=20_000, seed=3)
    solver.step(5)
    solver.save(tmp_path / "bare.npz")
    meta, _ = _npz.load(tmp_path / "bare.npz", _KIND)
    assert set(meta) == set(_OWN_META + _npz.FILE_FIELDS)  # what is not a note is named so
    assert MCCFRSolver.load(tmp_path / "bare.npz", game).notes == {}
    solver.notes.update(field={"honest": 0.4, "random": 0.1}, features_key=2)
    solver.save(tmp_path / "noted.npz")
    assert MCCFRSolver.load(tmp_path / "noted.npz", game).notes == solver.notes
    solver.notes["seed"] = 4
    with pytest.raises(ValueError, match="own fields: \\['seed'\\]"):
        solver.save(tmp_path / "clash.npz")


# ---------------------------------------------------------------- three players
def test_three_players_turn_limit_1():
    game = sampling_game(coupsolve.Rules(players=3, turn_limit=1))
    solver = MCCFRSolver(game, max_infosets=200_000, seed=4)
    solver.step(300)  # a collision would raise
    t = solver.table()
    assert solver.num_infosets > 1000 and set(np.unique(t["owner"])) == {0, 1, 2}
    sums = np.add.reduceat(t["average"], t["offset"])
    visited = sums > 0
    assert visited.sum() > 100
    # every visited information set's average strategy is a distribution
    probs = t["average"] / np.repeat(np.where(visited, sums, 1.0), t["num_actions"])
    assert np.all(probs >= 0)
    assert np.allclose(np.add.reduceat(probs, t["offset"])[visited], 1.0)
    assert len(np.unique(t["key"])) == len(t["key"])
    assert np.array_equal(solver.find(t["key"], t["check"], t["owner"], t["num_actions"]), t["offset"])


# ---------------------------------------------------------------- bad input, full table
def test_table_that_cannot_fit_is_refused_before_allocation():
    game = sampling_game(coupsolve.Rules(turn_limit=1))
    with pytest.raises(MemoryError, match=r"needs an estimated .* but only .* available"):
        MCCFRSolver(game, max_infosets=10**15)
    with pytest.raises(ValueError, match="regret must be one of"):
        MCCFRSolver(game, regret="cfr+")
    with pytest.raises(TypeError, match="SamplingGame"):
        MCCFRSolver(coupsolve.Rules())


def test_full_table_stops_cleanly():
    solver = MCCFRSolver(sampling_game(coupsolve.Rules(turn_limit=1)), max_infosets=50, seed=1)
    with pytest.raises(TableFull, match="table is full"):
        solver.step(1_000)
    assert solver.num_infosets <= 50
    with pytest.raises(RuntimeError, match="cannot continue"):
        solver.step(1)


def test_table_grows_in_place_and_keeps_every_information_set():
    """The slots in use double from FIRST_SLOTS as information sets come (up to the room asked for),
    and every one inserted is found again at its offset, in the order it came."""
    from solvers.mccfr import kernel as K
    from solvers.mccfr.solver import _capacity, new_table, slots_in_use

    n, room = 50_000, 200_000
    table = new_table(_capacity(room))
    assert len(slots_in_use(table)) == K.FIRST_SLOTS
    stats = np.array([0, 0, 0, 0, 3 * room, 2, room], np.int64)
    keys = np.random.default_rng(3).integers(1, 2**63, size=n, dtype=np.int64).astype(np.uint64)
    checks, owners, nacts = keys * np.uint64(3), (keys % np.uint64(2)).astype(np.int8), np.full(n, 3, np.int32)
    assert K.insert_all(table, stats, keys, checks, owners, nacts) == K.OK
    assert len(slots_in_use(table)) == 1 << int(np.ceil(np.log2(n / K.MAX_LOAD)))  # 131,072
    assert len(slots_in_use(table)) < len(table) - 1  # room left to grow into, untouched
    out = np.empty(n + 1, np.int64)
    unseen = np.uint64(12345)
    assert K.find_all(table, stats, np.append(keys, unseen), np.append(checks, unseen),
                      np.append(owners, 0).astype(np.int8), np.append(nacts, 3).astype(np.int32),
                      out) == K.OK
    assert np.array_equal(out[:n], 3 * np.arange(n)) and out[n] == -1
    checks[7] += np.uint64(1)  # the same first hash with another second: a collision, not a match
    assert K.find_all(table, stats, keys[7:8], checks[7:8], owners[7:8], nacts[7:8],
                      out[:1]) == K.ERR_COLLISION


def test_ctrl_c_keeps_every_finished_iteration(tmp_path):
    game = sampling_game(coupsolve.Rules(turn_limit=1))

    class Interrupted(MCCFRSolver):
        def step(self, count=1):  # Ctrl-C arriving while the third chunk runs: it still finishes
            elapsed = super().step(count)
            self.calls = getattr(self, "calls", 0) + 1
            if self.calls == 3:
                raise KeyboardInterrupt
            return elapsed

    solver = Interrupted(game, max_infosets=20_000, seed=11)
    assert train(solver, iterations=10**9, progress=False, checkpoint=tmp_path / "c.npz")
    done = solver.iterations
    assert 3 <= done < 10**9
    resumed = MCCFRSolver.load(tmp_path / "c.npz", game)
    assert resumed.iterations == done
    whole = MCCFRSolver(game, max_infosets=20_000, seed=11)
    whole.step(done)
    assert _tables_equal(whole, resumed)


def test_any_openspiel_policy_reads_onto_a_tree_and_the_solver_has_average_policy(kuhn_tree):
    """``from_openspiel_policy`` took only a TabularPolicy (OpenSpiel's MCCFR ``average_policy()``
    failed with a bare AttributeError) and ``MCCFRSolver`` had no ``average_policy()`` (issue 48)."""
    game = pyspiel.load_game("kuhn_poker")
    np.random.seed(5)
    theirs = os_es.ExternalSamplingSolver(game)
    for _ in range(200):
        theirs.iteration()
    flat = solvers.from_openspiel_policy(kuhn_tree, theirs.average_policy())
    assert abs(solvers.exploitability(kuhn_tree, flat)
               - os_exploitability.exploitability(game, theirs.average_policy())) < 1e-9
    result = solvers.SolveResult.from_openspiel_policy(kuhn_tree, theirs.average_policy())
    assert np.allclose(result.average_policy, flat)
    with pytest.raises(TypeError, match="expected an OpenSpiel policy"):
        solvers.from_openspiel_policy(kuhn_tree, object())
    solver = MCCFRSolver(kuhn_game(), max_infosets=64, seed=1)
    solver.step(300)
    policy = solver.average_policy()  # the game loaded from its id, as OpenSpiel's solvers need none
    assert abs(os_exploitability.exploitability(game, policy)
               - solvers.exploitability(kuhn_tree, tree_policy(solver, kuhn_tree))) < 1e-12
