"""coupsolve: Coup modelled exactly, as an OpenSpiel game, with numba-compiled CFR solvers.

Importing the package registers the OpenSpiel game ``python_coup``.
"""

from .rules import CHARACTERS, Rules
from .game import CoupGame, CoupState, load_game

__all__ = ["CHARACTERS", "Rules", "CoupGame", "CoupState", "load_game"]
__version__ = "0.1.0"
