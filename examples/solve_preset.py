"""Solve the card-selection setup at a short turn limit and print how often each claim is a bluff.

Run: python examples/solve_preset.py [turn_limit] [strategy.npz]
"""

import sys

import solvers
import coupsolve
from coupsolve import Rules
from coupsolve.analysis.history import analyse

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 2
rules = Rules.two_player_selection(turn_limit=limit)
coup_tree = coupsolve.build_coup_tree(rules)              # the whole game, as flat arrays, and its extras
print(coup_tree.tree, coup_tree.build_info["seconds"], "s to build")
result = solvers.solve(coup_tree.tree, algorithm="cfr+", target_exploitability=1e-3, iterations=5000, seed=0)
print(f"exploitability {result.exploitability:.2g} after {result.iterations} iterations")
print(analyse(coup_tree, result.average_policy).to_table())
if len(sys.argv) > 2:
    result.save(sys.argv[2])                              # .npz + JSON metadata with the rules
