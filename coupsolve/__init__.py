"""coupsolve: Coup modelled exactly, as an OpenSpiel game, with numba-compiled CFR solvers.

Importing the package registers the OpenSpiel game ``python_coup``.
"""

import os as _os

from solvers._cache_guard import guard as _guard

_guard(_os.path.dirname(__file__))  # the tree builder inlines the engine: see solvers/_cache_guard.py

from .rules import CHARACTERS, Rules
from .game import CoupGame, CoupState, load_game
from .tree import build_tree, count_tree

__all__ = ["CHARACTERS", "Rules", "CoupGame", "CoupState", "load_game", "build_tree", "count_tree"]
__version__ = "0.1.0"
