"""The turn-1 and turn-2 rates with blueprint leaves beside the draw payoff: do they still move with the cut?

Run: python examples/horizon_leaves.py DL1.json DL2.json [...] [--again OTHER.json ...]

Each argument is the ``--json`` report of ``coupsolve solve --turn-limit k --leaves BLUEPRINT.npz``
(cut after turn k, in increasing k). The draw-payoff figures of the same turn limits are read from
``examples/report/tl{k}_draw.json`` (``turn_limit_report.py``). Writes
``examples/report/horizon_leaves.md`` and copies the reports (the blueprint's folder removed) beside it.
A rate is *stable* when, with blueprint leaves, it moves by at most 5 points between the last two
depths and the claim is made at least 0.01 times a game at both; else *still moving* (or *rare*).

A rate that moves between depths may be moved by the depth or by what else a solve chose: the
rollouts' seed and count, the blueprint, the solver (the equilibrium it selects). Each ``--again``
report is another solve of a depth already given, differing in some of these; the report lists every
solve's turn-1 rates with what it changed, and each verdict says how far the solves of one depth
(the last two) are apart, so that a move between depths can be read against it: with exact leaves,
the solves with exact leaves only (the same game, another solver: the choice among its equilibria).
"""

import argparse
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "report")
STABLE = 0.05
#: A solve farther than this from equilibrium (exploitability of its depth-limited game) is listed, but
#: left out of how far one depth's solves are apart: its rates are not an equilibrium's.
NEAR = 0.01


def turn_rows(report, turn):
    rows = report["analysis"]["by_turn"].get(str(turn), [])
    return {r["claim"]: r for r in rows}


def cell(row, field):
    x = rate(row, field)
    return "-" if x is None else f"{100 * x:.1f}%"


def rate(row, field):
    """The rate, or None where the claim is made less than 0.01 times a game (or never challenged)."""
    if row is None or row["made"] < 0.01 or row[field] is None or row[field] != row[field]:
        return None
    return row[field]


def verdict(a, b, field, spread=None):
    """Stable, still moving or rare between ``a`` and ``b`` (rows of one claim at two depths); with
    ``spread``, how far the solves of one depth are apart."""
    x, y = rate(a, field), rate(b, field)
    if x is None or y is None:
        return "rare"
    moved = abs(x - y)
    text = f"stable ({100 * moved:.1f} points)" if moved <= STABLE else f"still moving ({100 * moved:.1f} points)"
    return text if spread is None else f"{text}; one depth's solves {100 * spread:.1f} apart"


def spread(runs, turn, claim, field):
    """The widest gap in a rate between two solves of one depth near equilibrium (``NEAR``), over
    ``runs`` (depth -> reports, the main one first), or None with one such solve a depth. Where the
    main solve's leaves are exact, only the solves with exact leaves count: the same game, solved
    again (another solver), so the gap is the choice among its equilibria, not noise."""
    gaps = []
    for reports in runs.values():
        same = [r for r in reports if not exact(reports[0]["leaves"]) or exact(r["leaves"])]
        near = [r for r in same if r["exploitability"] <= NEAR]
        rates = [x for x in (rate(turn_rows(r, turn).get(claim), field) for r in near) if x is not None]
        if len(rates) > 1:
            gaps.append(max(rates) - min(rates))
    return max(gaps) if gaps else None


def _depths(ks):
    """``depth 2`` or ``depths 2, 3``."""
    return f"depth{'s' if len(ks) > 1 else ''} " + ", ".join(str(k) for k in ks)


def exact(leaves):
    """Whether a solve's leaves were valued exactly (``--rollouts exact``, recorded as 0 rollouts)."""
    return leaves.get("rollouts") == 0


def valued(leaves):
    """How a solve's leaves were valued, in words."""
    return "exact leaf values" if exact(leaves) else f"{leaves.get('rollouts')} rollouts"


def differs(report, main):
    """What ``report`` changed from the main solve of its depth, in words."""
    lv, mv, out = report["leaves"], main["leaves"], []
    if report.get("seed") != main.get("seed"):
        out.append(f"seed {report.get('seed')}")
    if lv.get("rollouts") != mv.get("rollouts"):
        out.append(valued(lv))
    if lv.get("blueprint") != mv.get("blueprint"):
        out.append(f"blueprint `{lv.get('blueprint')}`")
    if lv.get("continuations") != mv.get("continuations"):
        out.append(f"{lv.get('continuations')} continuations")
    if report["algorithm"] != main["algorithm"]:
        out.append(f"solver {report['algorithm']}")
    if report["exploitability"] < main["exploitability"] / 3:
        out.append(f"solved further ({report['iterations']:,} iterations)")
    return ", ".join(out) or "the same settings"


def table_lines(turn, leaves, draws, runs=None):
    """The bluff and challenge tables of ``turn``: the draw payoff's and the blueprint leaves' rates
    by depth, and the verdict between the last two depths that reach the turn (with ``runs``, depth
    -> every solve of it, how far one depth's solves are apart)."""
    depths, lines = [k for k, _ in leaves], []
    if len(depths) < 2:
        return lines
    for field, name in (("bluff", "Bluff rate"), ("challenged", "Challenge rate")):
        head = " | ".join([f"draw TL{k}" for k in depths] + [f"leaves, depth {k}" for k in depths])
        lines += [f"## {name}, turn {turn}", "", f"| claim | {head} | verdict |",
                  "|---" * (2 * len(depths) + 2) + "|"]
        rows = {k: turn_rows(r, turn) for k, r in leaves}
        claims = list(dict.fromkeys(c for k in depths for c in list(rows[k]) + list(draws[k])))
        claims = [c for c in claims if any(rows[k].get(c, {}).get("made", 0) >= 0.01 for k in depths)
                  or any(draws[k].get(c, {}).get("made", 0) >= 0.01 for k in depths)]
        last = {k: runs[k] for k in depths[-2:]} if runs else {}
        for c in claims:
            cells = [cell(draws[k].get(c), field) for k in depths] + [cell(rows[k].get(c), field) for k in depths]
            v = verdict(rows[depths[-2]].get(c), rows[depths[-1]].get(c), field, spread(last, turn, c, field))
            lines.append(f"| {c} | " + " | ".join(cells) + f" | {v} |")
        lines.append("")
    return lines


def load(path):
    """A solve's report, its blueprint named without its folder, and its depth."""
    with open(path) as f:
        report = json.load(f)
    report["leaves"]["blueprint"] = os.path.basename(report["leaves"]["blueprint"])
    return report["rules"]["turn_limit"], report


def keep(report, name):
    """Copy ``report`` to ``name`` beside the output."""
    with open(os.path.join(OUT, name), "w") as f:
        json.dump(report, f)


def solves_lines(runs, claims):
    """The turn-1 rates of every solve, depth by depth, each with what it changed from the first."""
    head = " | ".join(f"{c} {what}" for c in claims for what in ("made", "bluff", "challenged"))
    lines = ["## Turn-1 rates of every solve", "",
             "Each depth's first solve is the one in the tables above; the others changed what the second "
             "column says. A rate is left out (-) where its claim is made less than 0.01 times a game.", "",
             f"| depth | solve | exploitability | {head} |", "|---" * (3 + 3 * len(claims)) + "|"]
    for k, reports in runs.items():
        for n, r in enumerate(reports):
            rows = turn_rows(r, 1)
            cells = []
            for c in claims:
                row = rows.get(c)
                cells += ["-" if row is None else f"{row['made']:.3f}", cell(row, "bluff"), cell(row, "challenged")]
            what = "the first" if n == 0 else differs(r, reports[0])
            if r["exploitability"] > NEAR:
                what += " (not near equilibrium: left out of the verdicts)"
            lines.append(f"| {k} | {what} | {r['exploitability']:.1e} | " + " | ".join(cells) + " |")
    return lines + [""]


def main(paths, again=()):
    leaves = [load(p) for p in paths]
    runs = {k: [r] for k, r in leaves}
    for path in again:
        k, report = load(path)
        if k not in runs:
            raise SystemExit(f"{path}: a solve of depth {k}, and no main report of that depth was given")
        runs[k].append(report)
    for old in glob.glob(os.path.join(OUT, "dl*_again*.json")):  # an earlier run's other solves
        os.remove(old)
    for k, reports in runs.items():
        for n, report in enumerate(reports):
            keep(report, f"dl{k}_blueprint.json" if n == 0 else f"dl{k}_again{n}.json")
    draw_reports = {}
    for k, _ in leaves:
        with open(os.path.join(OUT, f"tl{k}_draw.json")) as f:
            draw_reports[k] = json.load(f)
    depths = [k for k, _ in leaves]
    first = leaves[0][1]
    lines = ["# Turn-1 and turn-2 rates with blueprint leaves", "",
             f"Generated by `python examples/horizon_leaves.py`. Each cut after turn k is solved with its "
             f"leaves valued by {first['leaves']['continuations']} continuations of the full-length "
             f"blueprint `{first['leaves']['blueprint']}` ("
             + "; ".join(f"depth {k}: {valued(r['leaves'])}" for k, r in leaves) + "), beside the same cut "
             f"scored as a draw. Verdict: the rate with blueprint leaves moves by at most {100 * STABLE:.0f} "
             f"points between depths {depths[-2]} and {depths[-1]} (claims made at least 0.01 times a game).", "",
             "**Selection.** A depth-limited game has many equilibria, and each rate is the one its solve "
             "found: " + "; ".join(f"depth {k}: {r['algorithm']}'s average strategy after {r['iterations']:,} "
                                   f"iterations (exploitability {r['exploitability']:.1e})" for k, r in leaves)
             + ". The draw columns are CFR+'s, as in `horizon.md`.", "",
             ("**Noise.** The leaf values of the main solves at "
              + _depths([k for k, r in leaves if exact(r["leaves"])])
              + " are exact (the blueprint's play as a Markov chain over turn starts, `--rollouts exact`): "
              "no sampling noise in their rates. " if any(exact(r["leaves"]) for _, r in leaves)
              else "**Noise.** ")
             + "Rollout leaf values are estimates (their largest standard error is in the last "
             "table). Another rollout seed or count moves some of these rates as much as another depth does "
             "(`docs/research/depth-limited.md`), so a verdict on rollout values holds for their seed and count only"
             + (": where a depth was solved more than once, the verdict says how far its solves are apart (where "
                "the main solve's leaves are exact, its solves with exact leaves only: the same game, another "
                "solver), and the table after the turn-2 ones lists them." if any(len(v) > 1 for v in runs.values())
                else "."), ""]
    if depths[-1] < 4:
        lines += [f"**Depth 4** is not here: the depth-limited game is made from its cut's history tree, which "
                  f"for the cut after turn 4 does not fit a machine of this size, and `coupsolve solve --leaves "
                  f"... --turn-limit 4` refuses it in one line (`docs/research/depth-limited.md`, \"Depth 4, the "
                  f"cost aim and Ray\").", ""]
    for turn in (1, 2):
        lines += table_lines(turn, [(k, r) for k, r in leaves if k >= turn],
                             {k: turn_rows(r, turn) for k, r in draw_reports.items() if k >= turn},
                             {k: v for k, v in runs.items() if k >= turn})
    if any(len(v) > 1 for v in runs.values()):
        claims = [c for c in dict.fromkeys(c for _, r in leaves for c in turn_rows(r, 1))
                  if any(turn_rows(r, 1).get(c, {}).get("made", 0) >= 0.01 for _, r in leaves)]
        lines += solves_lines(runs, claims)
    lines += ["| depth | exploitability (of the depth-limited game) | iterations | largest standard error of a "
              "leaf value | leaf states |", "|---|---|---|---|---|"]
    for k, r in leaves:
        lv = r["leaves"]
        lines.append(f"| {k} | {r['exploitability']:.2e} | {r['iterations']:,} | {lv['largest_stderr']:.3f} | "
                     f"{lv['leaf_states']:,} |")
    with open(os.path.join(OUT, "horizon_leaves.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", help="one solve's --json report per depth, in increasing depth")
    parser.add_argument("--again", action="append", default=[], metavar="OTHER.json",
                        help="another solve of a depth given (another seed, rollout count, blueprint or solver)")
    args = parser.parse_args()
    main(args.reports, args.again)
