"""How each two-player option of RULES.md changes bluffing and challenging, against the base game.

Solves the two-player card-selection setup at a short turn limit with CFR+ (to exploitability 1e-3) for
the base game and for each option on its own, then prints per claim the bluff rate (the claimant lacks
the character) and the challenge rate (the claim is challenged), with the change against the base game
in percentage points. The event mat is left out: it does not fit the card-selection setup (its Court
deck has 3 cards; the event mat needs 4).

At turn limit 2 with the two-player coins (1 and 2) nobody can reach 7 coins or a buyout's 5 while
losing a challenge, so Selective Coup and the buyout cannot change anything there, and with the default
limit payoff (a draw) coins are worth nothing at the limit; ``--coins 5,5`` sets the starting coins of
every row and ``--payoff influence`` makes coins break ties at the limit.

Run: python examples/compare_options.py [turn_limit] [--coins 5,5] [--payoff influence]
(turn limit 2: a few minutes; the Factions tree is the largest, about 13 million histories)
"""

import argparse
import math
import time

import solvers
import coupsolve
from coupsolve import Rules
from coupsolve.analysis.history import analyse
from coupsolve.analysis.claims import CLAIMS

OPTIONS = [
    ("base", {}),
    ("contessa_blocks_tax", {"contessa_blocks_tax": True}),
    ("ambassador_halves_steal", {"ambassador_halves_steal": True}),
    ("starting_coins=0,1", {"starting_coins": "0,1"}),
    ("challenge_bounty=1", {"challenge_bounty": 1}),
    ("challenge_buyout=5", {"challenge_buyout": 5}),
    ("decline_proof", {"decline_proof": True}),
    ("selective_coup", {"selective_coup": True}),
    ("factions", {"factions": True}),
    ("marked_cards", {"marked_cards": True}),
]


def pct(x):
    return "     -" if math.isnan(x) else f"{100 * x:5.1f}%"


def delta(x, base):
    if math.isnan(x) or math.isnan(base):
        return "      "
    d = 100 * (x - base)
    return "      " if abs(d) < 0.05 else f"{d:+6.1f}"


def main(limit, coins=None, payoff="draw"):
    results = {}
    print(f"two-player card-selection setup, turn limit {limit}, limit payoff {payoff}"
          + (f", starting coins {coins}" if coins else "") + ", CFR+ to exploitability <= 1e-3\n")
    print(f"{'option':<25}{'histories':>11}{'infosets':>10}{'iterations':>11}{'exploit.':>10}"
          f"{'value p0':>10}{'seconds':>9}")
    for name, options in OPTIONS:
        if coins and "starting_coins" in options:
            continue
        rules = Rules.two_player_selection(turn_limit=limit, limit_payoff=payoff,
                                           **({"starting_coins": coins} if coins else {}), **options)
        t0 = time.perf_counter()
        coup_tree = coupsolve.build_coup_tree(rules)
        tree = coup_tree.tree
        result = solvers.solve(tree, target_exploitability=1e-3, iterations=5000, progress=False)
        a = analyse(coup_tree, result.average_policy)
        results[name] = a
        print(f"{name:<25}{tree.num_nodes:>11,}{tree.num_infosets:>10,}{result.iterations:>11}"
              f"{result.exploitability:>10.1e}{a.game_value[0]:>+10.4f}{time.perf_counter() - t0:>9.0f}",
              flush=True)
        del coup_tree, tree, result
    base = {r.claim: r for r in results["base"].claims}
    for title, field in (("bluff rate (the claimant lacks the character)", "bluff"),
                         ("challenge rate (the claim is challenged)", "challenged"),
                         ("claims made per game", "made")):
        print(f"\n{title}; options: change against the base game in percentage points"
              + (" (made: per game, absolute)" if field == "made" else ""))
        print(f"{'option':<25}" + "".join(f"{c:>17}" for c in CLAIMS))
        for name, a in results.items():
            cells = []
            for r in a.claims:
                x, b = getattr(r, field), getattr(base[r.claim], field)
                if field == "made":
                    cells.append(f"{x:>17.3f}")
                elif name == "base":
                    cells.append(f"{pct(x):>17}")
                else:
                    cells.append(f"{pct(x):>11}{delta(x, b)}")
            print(f"{name:<25}" + "".join(cells))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("turn_limit", type=int, nargs="?", default=2)
    parser.add_argument("--coins", help="starting coins of every row, e.g. 5,5")
    parser.add_argument("--payoff", choices=("draw", "influence"), default="draw")
    args = parser.parse_args()
    main(args.turn_limit, args.coins, args.payoff)
