"""coupsolve: Coup modelled exactly, as an OpenSpiel game, with numba-compiled CFR solvers.

Importing the package registers the OpenSpiel game ``python_coup``. ``count_tree(rules)`` sizes a
two-player game tree without building it; ``build_tree(rules)`` builds the game-agnostic
``solvers.GameTree``; ``build_coup_tree(rules)`` a ``CoupTree`` holding it with the Coup-side extras the
analysis needs.

The rules and the game are imported with the package; the tree builders and the sampling game (and
with them numba) on first use, so that the command line's ``--help`` and the commands that need no
kernel start at once.
"""

import importlib as _importlib
import os as _os

from coupsolve.start import command_line_start as _command_line_start

with _command_line_start():  # a Ctrl-C while `python -m coupsolve` starts: one line, status 130
    import solvers as _solvers
    from solvers.cache_guard import guard as _guard

    # the phase modules inline each other and the tree builder inlines the engine and reads solvers'
    # constants: any change under coupsolve/ or solvers/ clears coupsolve's numba cache (solvers/cache_guard.py)
    _guard(_os.path.dirname(__file__), _os.path.dirname(_solvers.__file__))

    from coupsolve.rules import CHARACTERS, Rules
    from coupsolve.openspiel.game import CoupGame, CoupState, load_game  # registers python_coup

#: The names imported on first use, and their modules.
_LAZY = {"TreeSize": "coupsolve.trees.history.builder", "count_tree": "coupsolve.trees.history.builder",
         "CoupTree": "coupsolve.trees.history.tree", "build_coup_tree": "coupsolve.trees.history.tree",
         "build_tree": "coupsolve.trees.history.tree",
         "sampling_game": "coupsolve.sampling.game"}  # Coup for solvers.MCCFRSolver


def __getattr__(name):
    """A name of :data:`_LAZY`, imported on first use."""
    if name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'coupsolve' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["CHARACTERS", "Rules", "CoupGame", "CoupState", "load_game", "build_tree", "build_coup_tree",
           "CoupTree", "TreeSize", "count_tree", "sampling_game"]
__version__ = "0.1.0"
