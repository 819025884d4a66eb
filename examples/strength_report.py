"""How strong a two-player strategy is, as poker bots are measured: duplicate matches with a
variance-reduced estimate against the shipped bots, and the local best response's lower bound.

Run: python examples/strength_report.py STRATEGY.npz [--games 4000] [--pilot 200] [--seed 7]
                                        [--lbr-games 200] [--lbr-rollouts 2]
                                        [--against honest,random,table] [--search K [--search-iterations N]]
     python examples/strength_report.py --render A.json B.json ... [--out ...]

Writes ``examples/report/strength.md`` and ``.json`` (``--out`` to change them). With ``--search K`` the
player measured is the re-solving player on the strategy (``coupsolve.search.ResolvingPolicy``, K turns
ahead), its pilot games played by the strategy's table, and ``table`` (the strategy itself) is an
opponent. Each row keeps its per-deal means, and the report pairs runs against the same opponent on
the same deals (same seed and games; say, the re-solving player and the table against HonestBot): the
difference per deal cancels much of the cards' luck that separate runs' intervals both carry.
``--render`` writes the report of several runs' JSON files (say, one opponent per process,
run side by side). What each figure guarantees:

- the head-to-head means (``coupsolve.evaluation.aivat.match``: duplicate deals, control variates with
  a value fitted on pilot games seeded apart) are unbiased estimates of the strategy's expected payoff
  against that opponent, with 95% normal intervals over the deals; they say nothing about opponents
  not played;
- the local best response's gain (``coupsolve.evaluation.localbr.local_br_gain``) is a sampled estimate
  of a lower bound on the strategy's exploitability: a responder that looks one action ahead earns at
  least that much in expectation, so the exploitability is at least the bound (its interval is the
  sample's); it is not the exploitability, which no sampled figure bounds from above. Against the
  re-solving player the responder models the strategy's table (``local_br_gain``'s ``model``): the
  same responder that measures the table, so the two gains compare directly, and the bound is looser.
"""

import argparse
import json
import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _timed():
    from coupsolve.search import ResolvingPolicy

    class Timed(ResolvingPolicy):
        """The re-solving player, keeping each re-solve's seconds."""

        seconds = []

        def action_probabilities(self, state, player_id=None):
            before = self.last
            out = super().action_probabilities(state, player_id)
            if self.last is not before and self.last is not None:  # None: the blueprint's move
                self.seconds.append(sum(self.last.seconds.values()))
            return out

    return Timed


def measure(a):
    """The document of one run (module docstring)."""
    from coupsolve.evaluation.aivat import match
    from coupsolve.evaluation.localbr import local_br_gain
    from coupsolve.openspiel.bots import HonestBot, RandomBot
    from coupsolve.strategy import load

    loaded = load(a.strategy)
    game = loaded.game()
    table = policy = loaded.policy(game)
    what = loaded.what
    if a.search:
        from coupsolve.search import Blueprint, SearchSettings

        Timed = _timed()

        settings = SearchSettings(lookahead=a.search, iterations=a.search_iterations, seed=a.seed,
                                  continuations=a.continuations, root=a.root, safe=a.safe,
                                  honest=a.honest)
        policy = Timed(game, Blueprint.load(a.strategy), settings)
        what += (f"; re-solving {a.search} turn(s) ahead at each decision, {settings.iterations} iterations, "
                 f"{settings.continuations} continuations, rooted {_rooted(a)}")
    opponents = {"honest": ("HonestBot", HonestBot(game)), "random": ("RandomBot", RandomBot(game)),
                 "table": ("the strategy's table", table)}
    doc = {"strategy": os.path.basename(a.strategy), "what": what, "rules": loaded.rules.to_dict(),
           "seed": a.seed, "pilot": a.pilot, "command": _command(a), "rows": []}
    for word in filter(None, a.against.split(",")):
        name, other = opponents[word]
        t0 = time.perf_counter()
        r = match(game, policy, other, a.games, a.seed, a.pilot, pilot_policy=table)
        row = {"against": name, "games": r.games, "deals": r.deals, "mean": float(r.mean[0]),
               "half_width": float(r.half_width[0]), "reduced_mean": float(r.adjusted_mean[0]),
               "reduced_half_width": float(r.adjusted_half_width[0]),
               "variance_reduction": float(r.variance_reduction[0]), "win_rate": float(r.win_rate[0]),
               "seconds": round(time.perf_counter() - t0, 1), "command": doc["command"], "seed": a.seed,
               "player": _player(a), "deal_means": r.deal_means("strategy").round(9).tolist(),
               "deal_reduced": r.deal_means("strategy", adjusted=True).round(9).tolist()}
        if a.search:
            moves, policy.seconds = np.asarray(policy.seconds), []
            row.update(moves=int(moves.size), fallbacks=policy.fallbacks, move_median=float(np.median(moves)),
                       move_p95=float(np.percentile(moves, 95)), move_max=float(moves.max()))
        doc["rows"].append(row)
        print(json.dumps(row), flush=True)
    if a.lbr_games:
        t0 = time.perf_counter()
        model = table if a.search else None  # a re-solve at every world and rollout is out of reach
        mean, half = local_br_gain(loaded.rules, policy, a.lbr_games, a.seed, rollouts=a.lbr_rollouts, model=model)
        doc["lbr"] = {"games": a.lbr_games, "rollouts": a.lbr_rollouts, "gain": mean, "half_width": half,
                      "seconds": round(time.perf_counter() - t0, 1), "model": "table" if a.search else "itself"}
        print(json.dumps(doc["lbr"]), flush=True)
    return doc


def _rooted(a):
    """Where the re-solves are rooted, whether safely, and their opponent model, in words."""
    return (("at the turn" if a.root == "turn" else "here") + (f", safe ({a.safe})" if a.safe else "")
            + (f", prior {a.honest:g} that the opponent is honest" if a.honest else ""))


def _player(a):
    """A short name of the player measured, for pairing runs on the same deals."""
    if not a.search:
        return "table"
    return f"re-solving {a.search} ahead, {a.continuations} continuations, rooted {_rooted(a)}"


def pairs(rows):
    """For each two rows against one opponent with the same seed and deals but other players:
    ``(first, second, {field: (mean, half-width)})``, the paired differences
    (:func:`coupsolve.evaluation.arena.paired`) of the plain and reduced per-deal means."""
    from coupsolve.evaluation.arena import paired

    out = []
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            if "deal_means" in a and "deal_means" in b and a["player"] != b["player"] and \
                    (a["against"], a["seed"], a["deals"]) == (b["against"], b["seed"], b["deals"]):
                first, second = (b, a) if a["player"] == "table" else (a, b)  # the table second
                out.append((first, second, {f: paired(first[f], second[f]) for f in ("deal_means", "deal_reduced")}))
    return out


NONE = "''"  # --against with no opponent, as a shell reads it


def _pilot(text):
    """``--pilot``: a whole number of at least 1 (every row reports the reduced estimate)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least 1 pilot game (the reduced estimate is "
                                         "fitted on them)")
    return int(text)


def _command(a):
    search = (f" --search {a.search} --search-iterations {a.search_iterations} --continuations {a.continuations}"
              f" --root {a.root}" + (f" --safe {a.safe}" if a.safe else "")
              + f" --honest {a.honest:g}" if a.search else "")
    return (f"python examples/strength_report.py {os.path.basename(a.strategy)} --games {a.games} --pilot {a.pilot} "
            f"--seed {a.seed} --lbr-games {a.lbr_games} --lbr-rollouts {a.lbr_rollouts} --against {a.against or NONE}"
            + search)


def render(doc):
    """The report's Markdown lines."""
    commands = sorted({r["command"] for r in doc["rows"] if "command" in r}) or [doc.get("command", "")]
    lines = [f"# Strength of `{doc['strategy']}`", "", f"{doc['what']}. Written by "
             + "; ".join(f"`{c}`" for c in commands) + "."]
    players = len({r.get("player") for r in doc["rows"]}) > 1  # several runs rendered: say whose row it is
    if doc["rows"]:
        lines += ["", "Head to head in duplicate deals (each deal twice, the seats swapped), mean payoff per game to "
                  "the strategy (an equal seat averages 0), 95% intervals over the deals; *reduced*: the same "
                  "games with control variates (a value fitted on pilot games seeded apart; unbiased), and how "
                  "many times the games it is worth.", "",
                  ("| player " if players else "") + "| against | games | plain | reduced | variance reduction | "
                  "win rate |", ("|---" if players else "") + "|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        lines.append((f"| {r.get('player')} " if players else "")
                     + f"| {r['against']} | {r['games']:,} | {r['mean']:+.4f} ± {r['half_width']:.4f} | "
                     f"{r['reduced_mean']:+.4f} ± {r['reduced_half_width']:.4f} | "
                     f"{r['variance_reduction']:.2f}x | {r['win_rate']:.3f} |")
    timed = [r for r in doc["rows"] if "moves" in r]
    if timed:
        lines += ["", "Seconds per re-solved move (compile included: the first moves of a process compile):", "",
                  "| against | moves | median | 95th percentile | max |", "|---|---|---|---|---|"]
        lines += [f"| {r['against']} | {r['moves']:,} | {r['move_median']:.2f} | {r['move_p95']:.2f} | "
                  f"{r['move_max']:.1f} |" for r in timed]
    both = pairs(doc["rows"])
    if both:
        lines += ["", "Paired on the same deals (the first player's per-deal mean minus the second's, 95% interval "
                  "over the deals):", "", "| against | seed | deals | first | second | plain | reduced |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {a['against']} | {a['seed']} | {a['deals']} | {a['player']} | {b['player']} | "
                  f"{d['deal_means'][0]:+.3f} ± {d['deal_means'][1]:.3f} | "
                  f"{d['deal_reduced'][0]:+.3f} ± {d['deal_reduced'][1]:.3f} |" for a, b, d in both]
    if "lbr" in doc:
        b = doc["lbr"]
        model = (" The responder is the local best response to the strategy's table (its beliefs and rollouts "
                 "read the table), played against the re-solving player: re-solving at every world and rollout is "
                 "out of reach. It is still a strategy of its seat, so its gain still bounds the re-solving "
                 "player's exploitability from below, more loosely; beside the table's own figure (the same "
                 "responder against the table), it says how much of the table's exploitable play the re-solving "
                 "player kept." if b.get("model") == "table" else "")
        lines += ["", f"Local best response ({b['games']} games, half in each seat, {b['rollouts']} rollouts "
                  f"a world): gain **{b['gain']:+.3f} ± {b['half_width']:.3f}** (95%), an estimate of a lower "
                  "bound on the exploitability (the exploitability is at least the gain's expectation; no "
                  "sampled figure bounds it from above)." + model
                  + (" Below zero it bounds nothing (no exploitability is negative): the responder lost."
                     if b["gain"] + b["half_width"] < 0 else "")]
    lines += ["", "The head-to-head figures hold for these opponents only; the strategy's exploitability is "
              "not measured here, only bounded below."]
    return lines


def main():
    from coupsolve.cli.values import probability
    from coupsolve.search.resolve import ROOTS, SAFE

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strategy", nargs="?")
    ap.add_argument("--games", type=int, default=4000, help="games against each opponent (whole deals)")
    ap.add_argument("--pilot", type=_pilot, default=200,
                    help="pilot games the reduced estimate's value is fitted on (at least 1)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--lbr-games", type=int, default=200, help="0: no local best response")
    ap.add_argument("--lbr-rollouts", type=int, default=2)
    ap.add_argument("--against", default="honest,random",
                    help="comma-separated: honest, random, table ('': none, the local best response only)")
    ap.add_argument("--search", type=int, default=0, help="measure the re-solving player, K turns ahead")
    ap.add_argument("--search-iterations", type=int, default=100)
    ap.add_argument("--continuations", type=int, default=2,
                    help="continuations per player at the re-solves' leaves")
    ap.add_argument("--root", choices=ROOTS, default=ROOTS[0],
                    help="where the re-solves are rooted (coupsolve.search.SearchSettings.root)")
    ap.add_argument("--safe", nargs="?", const="blueprint", default=False, choices=[k for k in SAFE if k],
                    help="safe re-solving, the gadget's weights (coupsolve.search.SearchSettings.safe)")
    ap.add_argument("--honest", type=probability, default=None, metavar="Q",
                    help="the prior that the opponent is the honest blueprint (default: SearchSettings.honest's)")
    ap.add_argument("--render", nargs="+", metavar="JSON", help="write the report of these runs instead")
    ap.add_argument("--out", default=os.path.join(HERE, "report", "strength"), help="without .md/.json")
    a = ap.parse_args()
    if a.honest is None:
        from coupsolve.search import SearchSettings

        a.honest = SearchSettings().honest
    if a.render:
        docs = [json.load(open(path)) for path in a.render]
        doc = dict(docs[0], rows=[r for d in docs for r in d["rows"]])
    elif a.strategy is None:
        ap.error("give a strategy file, or --render")
    else:
        doc = measure(a)
    with open(a.out + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    with open(a.out + ".md", "w") as f:
        f.write("\n".join(render(doc)) + "\n")
    print(f"wrote {a.out}.md")


if __name__ == "__main__":
    main()
