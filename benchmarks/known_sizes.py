"""Count the two-player presets and write ``coupsolve/trees/known_sizes.json``, the packaged table of
:mod:`coupsolve.trees.sizecache`, printing a table of what it counted.

    python benchmarks/known_sizes.py [--turn-limits 1 2 3] [--payoffs draw influence] [--max-nodes N]

Each preset is counted at each turn limit under each limit payoff given; a count that passes
``--max-nodes`` histories is shipped as the lower bound it proved ("more than N"), which is all a
refusal needs. Entries already in the file for other rules are kept. Every entry is recounted by
``tests/test_sizecache.py`` (turn limit 3 and up behind ``slow``).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from coupsolve import Rules, count_tree
from coupsolve.trees.sizecache import COUNT_LAYOUT, FORMAT, entry_of
from coupsolve.trees.history.size import TreeTooLarge

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "coupsolve", "trees", "known_sizes.json")
PRESETS = {"two-player-selection": Rules.two_player_selection,
           "two-player-standard": lambda **kw: Rules.standard(players=2, **kw)}


def count(rules, max_nodes):
    """The table entry of ``rules``: its exact size, or the lower bound a count stopped at ``max_nodes`` proved."""
    try:
        return entry_of(count_tree(rules, max_nodes=max_nodes))
    except TreeTooLarge as e:
        return {"at_least": e.at_least}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turn-limits", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--payoffs", nargs="+", default=["draw", "influence"])
    parser.add_argument("--max-nodes", type=int, default=None, help="stop a count past this many histories")
    parser.add_argument("--out", default=TABLE)
    args = parser.parse_args(argv)
    try:
        with open(args.out, encoding="utf-8") as f:
            sizes = json.load(f)["sizes"]
    except FileNotFoundError:
        sizes = {}
    print(f"{'preset':<22}{'turn limit':>11}{'payoff':>10}{'histories':>18}{'decisions':>16}{'seconds':>9}")
    for name, make in PRESETS.items():
        for turn_limit in args.turn_limits:
            for payoff in args.payoffs:
                rules = make(turn_limit=turn_limit, limit_payoff=payoff)
                t0 = time.perf_counter()
                entry = sizes[rules.game_string()] = count(rules, args.max_nodes)
                histories = f"{entry['nodes']:,}" if "nodes" in entry else f"> {entry['at_least'] - 1:,}"
                print(f"{name:<22}{turn_limit:>11}{payoff:>10}{histories:>18}{entry.get('decision_nodes', 0):>16,}"
                      f"{time.perf_counter() - t0:>9.1f}", flush=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"format": FORMAT, "stamp": {"layout": COUNT_LAYOUT}, "sizes": sizes}, f, indent=1,
                  sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
