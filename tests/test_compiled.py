"""The solver says "compiling, first run only" before a first compile (issue 48: 30 s of solver compile
passed without a word), and only then."""

import numba
import pytest

import solvers
from solvers import GameTree
from solvers.compiled import kernel_ready, kernels_ready
from solvers.history.rep import HistoryTree
from solvers.pieces.local import PiecesRep
from solvers.public.rep import PublicTreeRep


def _fresh_kernel():
    @numba.njit(cache=False)
    def add_one(x):
        return x + 1
    return add_one


def test_a_kernel_is_ready_once_compiled():
    kernel = _fresh_kernel()
    assert not kernel_ready(kernel)  # not compiled, no disk cache
    kernel(1)
    assert kernel_ready(kernel)


@pytest.mark.parametrize("rep", [HistoryTree, PublicTreeRep, PiecesRep])
def test_every_representation_names_its_compiled_kernels(rep):
    assert rep.KERNELS and all(isinstance(k, numba.core.registry.CPUDispatcher) for k in rep.KERNELS)


def test_the_solve_says_it_compiles_only_when_it_does(kuhn, monkeypatch):
    _, kuhn = kuhn
    said = []
    solvers.solve(kuhn, iterations=2, progress=False, say=said.append)  # compiles (or loads) the kernels
    assert kernels_ready(kuhn)
    said.clear()
    solvers.solve(kuhn, iterations=2, progress=False, say=said.append)
    assert said == []  # nothing to compile: nothing said
    monkeypatch.setattr(HistoryTree, "KERNELS", HistoryTree.KERNELS + (_fresh_kernel(),))
    assert not kernels_ready(kuhn)
    solvers.solve(kuhn, iterations=2, progress=False, say=said.append)
    assert len(said) == 1 and "compiling the solver" in said[0] and "first run only" in said[0]


def test_the_history_passes_are_not_compiled_again_for_a_literal_first_segment(kuhn, monkeypatch):
    """The serial solve passes its first segment, and the layout's fill its counters, as int64s: a
    literal 0 made numba compile these kernels a second time beside the threaded parts' copy
    (docs/research/design-measurements.md). The two callers are compiled here afresh (a caller read
    from numba's disk cache asks its callees for nothing), so that their callees are asked for every
    type they are called with."""
    from numba.core.types import Literal
    from solvers.history import _layout_fill, passes, rep

    monkeypatch.setattr(_layout_fill, "fill", numba.njit(cache=False)(_layout_fill.fill.py_func))
    monkeypatch.setattr(rep, "run_iterations", numba.njit(cache=False)(rep.run_iterations.py_func))
    # a tree of its own: the layouts are cached by tree, and the fresh fill must run
    solvers.solve(GameTree.from_openspiel(kuhn[0]), iterations=2, threads=1, progress=False)
    for kernel in (passes.pull, passes.backward, _layout_fill._open_segments, _layout_fill._place_block):
        assert kernel.signatures, kernel
        assert not any(isinstance(t, Literal) for sig in kernel.signatures for t in sig), kernel
