"""The solver object (solvers.Solver) and the representation seam it is built on."""

import numpy as np
import pytest

import solvers
from solvers.cfr import representation
from solvers.history.rep import HistoryTree


def test_stepping_the_object_equals_solve(leduc):
    _, tree = leduc
    solver = solvers.Solver(tree, "cfr+")
    assert solver.iterations == 0
    solver.step(7)
    solver.step(13)
    assert solver.iterations == 20
    whole = solvers.solve(tree, "cfr+", iterations=20, check_every=20, progress=False)
    assert np.array_equal(solver.average_policy(), whole.average_policy)
    assert np.array_equal(solver.current_policy(), whole.current_policy)
    assert solver.exploitability() == whole.exploitability
    assert solver.exploitability() == pytest.approx(solvers.exploitability(tree, solver.average_policy()),
                                                    abs=1e-12)
    result = solver.result()
    assert result.iterations == 20 and np.array_equal(result.average_policy, whole.average_policy)
    assert result.options == whole.options == dict(precision="float64", updates="alternating", threads=1)
    assert result.game_value[0] == whole.game_value[0]


def test_save_and_load_continue_the_run(kuhn, tmp_path):
    _, tree = kuhn
    path = tmp_path / "run.npz"
    first = solvers.Solver(tree, "dcfr", seed=3)
    first.step(10)
    first.record()
    first.save(path)
    again = solvers.Solver.load(path, tree)
    assert (again.algorithm, again.seed, again.iterations) == ("dcfr", 3, 10)
    assert again.curve == first.curve
    again.step(15)
    whole = solvers.Solver(tree, "dcfr", seed=3)
    whole.step(25)
    assert np.array_equal(again.average_policy(), whole.average_policy())
    with pytest.raises(ValueError, match="algorithm"):
        solvers.Solver.load(path, tree, algorithm="cfr")


class Wrapped:
    """A toy second tree type: a GameTree behind another class."""

    def __init__(self, tree):
        self.inner = tree


class WrappedRepresentation:
    """A toy representation for ``Wrapped``: delegates to the history tree, counting the calls."""

    calls = []

    def __init__(self, tree, spec, precision, updates, threads):
        self._inner = HistoryTree(tree.inner, spec, precision, updates, threads)
        self.game_tree = tree.inner
        self.threads = self._inner.threads

    @classmethod
    def estimate_bytes(cls, tree, spec, precision, updates, threads):
        return HistoryTree.estimate_bytes(tree.inner, spec, precision, updates, threads)

    @property
    def iterations(self):
        return self._inner.iterations

    def iterate(self, count):
        self.calls.append(count)
        self._inner.iterate(count)

    def evaluate(self):
        return self._inner.evaluate()

    def average_policy(self):
        return self._inner.average_policy()

    def current_policy(self):
        return self._inner.current_policy()

    def get_state(self):
        return self._inner.get_state()

    def set_state(self, state, iterations):
        self._inner.set_state(state, iterations)


@pytest.fixture
def wrapped_registered(monkeypatch):
    monkeypatch.setattr(representation, "_REGISTRY", list(representation._REGISTRY))
    representation.register(Wrapped, WrappedRepresentation)
    WrappedRepresentation.calls.clear()


def test_a_second_representation_plugs_in_without_touching_solve(kuhn, wrapped_registered, tmp_path):
    _, tree = kuhn
    assert isinstance(WrappedRepresentation(Wrapped(tree), solvers.ALGORITHMS["cfr"], "float64",
                                            "alternating", 1), representation.Representation)
    path = tmp_path / "w.npz"
    toy = solvers.solve(Wrapped(tree), "cfr+", iterations=30, checkpoint=path, progress=False)
    assert sum(WrappedRepresentation.calls) == 30  # the toy representation did the iterations
    plain = solvers.solve(tree, "cfr+", iterations=30, progress=False)
    assert np.array_equal(toy.average_policy, plain.average_policy)
    assert np.array_equal(toy.curve_exploitability, plain.curve_exploitability)
    resumed = solvers.solve(Wrapped(tree), iterations=40, resume=path, progress=False)
    assert resumed.iterations == 40 and WrappedRepresentation.calls[-1] > 0


def test_an_unknown_tree_type_is_refused(kuhn):
    with pytest.raises(TypeError, match="registered representation"):
        solvers.Solver(object())
    with pytest.raises(TypeError, match="registered representation"):
        solvers.solve(Wrapped(kuhn[1]), iterations=1, progress=False)
