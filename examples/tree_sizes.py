"""Build the card-selection setup's game tree at a few turn limits and print its size.

Run: python examples/tree_sizes.py [max_turn_limit]
"""

import sys

import coupsolve
from coupsolve import Rules

for limit in range(1, int(sys.argv[1]) + 1 if len(sys.argv) > 1 else 3):
    info = coupsolve.build_coup_tree(Rules.two_player_selection(turn_limit=limit), context=False).build_info
    print(f"turn limit {limit}: {info['histories']:>12,} histories {info['infosets']:>10,} infosets "
          f"{info['seconds']:6.1f} s  {info['bytes_per_history']:.1f} bytes/history")
