"""The horizon's turn-1 and turn-2 rates under one named selection: the MMD (annealed logit QRE)
strategy at each turn limit, beside the CFR+ strategy the other reports give.

A two-player zero-sum game has a convex set of equilibria and CFR+ lands somewhere in it; the
selection report (``selection_report.py``) shows that no turn-1 rate is determined at turn limits 1
and 2. A rate that moves between limits under CFR+ may therefore move only because CFR+ picked
another equilibrium. Here every limit is solved by ``mmd`` (:mod:`solvers.cfr.mmd`: the uniform
magnet, the temperature annealed toward 0) on the public tree, and the rates are read from its last
iterate with its exploitability, so that a move between limits under one selection is a move of the
game (as far as the selection is converged: the exploitability says how far).

Run: ``python examples/horizon_selected.py [--limits 1 2 3] [--payoffs draw influence]
[--iterations 10000]``. Each configuration is solved in its own process by the command line
(``coupsolve solve --representation public --algorithm mmd --json``) and kept as
``examples/report/tl<k>_<payoff>_mmd.json``; an existing file is reused (delete it to redo it). The
CFR+ figures are read from ``tl<k>_<payoff>.json`` (``turn_limit_report.py``) and, at turn limit 4,
``tl4_<payoff>.json`` (``tl4_report.py``) when present. Writes ``examples/report/horizon_selected.md``.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "report")
CLAIMS = ("Tax", "Steal", "Exchange", "Block Duke", "Block Captain", "Block Ambassador")
CARDS = ("Duke", "Assassin", "Captain", "Ambassador", "Contessa")
MOVE = 0.05  # a rate "moves" when it changes by more than this between consecutive limits


def solve(limit, payoff, iterations):
    """The MMD solve's JSON report of ``limit`` and ``payoff`` (solved now unless kept)."""
    path = os.path.join(OUT, f"tl{limit}_{payoff}_mmd.json")
    if not os.path.exists(path):
        print(f"solving turn limit {limit}, {payoff} payoff by MMD ({iterations:,} iterations) ...",
              flush=True)
        subprocess.run([sys.executable, "-m", "coupsolve", "solve", "--turn-limit", str(limit),
                        "--limit-payoff", payoff, "--representation", "public", "--algorithm", "mmd",
                        "--iterations", str(iterations), "--threads", "1", "--no-progress",
                        "--json", path], check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)


def cfr_plus(limit, payoff):
    """The CFR+ analysis and exploitability of ``limit`` and ``payoff`` kept by the other reports
    (None when absent)."""
    path = os.path.join(OUT, f"tl{limit}_{payoff}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        data = json.load(f)
    analysis = data.get("analysis") or data.get("exact")
    if analysis is None or "by_turn" not in analysis:
        return None
    return analysis, data.get("exploitability")


def rate(analysis, turn, claim, field):
    """One claim's rate at one turn (None where it was not made)."""
    for row in analysis["by_turn"].get(str(turn), []):
        if row["claim"] == claim:
            return row[field]
    return None


def pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def verdict(values):
    """``stable`` when consecutive limits' figures (those that exist) differ by at most ``MOVE``."""
    known = [v for v in values if v is not None]
    if len(known) < 2:
        return "-"
    return "stable" if all(abs(a - b) <= MOVE for a, b in zip(known, known[1:])) else "moves"


def table(mmd, cfr, payoff, field, title):
    limits = sorted(mmd)
    head = " | ".join(f"TL{k} MMD | TL{k} CFR+" for k in limits)
    lines = [f"### {title}, {payoff} payoff, turns 1 and 2", "",
             f"| claim | turn | {head} | MMD across limits |",
             "|---|---|" + "---|---|" * len(limits) + "---|"]
    for turn in (1, 2):
        for claim in CLAIMS:
            sel = [rate(mmd[k]["analysis"], turn, claim, field) for k in limits]
            cells = []
            for k, s in zip(limits, sel):
                c = cfr.get(k)
                cells += [pct(s), pct(rate(c[0], turn, claim, field)) if c else "n/a"]
            lines.append(f"| {claim} | {turn} | " + " | ".join(cells) + f" | {verdict(sel)} |")
    return lines + [""]


def choice_table(mmd, cfr, payoff):
    lines = [f"### Card choice, {payoff} payoff", "",
             "| seat | limit | selection | " + " | ".join(CARDS) + " |", "|---|---|---|" + "---|" * 5]
    for seat in ("0", "1"):
        for k in sorted(mmd):
            for name, analysis in (("MMD", mmd[k]["analysis"]), ("CFR+", (cfr.get(k) or (None,))[0])):
                if analysis is not None:
                    lines.append(f"| p{seat} | TL{k} | {name} | " + " | ".join(
                        pct(analysis["choice"][seat][c]) for c in CARDS) + " |")
    return lines + [""]


def _converged(solved):
    """Which MMD solves are 1e-3-equilibria, said in words: only theirs are an equilibrium's figures."""
    good, bad = [], []
    for payoff, (mmd, _) in solved.items():
        for k, data in sorted(mmd.items()):
            (good if data["exploitability"] <= 1e-3 else bad).append(
                f"turn limit {k} ({payoff}, {data['exploitability']:.2g})")
    text = "MMD's last iterate is a 1e-3-equilibrium at " + (", ".join(good) or "no limit")
    if bad:
        text += ("; not at " + ", ".join(bad) + ": there its figures are those of the annealed "
                 "iterate, a selection that has not reached an equilibrium, and a move between limits "
                 "may be the iterate's, not the game's")
    return text + "."


def report(limits, payoffs, iterations):
    lines = ["## The horizon under one selection (MMD)", "",
             "Generated by `python examples/horizon_selected.py`. Each turn limit solved on the public tree "
             f"by `mmd` ({iterations:,} iterations, last iterate; the temperature annealed from `max|A|` to "
             "`0.02 max|A|` over 5,000), beside CFR+ (stopped at exploitability 1e-3 or below). "
             f"*stable*: the MMD figures of consecutive limits differ by at most {100 * MOVE:.0f} points; "
             "`-` where the claim was not made; `n/a` where no CFR+ report is kept.", "",
             "| limit payoff | turn limit | MMD exploitability | CFR+ exploitability | MMD game value p0 |",
             "|---|---|---|---|---|"]
    solved = {}
    for payoff in payoffs:
        mmd = {k: solve(k, payoff, iterations) for k in limits}
        cfr = {k: cfr_plus(k, payoff) for k in limits}
        solved[payoff] = (mmd, cfr)
        for k in limits:
            c = cfr[k]
            lines.append(f"| {payoff} | {k} | {mmd[k]['exploitability']:.2e} | "
                         f"{'n/a' if not c or c[1] is None else f'{c[1]:.2e}'} | "
                         f"{mmd[k]['game_value'][0]:+.4f} |")
    lines += ["", _converged(solved), ""]
    for payoff, (mmd, cfr) in solved.items():
        lines += table(mmd, cfr, payoff, "bluff", "Bluff rate")
        lines += table(mmd, cfr, payoff, "challenged", "Challenge rate")
        lines += choice_table(mmd, cfr, payoff)
    path = os.path.join(OUT, "horizon_selected.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limits", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--payoffs", nargs="+", default=["draw", "influence"])
    parser.add_argument("--iterations", type=int, default=10_000)
    args = parser.parse_args()
    print(f"wrote {report(args.limits, args.payoffs, args.iterations)}")


if __name__ == "__main__":
    main()
