"""The benchmarks page's summary of the latest runs: ``python -m benchmarks.summary [--docs]``.

Reads the CSV files the benchmarks wrote to ``benchmarks/results/`` and prints
two Markdown blocks. The main block, from a full ``benchmarks.run``
(iteration, target, build, scaling, profile and bandwidth CSV files): CFR+
seconds per iteration against each library, seconds to exploitability 1e-3
and 1e-4 (each library's fastest algorithm), the Coup trees from turn limit 1
to 3 (build, memory, one and two threads, nanoseconds per history against the
bandwidth floor) and the profile of a pass. The public block, from
``public.csv`` (``python -m benchmarks.public``) and ``distributed.csv``
(``python -m benchmarks.distributed``) only: the public tree against the
history tree, and the public tree on a local Ray cluster against one process.
The sampling block, from ``mccfr.csv`` (``python -m benchmarks.mccfr``): MCCFR
against OpenSpiel's on the same game. Every figure is copied from the CSV files, none is typed in. With
``--docs`` (or ``--readme``) each block also replaces docs/benchmarks.md's text between its markers
(``<!-- bench:start -->`` ... ``<!-- bench:end -->``, and likewise
``bench-public`` and ``bench-sampling``), but only when at least one of its own
CSV files exists: a block none of whose files exist is left as it is.
``benchmarks.run`` calls this at the end of a full run.
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

from .common import RESULTS, fmt_ratio, fmt_seconds

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "docs" / "benchmarks.md"  # the page the blocks are written into
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
PUBLIC_START, PUBLIC_END = "<!-- bench-public:start -->", "<!-- bench-public:end -->"
MAIN_FILES = ("iteration", "target", "build", "scaling", "profile", "bandwidth")
PUBLIC_FILES = {"public": "python -m benchmarks.public",
                "distributed": "python -m benchmarks.distributed"}
SAMPLING_START, SAMPLING_END = "<!-- bench-sampling:start -->", "<!-- bench-sampling:end -->"
SAMPLING_FILES = {"mccfr": "python -m benchmarks.mccfr"}
OURS, OS_CPP, OS_PY, LITEEFG = "coupsolve", "OpenSpiel C++", "OpenSpiel Python", "LiteEFG"
DEFAULT = "f64 alt 1T"
GAMES = {"kuhn": "Kuhn", "leduc": "Leduc", "liars_dice": "Liar's Dice (1 die)",
         "coup1": "Coup TL1", "coup2": "Coup TL2", "coup3": "Coup TL3"}


def _read(name, results=RESULTS):
    path = Path(results) / f"{name}.csv"
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _num(row, key):
    try:
        value = float(row.get(key) or "nan")
    except ValueError:
        return float("nan")
    return value


def _table(columns, rows):
    out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    out += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return out


def _times_slower(theirs, ours):
    if math.isnan(theirs) or math.isnan(ours) or ours <= 0:
        return "-"
    return fmt_ratio(theirs / ours)


def _iteration(rows):
    """Per game: our default and fastest mode, and each library's fastest run."""
    out = []
    games = [g for g in GAMES if any(r["game"] == g for r in rows)]
    for game in games:
        mine = [r for r in rows if r["game"] == game]
        ours = {r["mode"]: _num(r, "seconds_median") for r in mine if r["library"] == OURS}
        base = ours.get(DEFAULT, float("nan"))
        fastest = min(ours, key=ours.get) if ours else None
        cells = [GAMES[game], f"{int(mine[0]['histories']):,}", fmt_seconds(base),
                 f"{fmt_seconds(ours[fastest])} ({fastest})" if fastest else "-"]
        for library in (OS_CPP, OS_PY, LITEEFG):
            theirs = [r for r in mine if r["library"] == library]
            timed = [r for r in theirs if not math.isnan(_num(r, "seconds_median"))]
            if timed:
                best = min(timed, key=lambda r: _num(r, "seconds_median"))
                t = _num(best, "seconds_median")
                label = f", {best['mode']}" if library == LITEEFG and best["mode"] else ""
                cells.append(f"{fmt_seconds(t)}{label}: **{_times_slower(t, base)}**")
            elif theirs and not math.isnan(_num(theirs[0], "projected_seconds")):
                t = _num(theirs[0], "projected_seconds")
                cells.append(f"not run; projected ~{fmt_seconds(t)}: ~{_times_slower(t, base)}")
            elif theirs:
                cells.append((theirs[0].get("note") or "not run").split(":")[0])
            else:
                cells.append("-")
        out.append(cells)
    return _table(["game", "histories", "coupsolve (OpenSpiel-exact mode)",
                   "coupsolve fastest mode", "OpenSpiel C++: x slower",
                   "OpenSpiel Python: x slower", "LiteEFG: x slower"], out)


def _target(rows):
    """Per game and target: each library's fastest (algorithm, mode) to reach it."""
    out = []
    games = [g for g in GAMES if any(r["game"] == g for r in rows)]
    for game in games:
        mine = [r for r in rows if r["game"] == game]
        for key in ("1e-03", "1e-04"):
            best = {}
            for library in (OURS, OS_CPP, OS_PY, LITEEFG):
                runs = [r for r in mine if r["library"] == library]
                done = [r for r in runs if not math.isnan(_num(r, f"seconds_{key}_median"))]
                if done:
                    r = min(done, key=lambda r: _num(r, f"seconds_{key}_median"))
                    best[library] = (_num(r, f"seconds_{key}_median"), r)
                else:
                    projected = [_num(r, f"projected_seconds_{key}") for r in runs]
                    projected = [p for p in projected if not math.isnan(p)]
                    ran = [r for r in runs if int(_num(r, "repeats") or 0) > 0]
                    best[library] = (min(projected) if projected else float("nan"),
                                     "projected" if projected else ("budget" if ran else None))
            ours_t = best[OURS][0]
            ours_row = best[OURS][1]
            if isinstance(ours_row, dict):
                mode = ours_row["mode"]
                ours_cell = (f"{fmt_seconds(ours_t)} ({ours_row['algorithm']}"
                             f"{'' if mode == DEFAULT else ', ' + mode}, "
                             f"{int(_num(ours_row, f'iterations_{key}')):,} it.)")
            else:
                ours_cell = "not reached in budget"
            cells = [GAMES[game], key.replace("e-0", "e-"), ours_cell]
            for library in (OS_CPP, OS_PY, LITEEFG):
                t, r = best[library]
                if isinstance(r, dict):
                    cells.append(f"{fmt_seconds(t)} ({r['algorithm']}): "
                                 f"**{_times_slower(t, ours_t)}**")
                elif r == "projected":
                    cells.append(f"projected ~{fmt_seconds(t)}: ~{_times_slower(t, ours_t)}")
                elif r == "budget":
                    cells.append("not reached in budget")
                else:
                    cells.append("not run")
            out.append(cells)
    return _table(["game", "target", "coupsolve fastest", "OpenSpiel C++ fastest",
                   "OpenSpiel Python fastest", "LiteEFG fastest"], out)


def _coup(build, scaling, profile):
    out = []
    for game in ("coup1", "coup2", "coup3"):
        b = next((r for r in build if r["game"] == game), None)
        modes = {r["mode"]: r for r in scaling if r["game"] == game and r.get("mode")}
        if b is None and not modes:
            continue
        one, two = modes.get(DEFAULT), modes.get("f64 alt 2T")
        fast = min(modes.values(), key=lambda r: _num(r, "seconds_median")) if modes else None
        # ns per history per pass: alternating modes only (a simultaneous pass does more).
        alternating = [r for r in modes.values() if r.get("updates") == "alternating"]
        lean = min(alternating, key=lambda r: _num(r, "ns_per_history_pass"), default=None)
        cells = [GAMES[game], f"{int(_num(b or one, 'histories')):,}" if (b or one) else "-"]
        cells.append(fmt_seconds(_num(b, "seconds_median")) if b else "-")
        cells.append(f"{_num(b, 'bytes_per_history'):.1f}" if b else "-")
        cells.append(fmt_seconds(_num(one, "seconds_median")) if one else "-")
        if two:
            speedup = _num(one, "seconds_median") / _num(two, "seconds_median")
            cells.append(f"{fmt_seconds(_num(two, 'seconds_median'))} ({speedup:.2f}x)")
        else:
            cells.append("-")
        if fast:
            cells.append(f"{fmt_seconds(_num(fast, 'seconds_median'))} ({fast['mode']})")
            cells.append(f"{_num(one, 'ns_per_history_pass'):.2f} / "
                         f"{_num(lean, 'ns_per_history_pass'):.2f} ({lean['mode']}) / "
                         f"{_num(one, 'floor_ns_per_history_pass'):.2f}" if one and lean else "-")
            cells.append(f"{_num(one, 'peak_rss') / 2 ** 30:.2f} GiB" if one else "-")
        else:
            cells += ["-", "-", "-"]
        out.append(cells)
    lines = _table(["game", "histories", "build", "tree bytes/history", "CFR+ iteration, 1 thread",
                    "2 threads (speed-up)", "fastest mode", "ns/history/pass: default / "
                    "leanest mode / default's floor", "peak memory (1T solve)"], out)
    phases = [r for r in profile if r.get("phase") and r["game"] in ("coup2", "coup3")]
    if phases:
        lines += ["", "Where a pass's time goes (float64, one thread): "
                  + "; ".join(
                      f"{GAMES[g]}: " + ", ".join(
                          f"{r['phase']} {_num(r, 'share_of_pass'):.0%} at "
                          f"{_num(r, 'gb_per_s'):.1f} GB/s"
                          for r in phases if r["game"] == g and r["phase"] != "stream")
                      + " (a sequential stream: "
                      + ", ".join(f"{_num(r, 'gb_per_s'):.1f} GB/s" for r in phases
                                  if r["game"] == g and r["phase"] == "stream") + ")"
                      for g in dict.fromkeys(r["game"] for r in phases))
                  + "."]
    return lines


def summary(results=RESULTS, command="make bench"):
    """The Markdown block (a string) from the CSV files in ``results``."""
    iteration, target = _read("iteration", results), _read("target", results)
    build, scaling = _read("build", results), _read("scaling", results)
    profile, bandwidth = _read("profile", results), _read("bandwidth", results)
    anyrow = next((rows[0] for rows in (iteration, target, scaling, build, bandwidth) if rows),
                  None)
    if anyrow is None:
        return "Benchmarks have not been run yet: `make bench` runs them and prints the tables."
    finished = max(rows[-1]["date"] for rows in (iteration, target, scaling, build, bandwidth,
                                                 profile) if rows)
    lines = [f"Latest `{command}` on {anyrow['machine']} (finished {finished}); "
             f"{anyrow['versions']}. Medians of 5 timed repeats; all CSV files in "
             "`benchmarks/results/`, every table in the run's output."]
    read = {int(r["threads"]): _num(r, "gb_per_s_median") for r in bandwidth
            if r["kernel"] == "read"}
    if iteration:
        lines += ["", "**CFR+ seconds per iteration, warm** (\"x slower\": their time over "
                  "coupsolve's OpenSpiel-exact mode, float64, alternating updates, one thread; "
                  "compile time is apart, in the `compile` table):", ""]
        lines += _iteration(iteration)
    if target:
        lines += ["", "**Solver seconds to exploitability 1e-3 and 1e-4** (each library's own "
                  "evaluator; its fastest algorithm and mode; \"x slower\" against coupsolve's "
                  "fastest; each run within a wall-clock budget, `--budget`, 60 s by default):", ""]
        lines += _target(target)
        lines += ["", "coupsolve's `cfr`/`cfr+` and OpenSpiel's average the strategy of every "
                  "iteration from the uniform first one; LiteEFG averages the strategies after "
                  "each update, which on Coup TL1 is an exact equilibrium at its first check (10 "
                  "iterations; its evaluator agrees with ours on its strategy, "
                  "`tests/test_benchmarks_liteefg.py`). \"projected\": iterations of "
                  "coupsolve's matching algorithm x that library's measured seconds per "
                  "iteration, where it was not run (OpenSpiel over the Python Coup game) or ran "
                  "out of budget."]
    if build or scaling:
        lines += ["", "**The Coup card-selection setup** (floor: the bytes a pass moves at the "
                  "measured read bandwidth, "
                  + ", ".join(f"{t} thread{'s' if t > 1 else ''} {v:.1f} GB/s"
                              for t, v in sorted(read.items())) + "):", ""]
        lines += _coup(build, scaling, profile)
    return "\n".join(lines)


def _public(rows):
    """Per turn limit, tree and threads; ratios only where the run has the history tree's row."""
    history = {(r["turn_limit"], r["threads"]) for r in rows if r["representation"] == "history"}
    out = []
    for r in rows:
        ref = (r["turn_limit"], r["threads"]) in history
        out.append([f"Coup TL{r['turn_limit']}", r["representation"], r["threads"],
                    fmt_seconds(_num(r, "build_s")), fmt_seconds(_num(r, "seconds_per_iteration")),
                    f"{_num(r, 'tree_mib') + _num(r, 'solve_mib'):,.1f} MiB",
                    f"{_num(r, 'bytes_per_infoset'):,.0f}", f"{_num(r, 'ns_per_history_pass'):.2f}",
                    fmt_ratio(_num(r, "time_ratio")) if ref else "-",
                    fmt_ratio(_num(r, "memory_ratio")) if ref else "-"])
    return _table(["game", "tree", "threads", "build", "s/iteration", "tree + solve",
                   "bytes/infoset", "ns/history/pass", "time vs history", "memory vs history"], out)


def _distributed(rows):
    """Per turn limit and variant, as ``benchmarks.distributed`` prints it."""
    out = []
    for r in rows:
        sent, part = _num(r, "bytes_per_iteration"), _num(r, "largest_part_mib")
        out.append([f"Coup TL{r['turn_limit']}", r["variant"], r["threads"],
                    fmt_seconds(_num(r, "seconds_per_iteration")), fmt_ratio(_num(r, "ratio")),
                    f"{sent / 2 ** 10:,.0f} KiB" if sent > 0 else "-",
                    f"{part:,.1f} MiB" if part > 0 else "-", r.get("depth") or "-"])
    return _table(["game", "run", "threads", "s/iteration", "vs one process", "sent/iteration",
                   "largest part", "cut level"], out)


def _public_header(runs, commands=PUBLIC_FILES):
    """The machine, versions and finishing date of each file's run; one line if they share both."""
    done = [(f"`{commands[name]}`", rows[0]["machine"], rows[0]["versions"],
             max(r["date"] for r in rows)) for name, rows in runs.items() if rows]
    if len({(machine, versions) for _, machine, versions, _ in done}) == 1:
        _, machine, versions, _ = done[0]
        return (f"Latest {' and '.join(f'{c} (finished {d})' for c, _, _, d in done)} on {machine}; "
                f"{versions}.")
    return " ".join(f"Latest {c} on {m} (finished {d}); {v}." for c, m, v, d in done)


def public_summary(results=RESULTS):
    """The public block (a string) from ``public.csv`` and ``distributed.csv`` in ``results``."""
    runs = {name: _read(name, results) for name in PUBLIC_FILES}
    if not any(runs.values()):
        return ("The public-tree benchmarks have not been run yet: `python -m benchmarks.public` "
                "and `python -m benchmarks.distributed` run them.")
    lines = [_public_header(runs) + " CFR+, alternating updates, warm, medians of the timed "
             "repeats; from `benchmarks/results/public.csv` and `distributed.csv`."]
    if runs["public"]:
        lines += ["", "**Public tree against history tree** (float64 unless run with `--precision "
                  "float32`; ns/history/pass: the iteration's time over the history tree's "
                  "histories, two passes an iteration; time and memory (tree + solve buffers) "
                  "against the history tree on the same threads in the same run, \"-\" where the "
                  "run has no history tree):", ""]
        lines += _public(runs["public"])
    if runs["distributed"]:
        lines += ["", "**The public tree on a local Ray cluster** (float64; against one process "
                  "on the same threads in the same run; sent: the parts' root reach and values, "
                  "both passes; the cut level splits the trunk from the parts):", ""]
        lines += _distributed(runs["distributed"])
    return "\n".join(lines)


def sampling_summary(results=RESULTS):
    """The sampling block (a string) from ``mccfr.csv`` in ``results``: external-sampling MCCFR's
    iterations per second against OpenSpiel's on the same game, and turn limit 2's exact
    exploitability after a fixed training time."""
    rows = _read("mccfr", results)
    if not rows:
        return "The MCCFR benchmark has not been run yet: `python -m benchmarks.mccfr` runs it."
    speed = [r for r in rows if r.get("players")]
    trained = [r for r in rows if r.get("sampling")]
    lines = [_public_header({"mccfr": rows}, SAMPLING_FILES) + " From "
             "`benchmarks/results/mccfr.csv`; OpenSpiel runs on one thread, coupsolve on one (the "
             "serial solver, OpenSpiel's algorithm) and on more (workers in deterministic batches, "
             "`threads=`)."]
    if speed:
        spans = sorted(x for x in (_num(r, "openspiel_seconds") / _num(r, "coupsolve_seconds")
                                   for r in speed) if math.isfinite(x))
        longer = spans[len(spans) // 2] if spans else 1.0  # the median (a run that fills its table
        # stops early)
        times = ("OpenSpiel for about {:.0f} times coupsolve's wall time, as its iterations vary "
                 "widely in length".format(longer) if longer >= 1.5 else "the same wall time each")
        lines += ["", "**External-sampling MCCFR against OpenSpiel's `ExternalSamplingSolver`** on "
                  f"the same `python_coup` game, {times}, warm (iterations per "
                  "second; an iteration walks once per player; coupsolve's table has room for 16 "
                  "million information sets, its pages touched before the clock starts):", ""]
        lines += _table(["players", "turn limit", "threads", "coupsolve it/s", "OpenSpiel it/s",
                         "x faster", "information sets"],
                        [[r["players"], r["turn_limit"], r.get("threads") or 1,
                          f"{_num(r, 'coupsolve_it_per_s'):,.0f}",
                          f"{_num(r, 'openspiel_it_per_s'):,.2f}", fmt_ratio(_num(r, "ratio")),
                          f"{int(_num(r, 'infosets')):,}"] for r in speed])
    if trained:
        lines += ["", "**Two players, turn limit 2: exact exploitability after a fixed training "
                  "time** (the history tree's best response to the average strategy):", ""]
        lines += _table(["sampling", "regret", "average", "threads", "iterations", "seconds",
                         "exploitability"],
                        [[r["sampling"], r["regret"], r["average"], r.get("threads") or 1,
                          f"{int(_num(r, 'iterations')):,}",
                          r["seconds"], f"{_num(r, 'exploitability'):.4f}"] for r in trained])
    return "\n".join(lines)


def _replace(content, text, start, end, readme):
    if start not in content or end not in content:
        raise ValueError(f"{readme} has no {start} ... {end} block")
    head, rest = content.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{text}\n{end}{tail}"


def update_readme(text, readme=None, start=START, end=END):
    """Replace the page's block between ``start`` and ``end`` (the bench markers) with ``text``."""
    readme = Path(readme or README)
    content = readme.read_text(encoding="utf-8")
    readme.write_text(_replace(content, text, start, end, readme), encoding="utf-8")


def write_readme(results=RESULTS, readme=None, command="make bench"):
    """Write each block whose CSV files (one at least) are in ``results`` into the README; leave a
    block none of whose files exist as it is. Returns the start markers of the blocks written."""
    readme = Path(readme or README)
    blocks = []
    if any(_read(name, results) for name in MAIN_FILES):
        blocks.append((summary(results, command), START, END))
    if any(_read(name, results) for name in PUBLIC_FILES):
        blocks.append((public_summary(results), PUBLIC_START, PUBLIC_END))
    if any(_read(name, results) for name in SAMPLING_FILES):
        blocks.append((sampling_summary(results), SAMPLING_START, SAMPLING_END))
    content = readme.read_text(encoding="utf-8")
    for text, start, end in blocks:
        content = _replace(content, text, start, end, readme)
    if blocks:
        readme.write_text(content, encoding="utf-8")
    return [start for _, start, _ in blocks]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.summary", description=__doc__)
    parser.add_argument("--results", default=str(RESULTS), help="folder of the CSV files")
    parser.add_argument("--docs", "--readme", dest="readme", action="store_true",
                        help="also write each block whose CSV files exist into docs/benchmarks.md between "
                             "its markers (a block without any is left as it is)")
    args = parser.parse_args(argv)
    print(summary(args.results))
    print()
    print(public_summary(args.results))
    print()
    print(sampling_summary(args.results))
    if args.readme:
        written = write_readme(args.results)
        print()
        print(f"docs/benchmarks.md: written {', '.join(written) or 'nothing (no CSV files)'}; "
              f"{', '.join(m for m in (START, PUBLIC_START, SAMPLING_START) if m not in written) or 'no block'} "
              "left as it is.")


if __name__ == "__main__":
    main()
