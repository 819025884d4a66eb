"""How strong a two-player strategy is, as poker bots are measured: duplicate matches with a
variance-reduced estimate against the shipped bots, and the local best response's lower bound.

Run: python examples/strength_report.py STRATEGY.npz [--games 4000] [--pilot 200] [--seed 7]
                                        [--lbr-games 200] [--lbr-rollouts 2]

Writes ``examples/report/strength.md`` and ``.json`` (``--out`` to change them). What each figure
guarantees:

- the head-to-head means (``coupsolve.evaluation.aivat.match``: duplicate deals, control variates with
  a value fitted on pilot games seeded apart) are unbiased estimates of the strategy's expected payoff
  against that opponent, with 95% normal intervals over the deals; they say nothing about opponents
  not played;
- the local best response's gain (``coupsolve.evaluation.localbr.local_br_gain``) is a sampled estimate
  of a lower bound on the strategy's exploitability: a responder that looks one action ahead earns at
  least that much in expectation, so the exploitability is at least the bound (its interval is the
  sample's); it is not the exploitability, which no sampled figure bounds from above.
"""

import argparse
import json
import os
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strategy")
    ap.add_argument("--games", type=int, default=4000, help="games against each bot (whole deals)")
    ap.add_argument("--pilot", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--lbr-games", type=int, default=200, help="0: no local best response")
    ap.add_argument("--lbr-rollouts", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "report", "strength"), help="without .md/.json")
    a = ap.parse_args()

    from coupsolve.evaluation.aivat import match
    from coupsolve.evaluation.localbr import local_br_gain
    from coupsolve.openspiel.bots import HonestBot, RandomBot
    from coupsolve.strategy import load

    loaded = load(a.strategy)
    game = loaded.game()
    policy = loaded.policy(game)
    doc = {"strategy": os.path.basename(a.strategy), "what": loaded.what, "rules": loaded.rules.to_dict(),
           "seed": a.seed, "pilot": a.pilot, "rows": []}
    for bot in (HonestBot, RandomBot):
        t0 = time.perf_counter()
        r = match(game, policy, bot(game), a.games, a.seed, a.pilot)
        row = {"against": bot.__name__, "games": r.games, "deals": r.deals, "mean": float(r.mean[0]),
               "half_width": float(r.half_width[0]), "reduced_mean": float(r.adjusted_mean[0]),
               "reduced_half_width": float(r.adjusted_half_width[0]),
               "variance_reduction": float(r.variance_reduction[0]), "win_rate": float(r.win_rate[0]),
               "seconds": round(time.perf_counter() - t0, 1)}
        doc["rows"].append(row)
        print(json.dumps(row), flush=True)
    if a.lbr_games:
        t0 = time.perf_counter()
        mean, half = local_br_gain(loaded.rules, policy, a.lbr_games, a.seed, rollouts=a.lbr_rollouts)
        doc["lbr"] = {"games": a.lbr_games, "rollouts": a.lbr_rollouts, "gain": mean, "half_width": half,
                      "seconds": round(time.perf_counter() - t0, 1)}
        print(json.dumps(doc["lbr"]), flush=True)
    with open(a.out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    lines = [f"# Strength of `{doc['strategy']}`", "", f"{doc['what']}. Written by "
             f"`python examples/strength_report.py {doc['strategy']} --games {a.games} --pilot {a.pilot} "
             f"--seed {a.seed} --lbr-games {a.lbr_games} --lbr-rollouts {a.lbr_rollouts}`.", "",
             "Head to head in duplicate deals (each deal twice, the seats swapped), mean payoff per game to "
             "the strategy (an equal seat averages 0), 95% intervals over the deals; *reduced*: the same "
             "games with control variates (a value fitted on pilot games seeded apart; unbiased), and how "
             "many times the games it is worth.", "",
             "| against | games | plain | reduced | variance reduction | win rate |", "|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        lines.append(f"| {r['against']} | {r['games']:,} | {r['mean']:+.4f} ± {r['half_width']:.4f} | "
                     f"{r['reduced_mean']:+.4f} ± {r['reduced_half_width']:.4f} | "
                     f"{r['variance_reduction']:.2f}x | {r['win_rate']:.3f} |")
    if "lbr" in doc:
        b = doc["lbr"]
        lines += ["", f"Local best response ({b['games']} games, half in each seat, {b['rollouts']} rollouts "
                  f"a world): gain **{b['gain']:+.3f} ± {b['half_width']:.3f}** (95%), an estimate of a lower "
                  "bound on the exploitability (the exploitability is at least the gain's expectation; no "
                  "sampled figure bounds it from above)."]
    lines += ["", "The head-to-head figures hold for these opponents only; the strategy's exploitability is "
              "not measured here, only bounded below."]
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {a.out}.md")


if __name__ == "__main__":
    main()
