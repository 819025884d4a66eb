"""Compare the bluff rates of two rule variants: the turn limit's draw against the influence payoff.

Run: python examples/compare_variants.py [turn_limit]
"""

import sys

import solvers
import coupsolve
from coupsolve import Rules
from coupsolve.analysis.history import analyse

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 2
rows = {}
for payoff in ("draw", "influence"):
    rules = Rules.two_player_selection(turn_limit=limit, limit_payoff=payoff)
    coup_tree = coupsolve.build_coup_tree(rules)
    result = solvers.solve(coup_tree.tree, target_exploitability=1e-3, iterations=5000, progress=False)
    rows[payoff] = analyse(coup_tree, result.average_policy)
    print(f"{payoff}: exploitability {result.exploitability:.1e}, value p0 {rows[payoff].game_value[0]:+.4f}")
print(f"\n{'claim':<18}{'bluff (draw)':>14}{'bluff (influence)':>19}")
for a, b in zip(rows["draw"].claims, rows["influence"].claims):
    fmt = lambda x: "-" if x != x else f"{100 * x:.1f}%"  # noqa: E731
    print(f"{a.claim:<18}{fmt(a.bluff):>14}{fmt(b.bluff):>19}")
