"""One interface over the four solver libraries.

An adapter is built for a :class:`benchmarks.games.Game` and an algorithm;
``step(k)`` runs ``k`` iterations and ``exploitability()`` evaluates the
library's average strategy with the library's own evaluator, converted to
OpenSpiel's convention (``NashConv / 2``):

``coupsolve``
    the solver object :class:`solvers.Solver` (what :func:`solvers.solve`
    drives) with its options ``precision``, ``updates`` and ``threads``;
    exploitability: its exact best response.
``OpenSpiel C++``
    ``pyspiel.CFRSolver`` / ``pyspiel.CFRPlusSolver``; exploitability:
    ``pyspiel.exploitability``.
``OpenSpiel Python``
    ``open_spiel.python.algorithms.cfr`` / ``discounted_cfr`` solvers;
    exploitability: ``open_spiel.python.algorithms.exploitability``.
``LiteEFG``
    ``LiteEFG.baselines`` graphs (CFR, CFR+, DCFR, PCFR+) on
    ``LiteEFG.OpenSpielEnv`` (or, for trees too large for its Python walk, on
    a file written from coupsolve's tree, :mod:`benchmarks.liteefg_export`);
    an iteration is ``graph.update_graph(env)`` plus
    ``env.update_strategy(...)`` (the averaging), as in LiteEFG's own
    ``baselines/utils.py``; exploitability: ``env.exploitability`` (which
    returns each player's gain: their sum is NashConv).
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile

import numpy as np

OURS = "coupsolve"
OS_CPP = "OpenSpiel C++"
OS_PY = "OpenSpiel Python"
LITEEFG = "LiteEFG"

#: Algorithms each library offers, by our names.
ALGORITHMS = {
    OURS: ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+"),
    OS_CPP: ("cfr", "cfr+"),
    OS_PY: ("cfr", "cfr+", "lcfr", "dcfr"),
    LITEEFG: ("cfr", "cfr+", "dcfr", "pcfr+"),
}

DEFAULT_MODE = dict(precision="float64", updates="alternating", threads=1)


def mode_label(precision="float64", updates="alternating", threads=1):
    """Short label of a coupsolve mode, e.g. ``"f64 alt 1T"``."""
    return f"{'f64' if precision == 'float64' else 'f32'} {updates[:3]} {threads}T"


def liteefg_available():
    try:
        import LiteEFG  # noqa: F401
    except Exception as exc:  # pragma: no cover - depends on the environment
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


class Ours:
    library = OURS

    def __init__(self, game, algorithm, precision="float64", updates="alternating", threads=1):
        import solvers

        self.tree = game.tree()
        self.mode = mode_label(precision, updates, threads)
        self.solver = solvers.Solver(self.tree, algorithm, precision=precision, updates=updates,
                                     threads=threads)

    def step(self, k):
        self.solver.step(k)

    def exploitability(self):
        return float(self.solver.exploitability())

    def close(self):
        self.solver = None


class _OpenSpiel:
    """OpenSpiel's solvers: ``evaluate_and_update_policy`` per iteration."""

    def __init__(self, game, algorithm):
        self.game = game.openspiel_game()
        self.solver = self.solvers()[algorithm](self.game)
        self.mode = "-"

    def step(self, k):
        for _ in range(k):
            self.solver.evaluate_and_update_policy()

    def close(self):
        self.solver = None


class OpenSpielCpp(_OpenSpiel):
    library = OS_CPP

    @staticmethod
    def solvers():
        import pyspiel

        return {"cfr": pyspiel.CFRSolver, "cfr+": pyspiel.CFRPlusSolver}

    def exploitability(self):
        import pyspiel

        return float(pyspiel.exploitability(self.game, self.solver.average_policy()))


class OpenSpielPython(_OpenSpiel):
    library = OS_PY

    @staticmethod
    def solvers():
        from open_spiel.python.algorithms import cfr, discounted_cfr

        return {"cfr": cfr.CFRSolver, "cfr+": cfr.CFRPlusSolver,
                "lcfr": discounted_cfr.LCFRSolver, "dcfr": discounted_cfr.DCFRSolver}

    def exploitability(self):
        from open_spiel.python.algorithms import exploitability

        return float(exploitability.exploitability(self.game, self.solver.average_policy()))


# LiteEFG baseline module, the environment's averaging ("convergence type") and
# the graph's strategy selector, as in LiteEFG's baselines/*.py __main__ blocks.
_LITEEFG = {
    "cfr": ("CFR", "avg-iterate", None),
    "cfr+": ("CFRplus", "linear-avg-iterate", None),
    "dcfr": ("DCFR", "last-iterate", "average-iterate"),
    "pcfr+": ("PCFR", "linear-avg-iterate", None),
}


class LiteEFGSolver:
    library = LITEEFG

    def __init__(self, game, algorithm, threads=1, from_tree=False):
        import importlib

        import LiteEFG as leg

        name, self.convergence, self.selector = _LITEEFG[algorithm]
        module = importlib.import_module(f"LiteEFG.baselines.{name}")
        leg.set_threads(threads)
        self.mode = f"{threads}T" + (" (tree file)" if from_tree else "")
        self._tmp = None
        with contextlib.redirect_stdout(io.StringIO()):
            if from_tree:
                from .liteefg_export import write_liteefg

                self._tmp = tempfile.TemporaryDirectory(prefix="liteefg-")
                path = os.path.join(self._tmp.name, f"{game.key}.efg")
                with open(path, "w", encoding="utf-8") as handle:
                    write_liteefg(game.tree(), handle)
                self.env = leg.FileEnv(path, traverse_type="Enumerate")
            else:
                self.env = leg.OpenSpielEnv(game.openspiel_game(), traverse_type="Enumerate")
            self.graph = module.graph()
        self.env.set_graph(self.graph)

    def _strategy(self):
        if self.selector is None:
            return self.graph.current_strategy()
        return self.graph.current_strategy(self.selector)

    def step(self, k):
        graph, env = self.graph, self.env
        for _ in range(k):
            graph.update_graph(env)
            env.update_strategy(self._strategy())

    def exploitability(self):
        return float(np.sum(self.env.exploitability(self._strategy(), self.convergence)) / 2.0)

    def close(self):
        self.env = self.graph = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def make(library, game, algorithm, **options):
    """An adapter for ``library`` (one of :data:`ALGORITHMS`' keys)."""
    cls = {OURS: Ours, OS_CPP: OpenSpielCpp, OS_PY: OpenSpielPython, LITEEFG: LiteEFGSolver}
    return cls[library](game, algorithm, **options)
