"""Load a saved strategy, check it with OpenSpiel's own exploitability, and analyse it.

Run: python examples/analyse_strategy.py strategy.npz   (make one with `coupsolve solve --turn-limit 1
--out strategy.npz`; OpenSpiel's check walks the Python game, so keep the turn limit at 1)
"""

import sys

import pyspiel
from open_spiel.python.algorithms import exploitability

import solvers
import coupsolve  # noqa: F401  (registers python_coup)
from coupsolve.analysis.history import analyse

path = sys.argv[1]
meta = solvers.SolveResult.load(path)                      # the file records its game
game = pyspiel.load_game(meta.game_id)
coup_tree = coupsolve.build_coup_tree(game.rules)
result = solvers.SolveResult.load(path, tree=coup_tree.tree)  # refused if the tree does not match
print("our exploitability:     ", solvers.exploitability(coup_tree.tree, result.average_policy))
print("OpenSpiel's, same policy:", exploitability.exploitability(game, result.to_openspiel_policy(game)))
analysis = analyse(coup_tree, result.average_policy)
print(analysis.to_table())
analysis.plot("analysis.png")
