"""coupsolve: Coup modelled exactly, as an OpenSpiel game, with numba-compiled CFR solvers.

Importing the package registers the OpenSpiel game ``python_coup``. ``count_tree(rules)`` sizes a
two-player game tree without building it; ``build_tree(rules)`` builds the game-agnostic
``solvers.GameTree``; ``build_coup_tree(rules)`` a ``CoupTree`` holding it with the Coup-side extras the
analysis needs.
"""

import os as _os

import solvers as _solvers
from solvers.cache_guard import guard as _guard

# the phase modules inline each other and the tree builder inlines the engine and reads solvers'
# constants: any change under coupsolve/ or solvers/ clears coupsolve's numba cache (solvers/cache_guard.py)
_guard(_os.path.dirname(__file__), _os.path.dirname(_solvers.__file__))

from coupsolve.rules import CHARACTERS, Rules
from coupsolve.openspiel.game import CoupGame, CoupState, load_game
from coupsolve.trees.history.builder import TreeSize, count_tree
from coupsolve.trees.history.tree import CoupTree, build_coup_tree, build_tree
from coupsolve.sampling.game import sampling_game  # Coup for solvers.MCCFRSolver

__all__ = ["CHARACTERS", "Rules", "CoupGame", "CoupState", "load_game", "build_tree", "build_coup_tree",
           "CoupTree", "TreeSize", "count_tree", "sampling_game"]
__version__ = "0.1.0"
