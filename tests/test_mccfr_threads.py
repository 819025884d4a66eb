"""External-sampling MCCFR on several workers (solvers.mccfr.batch): one worker with batches of one
iteration makes the serial solver's updates; more workers are reproducible from the seed, the workers
and the batch (not from numba's threads nor the sinks' room), resume bit for bit, and converge."""

import numba
import numpy as np
import pytest

import coupsolve
import solvers
from coupsolve.sampling.game import sampling_game
from solvers.mccfr import batch as mccfr_batch
from solvers.mccfr.solver import MCCFRSolver, train
from solvers.mccfr.policy import tree_policy

from test_mccfr import kuhn_game

# one worker compiles the sampling kernels (MCCFR) once, not both at the same time
pytestmark = pytest.mark.xdist_group("sampling")


@pytest.fixture(scope="module")
def kuhn():
    return kuhn_game(), solvers.GameTree.from_openspiel("kuhn_poker")


def _same_updates(serial, batched):
    """The tables are the same (keys, owners, offsets: first visits in the same order) and the
    regrets and averages agree to rounding (the batched solver adds ``v - u`` where the serial one
    computes ``r + v - u``)."""
    ta, tb = serial.table(), batched.table()
    for field in ("key", "check", "owner", "num_actions", "offset"):
        assert np.array_equal(ta[field], tb[field]), field
    for field in ("regret", "average"):
        np.testing.assert_allclose(tb[field], ta[field], rtol=1e-12, atol=1e-12 * max(
            1.0, np.abs(ta[field]).max()))
    assert np.array_equal(serial._rng, batched._rng)


def _serial_and_batched(game, iterations, **options):
    """The serial solver and one worker in batches of one, both made with ``options`` and run for
    ``iterations``, checked to make the same updates (:func:`_same_updates`)."""
    serial = MCCFRSolver(game, **options)
    batched = MCCFRSolver(game, threads=1, batch=1, **options)
    serial.step(iterations)
    batched.step(iterations)
    _same_updates(serial, batched)
    return serial, batched


def _identical(a, b):
    ta, tb = a.table(), b.table()
    return all(np.array_equal(ta[k], tb[k]) for k in ta) and np.array_equal(a._rng, b._rng)


@pytest.mark.parametrize("regret, average", [pytest.param("rm", "uniform", marks=pytest.mark.slow), ("rm+", "linear")])
def test_one_worker_in_batches_of_one_makes_the_serial_updates(kuhn, regret, average):
    game, _ = kuhn
    serial, batched = _serial_and_batched(game, 400, max_infosets=64, seed=4, regret=regret,
                                          average=average)
    assert batched.iterations == serial.iterations == 400


@pytest.mark.slow  # the only default test to compile Coup's worker kernel: test_coup_workers checks it too
def test_three_players_make_the_same_sets_serially_and_in_batches():
    """At three players a traversal makes only the sets it writes (the updated and the averaged
    player's): the serial kernel and one worker in batches of one make the same sets, in the same
    order, with the same values, and every player's sets are among them."""
    game = sampling_game(coupsolve.Rules(players=3, turn_limit=1))
    serial, _ = _serial_and_batched(game, 150, max_infosets=100_000, seed=6, regret="rm+",
                                    average="linear")
    assert set(np.unique(serial.table()["owner"])) == {0, 1, 2}


@pytest.mark.slow
def test_workers_are_reproducible_whatever_the_threads_and_the_sinks_room(kuhn, monkeypatch):
    game, _ = kuhn
    make = lambda: MCCFRSolver(game, max_infosets=64, seed=8, regret="rm+", average="linear",  # noqa: E731
                               threads=2, batch=16)
    a = make()
    a.step(4_000)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)  # the two workers on one thread
        b = make()
        b.step(1_024)
        b.step(2_976)  # chunks do not matter (both are whole batches)
    finally:
        numba.set_num_threads(before)
    assert _identical(a, b)
    monkeypatch.setattr(mccfr_batch, "FIRST_ROOM", (8, 2, 4))  # every phase fills a sink at first
    c = make()
    c.step(4_000)
    assert c._workers.room[0] > 8  # the sinks grew, and the phases that filled them ran again
    assert _identical(a, c)
    other = MCCFRSolver(game, max_infosets=64, seed=8, regret="rm+", average="linear", threads=2,
                        batch=8)
    other.step(4_000)
    assert not _identical(a, other)  # the batch is part of the algorithm


def test_a_step_runs_whole_batches(kuhn):
    game, _ = kuhn
    solver = MCCFRSolver(game, max_infosets=64, seed=1, threads=3, batch=4)
    solver.step(5)
    assert solver.iterations == 12
    solver.step(0)
    assert solver.iterations == 12
    assert solver._rng.shape == (3,) and len(set(solver._rng.tolist())) == 3


def test_workers_converge_on_kuhn(kuhn):
    game, tree = kuhn
    solver = MCCFRSolver(game, max_infosets=64, seed=3, threads=2, batch=50)
    solver.step(20_000)
    policy = tree_policy(solver, tree)
    assert solvers.exploitability(tree, policy) < 0.02
    assert abs(solvers.expected_values(tree, policy)[0] + 1 / 18) < 0.01  # Kuhn's value: -1/18
    assert solver.num_infosets == tree.num_infosets


def test_checkpoint_resume_with_workers_is_bit_identical(kuhn, tmp_path):
    game, _ = kuhn
    whole = MCCFRSolver(game, max_infosets=64, seed=6, threads=2, batch=4, average="linear")
    whole.step(800)
    part = MCCFRSolver(game, max_infosets=64, seed=6, threads=2, batch=4, average="linear")
    train(part, iterations=320, progress=False, checkpoint=tmp_path / "c.npz")
    resumed = MCCFRSolver.load(tmp_path / "c.npz", game)
    assert (resumed.threads, resumed.batch, resumed.iterations) == (2, 4, 320)
    train(resumed, iterations=800, progress=False)
    assert _identical(whole, resumed)


def test_workers_only_for_external_sampling_and_games_that_bind_them(kuhn):
    game, _ = kuhn
    with pytest.raises(ValueError, match="sampling='external', not 'outcome'"):
        MCCFRSolver(game, max_infosets=64, threads=2, sampling="outcome")
    with pytest.raises(ValueError, match="threads must be"):
        MCCFRSolver(game, max_infosets=64, threads=0)
    features = sampling_game(coupsolve.Rules(players=4, turn_limit=100), "features")
    with pytest.raises(ValueError, match="binds no batched external-sampling kernel"):
        MCCFRSolver(features, max_infosets=64, threads=2)


@pytest.mark.slow
def test_coup_workers(tmp_path):
    """Coup's own binding (compiled once, cached): one worker in batches of one is the serial solver
    at turn limit 1; two workers are reproducible."""
    game = sampling_game(coupsolve.Rules(turn_limit=1))
    serial, _ = _serial_and_batched(game, 300, max_infosets=20_000, seed=2)
    a, b = (MCCFRSolver(game, max_infosets=20_000, seed=2, threads=2) for _ in range(2))
    a.step(640)
    b.step(640)
    assert _identical(a, b) and a.num_infosets > serial.num_infosets
