"""Shared fixtures: OpenSpiel games and their flat trees, built once per session."""

import pyspiel
import pytest

from solvers import GameTree


@pytest.fixture(autouse=True)
def _size_cache_of_the_test(tmp_path, monkeypatch):
    """coupsolve's cache of tree counts (coupsolve.trees.sizecache) in the test's own folder, never the user's,
    and empty at the start of every test (subprocesses inherit it)."""
    monkeypatch.setenv("COUPSOLVE_CACHE_DIR", str(tmp_path / "coupsolve-cache"))


def _game_and_tree(game_string):
    game = pyspiel.load_game(game_string)
    return game, GameTree.from_openspiel(game)


@pytest.fixture(scope="session")
def kuhn():
    return _game_and_tree("kuhn_poker")


@pytest.fixture(scope="session")
def leduc():
    return _game_and_tree("leduc_poker")


@pytest.fixture(scope="session")
def liars_dice():
    return _game_and_tree("liars_dice(numdice=1)")


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of this machine (its workers are separate processes), for one module's
    tests; the modules that use it run in one pytest-xdist worker (``xdist_group("ray")``)."""
    ray = pytest.importorskip("ray")
    assert not ray.is_initialized(), "an earlier test left Ray running"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def pytest_collection_modifyitems(items):
    """Kuhn's sampling kernels first in the run (a stable sort: every other test keeps its order). The
    two workers start with the sampling group and the Ray group, and both began by compiling the Coup
    engine at once; now the sampling group's worker compiles Kuhn's kernels while the other compiles
    the engine, which the sampling group's Coup tests then read from numba's cache
    (docs/research/design-measurements.md)."""
    items.sort(key=lambda item: item.path.name != "test_mccfr_threads.py")
