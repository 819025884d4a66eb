"""Turn limit 4: report strategies solved in pieces, and how the figures move as the horizon grows.

Solve first (on 2 cores about 45 minutes each: count, build in pieces, solve; the command peaks at
about 16 GiB: docs/howto/turn-limit-4.md; the second payoff reuses the first's count):

    coupsolve solve --turn-limit 4 --limit-payoff draw --precision float32 --threads 2 \\
        --target-exploitability 1e-3 --check-every 10 --out tl4_draw.npz
    coupsolve solve --turn-limit 4 --limit-payoff influence ... --out tl4_influence.npz

then run: python examples/tl4_report.py tl4_draw.npz tl4_influence.npz [--games 50000] [--seed 0]

A strategy file that keeps its exact analysis (``solve`` keeps it with a strategy solved in pieces,
and ``coupsolve analyse`` with one it rebuilt the pieces of) gives the exact figures, as does the
JSON report ``solve`` wrote (``solve ... --json tl4_draw_solve.json``). For any other strategy file
the rates are estimated from seeded self-play through the OpenSpiel game (95% intervals; the card
choice is exact, read from the average policy at the two choice decisions): no tree is rebuilt. A
report this script wrote
before (``examples/report/tl4_draw.json``) may also stand for its strategy file. Writes
``examples/report/tl4_<payoff>.json|png``, and
``examples/report/horizon.md``: turn-1 and turn-2 bluff and challenge rates and the card choice at
turn limits 2 and 3 (exact, from ``tl2_*.json`` and ``tl3_*.json``, written by
``turn_limit_report.py``) beside turn limit 4's.
"""

import argparse
import json
import os

from coupsolve.analysis.claims import CLAIMS
from coupsolve.rules import CHARACTERS

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "report")


def choice(game, policy):
    """The card choice of each seat, exactly, from ``policy``: p0 at the root, p1 after each of p0's
    choices (p1 does not see it, so the distribution is the same whichever is played)."""
    root = game.new_initial_state()
    names = {a: root.action_to_string(root.current_player(), a) for a in root.legal_actions()}
    first = policy.action_probabilities(root)
    state = root.child(max(first, key=first.get))
    second = policy.action_probabilities(state)
    card = lambda a, s: s.action_to_string(s.current_player(), a).split()[-1]  # noqa: E731
    assert set(names) == set(first) and all(n.startswith("Choose") for n in names.values())
    return {"0": {card(a, root): float(p) for a, p in first.items()},
            "1": {card(a, state): float(p) for a, p in second.items()}}


def report_one(path, games, seed):
    from coupsolve.analysis.sampled import sampled_analysis
    from coupsolve.openspiel.game import load_game
    from coupsolve.openspiel.policy import PublicTreePolicy
    from coupsolve.strategy import load_solved, stored_analysis

    rules, _, result = load_solved(path, print)
    kept = stored_analysis(path, result)  # solve keeps the exact analysis with the strategy
    if kept is not None:
        return from_solve_report({
            "analysis": kept.to_dict(), "rules": rules.to_dict(),
            "infosets": int(result.infoset_num_actions.shape[0]),
            "build_seconds": None, "solve_seconds": float(result.seconds),
            "iterations": int(result.iterations), "exploitability": float(result.exploitability),
            "game_value": [float(v) for v in result.game_value]})
    game = load_game(rules)
    policy = PublicTreePolicy.of_result(game, rules, result)
    title = (f"turn limit {rules.turn_limit}, limit payoff {rules.limit_payoff}: CFR+ "
             f"{result.iterations} iterations, exploitability {result.exploitability:.1e} "
             f"(rates from {games:,} self-play games)")
    sampled = sampled_analysis(game, policy, games=games, seed=seed, meta={"title": title})
    name = f"tl{rules.turn_limit}_{rules.limit_payoff}"
    sampled.plot(os.path.join(OUT, f"{name}.png"))
    record = {"turn_limit": rules.turn_limit, "limit_payoff": rules.limit_payoff,
              "infosets": int(result.infoset_num_actions.shape[0]),
              "actions": int(result.infoset_num_actions.sum()), "solve_seconds": float(result.seconds),
              "iterations": int(result.iterations), "exploitability": float(result.exploitability),
              "game_value": [float(v) for v in result.game_value],
              "curve": [[int(i), float(e)] for i, e in zip(result.curve_iterations,
                                                         result.curve_exploitability)],
              "choice": choice(game, policy), "sampled": sampled.to_dict()}
    with open(os.path.join(OUT, f"{name}.json"), "w") as f:
        json.dump(record, f, indent=1)
    print(sampled.to_table())
    return record


def from_solve_report(data):
    """A record of ``coupsolve solve --json``'s report of a strategy analysed exactly (its
    ``analysis`` has no self-play games), written as ``tl4_<payoff>.json``."""
    a = data["analysis"]
    if "games" in a:
        raise SystemExit("that report's analysis was estimated from self-play, not exact")
    rules = data["rules"]
    record = {"turn_limit": rules["turn_limit"], "limit_payoff": rules["limit_payoff"],
              "infosets": data.get("infosets"), "build_seconds": data.get("build_seconds"),
              "solve_seconds": data["solve_seconds"], "iterations": data["iterations"],
              "exploitability": data["exploitability"], "game_value": data["game_value"],
              "choice": a["choice"], "exact": a}
    from coupsolve.analysis.history import Analysis

    name = os.path.join(OUT, f"tl{record['turn_limit']}_{record['limit_payoff']}")
    Analysis.from_dict(a).plot(name + ".png")
    with open(name + ".json", "w") as f:
        json.dump(record, f, indent=1)
    return record


def _record(payoff, limit):
    path = os.path.join(OUT, f"tl{limit}_{payoff}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def _exact(payoff, limit):
    record = _record(payoff, limit)
    return None if record is None else record["analysis"]


def _by_claim(rows):
    return {r["claim"]: r for r in rows}


def _cell(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def _sampled_cell(e):
    if e["events"] == 0 or e["value"] is None:
        return "-"
    return f"{100 * e['value']:.1f}% [{100 * e['low']:.0f}-{100 * e['high']:.0f}]"


def selection(records):
    """Which equilibrium the figures are: the algorithm, its iterations and exploitability per limit."""
    parts = []
    for payoff, rec in records.items():
        runs = [(limit, _record(payoff, limit)) for limit in (2, 3)] + [(4, rec)]
        parts.append(f"{payoff} payoff " + ", ".join(
            f"TL{limit} {r['iterations']} iterations ({r['exploitability']:.1e})" for limit, r in runs if r))
    return ("**Selection.** A game of this size has many equilibria, and a rate is the one the algorithm "
            "found: every figure here is CFR+'s average strategy (alternating updates, from the uniform "
            "strategy) stopped at the first check at or below exploitability 1e-3: " + "; ".join(parts)
            + ". `coupsolve solve` now runs HS-DCFR by default, which selects others; "
            "`horizon_selected.md` gives the MMD selection and the range over the 1e-3-equilibria "
            "where it was computed.")


def horizon(records):
    """``horizon.md``: turns 1 and 2 at turn limits 2, 3 (exact) and 4 (exact, or sampled with a 95%
    interval)."""
    lines = ["# What moves as the horizon grows", "",
             "Generated by `python examples/tl4_report.py`. Turn limits 2 and 3: exact reach-weighted "
             "figures (`turn_limit_report.py`). Turn limit 4: " + "; ".join(
                 f"{payoff} payoff " + ("exact, analysed on the pieces it was solved on" if "exact" in rec
                                        else "estimated from seeded self-play of the strategy solved "
                                             "in pieces, with the 95% interval in brackets")
                 for payoff, rec in records.items())
             + ". `-` where the claim was not made (or too rarely for a rate). The card choice is "
               "exact at every limit.", "", selection(records), ""]
    for payoff, rec in records.items():
        exact = {limit: _exact(payoff, limit) for limit in (2, 3)}
        heads = [f"TL{limit}" for limit in (2, 3) if exact[limit]] + ["TL4"]
        for field, what in (("bluff", "Bluff rate"), ("challenged", "Challenge rate")):
            lines += [f"## {what}, {payoff} payoff, turns 1 and 2", "",
                      "| claim | turn | " + " | ".join(heads) + " |", "|---|---|" + "---|" * len(heads)]
            for turn in ("1", "2"):
                rows = [_by_claim(exact[lim]["by_turn"][turn]) for lim in (2, 3) if exact[lim]]
                exact4 = "exact" in rec
                mine = _by_claim(rec["exact" if exact4 else "sampled"]["by_turn"][turn])
                for claim in CLAIMS:
                    cells = [_cell(r[claim][field]) if claim in r else "-" for r in rows]
                    cells.append("-" if claim not in mine else _cell(mine[claim][field]) if exact4
                                 else _sampled_cell(mine[claim][field]))
                    if set(cells) != {"-"}:
                        lines.append(f"| {claim} | {turn} | " + " | ".join(cells) + " |")
            lines.append("")
        lines += [f"## Card choice, {payoff} payoff", "", "| seat | limit | " + " | ".join(CHARACTERS)
                  + " |", "|---|---|" + "---|" * len(CHARACTERS)]
        for seat in ("0", "1"):
            for limit in (2, 3, 4):
                got = rec["choice"] if limit == 4 else (exact[limit] or {}).get("choice")
                if got:
                    lines.append(f"| p{seat} | TL{limit} | " + " | ".join(
                        _cell(got[seat].get(ch)) for ch in CHARACTERS) + " |")
        lines.append("")
    with open(os.path.join(OUT, "horizon.md"), "w") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("strategies", nargs="+",
                        help="turn-limit-4 strategy files (coupsolve solve --out), or reports this "
                             "script wrote (report/tl4_<payoff>.json) to reuse")
    parser.add_argument("--games", type=int, default=50_000, help="self-play games per strategy")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    records = {}
    for path in args.strategies:
        if path.endswith(".json"):  # a report: horizon.md again, no games replayed
            with open(path) as f:
                record = json.load(f)
            if "exact" not in record and "sampled" not in record:  # solve's own, exact
                record = from_solve_report(record)
        else:
            record = report_one(path, args.games, args.seed)
        records[record["limit_payoff"]] = record
    horizon(records)
    print(f"wrote {os.path.join(OUT, 'horizon.md')}")


if __name__ == "__main__":
    main()
