"""Use the Coup game with one of OpenSpiel's own algorithms: external-sampling MCCFR, then compare
its exploitability with our exact CFR+ on the same game.

Run: python examples/openspiel_mccfr.py [iterations]
"""

import sys

import pyspiel
from open_spiel.python.algorithms import exploitability, external_sampling_mccfr

import solvers
import coupsolve
from coupsolve import Rules

rules = Rules.two_player_selection(turn_limit=1)
game = coupsolve.load_game(rules)                          # a pyspiel.Game like any other
mccfr = external_sampling_mccfr.ExternalSamplingSolver(game)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 400  # each exploitability check walks the Python game (~30 s)
for i in range(1, n + 1):
    mccfr.iteration()
    if i % (n // 2) == 0:
        print(f"MCCFR {i:>6} iterations: exploitability "
              f"{exploitability.exploitability(game, mccfr.average_policy()):.4f}")
tree = coupsolve.build_tree(rules)
result = solvers.solve(tree, iterations=200, progress=False)
print(f"coupsolve CFR+ 200 iterations: exploitability {result.exploitability:.2e} "
      f"(OpenSpiel's check: {exploitability.exploitability(game, result.to_openspiel_policy(game)):.2e})")
