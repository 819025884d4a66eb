"""Tree build, peak memory, scaling with tree size and the bandwidth floor; compile time.

Each game is measured in a fresh process (:mod:`benchmarks.probe`) so that
peak resident memory means that game alone:

* ``build``: Coup's compiled builder at turn limits 1-3 (seconds, bytes per
  history of the tree, peak memory of the build);
* ``memory``: peak resident memory of a solve (setup, iterations and one
  exploitability evaluation) per coupsolve mode, beside the tree and the
  solver's own estimate (:func:`solvers.estimate_solve_bytes`);
* ``scaling``: seconds per CFR+ iteration from Kuhn to Coup turn limit 3 in
  each mode, nanoseconds per history per pass (an alternating iteration is
  two passes, one per player; a simultaneous iteration is one), the bytes a
  pass streams (model: the layout's index arrays, the reach and value
  buffers, the per-action arrays of the infoset step) and the time those
  bytes take at this machine's measured read bandwidth: the physical floor;
* ``profile``: where the time of a pass goes on the Coup trees larger than
  the caches: each phase of a pass (forward, backward, information-set
  step) timed alone, its bytes (the same model) and the bandwidth it
  reaches, beside a plain sequential read;
* ``compile``: numba's compile time on a fresh machine (empty cache) and
  the time to load the cached code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import Stats, fmt_seconds, load_average, print_table, write_csv

ROOT = Path(__file__).resolve().parent.parent
GiB = 2 ** 30

SCALING_MODES = ("float64/alternating/1", "float64/alternating/2", "float32/alternating/1",
                 "float32/alternating/2", "float64/simultaneous/1", "float32/simultaneous/1")


def probe(*args, env=None, timeout=3600):
    """Run ``python -m benchmarks.probe args``; the JSON it prints (or ``{"error": ...}``)."""
    full_env = dict(os.environ)
    # A fixed mmap threshold: glibc otherwise raises it after the first large
    # free, so a later mode's buffers come from memory the process already
    # holds and its peak looks like no increase at all.
    full_env.setdefault("MALLOC_MMAP_THRESHOLD_", "131072")
    full_env.update(env or {})
    try:
        done = subprocess.run([sys.executable, "-m", "benchmarks.probe", *map(str, args)],
                              cwd=ROOT, env=full_env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"error": f"exit {done.returncode}: {tail[0][:200]}"}
    return json.loads(lines[-1])


def _gib(num_bytes):
    if num_bytes is None or num_bytes < 0:
        return "-"
    if num_bytes < GiB:
        return f"{num_bytes / 2 ** 20:.1f} MiB"
    return f"{num_bytes / GiB:.2f} GiB"


def run_build(games, options, info):
    """Coup build time and bytes per history (turn limits 1-3)."""
    rows, csv_rows = [], []
    for game in games:
        if not game.is_coup:
            continue
        repeats = options.repeats if game.turn_limit < 3 else options.repeats_large
        result = probe("build", "--game", game.key, "--repeats", repeats)
        if "error" in result:
            rows.append([game.key, "-", "-", "-", "-", "-", "-", "-", result["error"]])
            csv_rows.append(dict(game=game.key, error=result["error"]))
            continue
        stats = Stats(result["seconds"])
        rows.append([game.key, f"{result['histories']:,}", f"{result['infosets']:,}",
                     fmt_seconds(stats.median), fmt_seconds(stats.min), fmt_seconds(stats.max),
                     f"{result['bytes_per_history']:.1f}", _gib(result["peak_rss"]),
                     f"{stats.n} builds"])
        csv_rows.append(dict(game=game.key, histories=result["histories"],
                             infosets=result["infosets"], actions=result["actions"],
                             seconds_median=stats.median, seconds_min=stats.min,
                             seconds_max=stats.max, repeats=stats.n,
                             tree_bytes=result["tree_bytes"],
                             bytes_per_history=result["bytes_per_history"],
                             build_peak_rss=result["peak_rss"], load=load_average()))
    print_table("Coup tree build (compiled builder)",
                ["game", "histories", "infosets", "median", "min", "max", "bytes/history",
                 "peak memory", "repeats"], rows,
                note="Peak memory: resident high-water mark of a fresh process building the "
                     "tree once (interpreter and libraries included).")
    return write_csv("build", csv_rows, info)


def _mode_rows(game, result, mode, read_bw, single):
    """The table row, memory row (None after an error) and CSV row of one mode of a probe's result.

    ``single`` maps (precision, updates) to the one-thread median, for the speed-up column; a
    one-thread mode adds itself.
    """
    n = result["histories"]
    label = (f"{'f64' if mode['precision'] == 'float64' else 'f32'} "
             f"{mode['updates'][:3]} {mode['threads']}T")
    if "error" in mode:
        return ([game.key, f"{n:,}", label] + ["-"] * 8 + [mode["error"]], None,
                dict(game=game.key, histories=n, mode=label, error=mode["error"]))
    stats = Stats(mode["seconds"])
    passes = 1 if mode["updates"] == "simultaneous" else 2
    ns = stats.median / (n * passes) * 1e9
    bytes_per_history = mode["bytes_per_pass"] / n
    bw = read_bw.get(mode["threads"], read_bw[1])
    floor = bytes_per_history / bw  # ns (GB/s = bytes per ns)
    key = (mode["precision"], mode["updates"])
    speedup = ""
    if mode["threads"] == 1:
        single[key] = stats.median
    elif key in single:
        speedup = f"{single[key] / stats.median:.2f}x"
    row = [game.key, f"{n:,}", label, fmt_seconds(stats.median), fmt_seconds(stats.min),
           fmt_seconds(stats.max), f"{ns:.2f}", f"{mode['live_fraction']:.2f}",
           f"{bytes_per_history:.1f}", f"{floor:.2f}", f"{ns / floor:.1f}x", speedup]
    mem_row = [game.key, f"{n:,}", label, _gib(result["tree_bytes"]), _gib(result["layout_bytes"]),
               _gib(mode["estimate_bytes"]), _gib(mode["peak_rss"]),
               _gib(mode["peak_rss"] - mode["rss_before"])]
    csv_row = dict(
        game=game.key, histories=n, infosets=result["infosets"],
        actions=result["actions"], mode=label, precision=mode["precision"],
        updates=mode["updates"], threads=mode["threads"],
        seconds_median=stats.median, seconds_min=stats.min, seconds_max=stats.max,
        repeats=stats.n, iterations_per_block=mode["iterations_per_block"],
        ns_per_history_pass=ns, live_fraction=mode["live_fraction"],
        bytes_per_history_pass=bytes_per_history,
        read_gb_per_s=bw, floor_ns_per_history_pass=floor,
        first_iteration_seconds=mode["first_iteration_seconds"],
        exploitability_seconds=mode["exploitability_seconds"],
        tree_bytes=result["tree_bytes"], layout_bytes=result["layout_bytes"],
        layout_seconds=result["layout_seconds"], estimate_bytes=mode["estimate_bytes"],
        peak_rss=mode["peak_rss"], rss_before=mode["rss_before"],
        load=load_average())
    return row, mem_row, csv_row


def run_scaling(games, options, info, bandwidth):
    """Per-iteration time against tree size, the bandwidth floor, peak memory per mode."""
    read_bw = {1: bandwidth[("read", 1)].median}
    parallel = [key for key in bandwidth if key[0] == "read" and key[1] > 1]
    for key in parallel:
        read_bw[key[1]] = bandwidth[key].median
    rows, mem_rows, csv_rows = [], [], []
    for game in games:
        large = game.is_coup and game.turn_limit >= 3
        # Threads only pay on large trees; on small ones each parallel region
        # costs more than the work (and the scheduler's wait on a busy core).
        parallel_ok = game.is_coup and game.turn_limit >= 2
        modes = ",".join(m for m in SCALING_MODES
                         if int(m.rsplit("/", 1)[1]) <= (options.threads if parallel_ok else 1))
        result = probe("solve", "--game", game.key, "--modes", modes,
                       "--repeats", options.repeats_large if large else options.repeats,
                       "--block", options.block)
        if "error" in result:
            rows.append([game.key] + ["-"] * 10 + [result["error"]])
            csv_rows.append(dict(game=game.key, error=result["error"]))
            continue
        n = result["histories"]
        single = {}
        for mode in result["modes"]:
            row, mem_row, csv_row = _mode_rows(game, result, mode, read_bw, single)
            rows.append(row)
            if mem_row is not None:
                mem_rows.append(mem_row)
            csv_rows.append(csv_row)
        if large:
            rows.append([game.key, f"{n:,}", "(build)", fmt_seconds(result["build_seconds"]),
                         "-", "-", "-", "-", "-", "-", "-", "layout "
                         + fmt_seconds(result["layout_seconds"])])
    print_table(
        "Scaling: CFR+ seconds per iteration against tree size, and the bandwidth floor",
        ["game", "histories", "mode", "median", "min", "max", "ns/history/pass", "reached",
         "bytes/history/pass", "floor ns", "x floor", "2T speed-up"], rows,
        note="A pass is one player's forward and backward sweep (alternating: 2 per "
             "iteration; simultaneous: 1). reached: fraction of non-terminal histories with "
             "nonzero counterfactual reach at the end of the timing (only those are visited by "
             "the backward sweep). bytes/history/pass: what a pass moves (model in "
             "benchmarks/probe.py: layout indices, reach and value buffers, strategy and "
             "regret rows, the infoset step); floor = those bytes at the measured read "
             "bandwidth for that thread count "
             f"({', '.join(f'{t}T {v:.1f} GB/s' for t, v in sorted(read_bw.items()))}).")
    print_table(
        "Peak memory of a solve (fresh process per game)",
        ["game", "histories", "mode", "tree", "layout", "solver estimate", "peak RSS",
         "peak - before"], mem_rows,
        note="peak RSS: resident high-water mark while the solver is set up, iterates and "
             "evaluates its exploitability once (tree, layout, interpreter included); "
             "peak - before: the solve's own increase.")
    return write_csv("scaling", csv_rows, info)


#: Phases of a pass, in the order the kernel runs them, and the reference read.
PHASES = ("forward", "backward", "infosets", "stream")


def run_profile(games, options, info, bandwidth):
    """Each phase of a CFR+ pass timed alone (:func:`benchmarks.probe.task_phases`)."""
    read_bw = bandwidth[("read", 1)].median
    warm = 10 if options.quick else 20
    rows, csv_rows = [], []
    for game in games:
        if not (game.is_coup and game.turn_limit >= 2):
            continue  # smaller trees fit in the caches: no bandwidth floor to compare with
        large = game.turn_limit >= 3
        result = probe("phases", "--game", game.key,
                       "--repeats", options.repeats_large if large else options.repeats,
                       "--warm", warm)
        if "error" in result:
            rows.append([game.key] + ["-"] * 9 + [result["error"]])
            csv_rows.append(dict(game=game.key, error=result["error"]))
            continue
        n = result["histories"]
        total = sum(Stats(result["seconds"][name]).median for name in PHASES[:3])
        for name in PHASES:
            stats = Stats(result["seconds"][name])
            moved = result["bytes"][name]
            gbps = moved / stats.median / 1e9
            share = f"{stats.median / total:.0%}" if name != "stream" else "(reference)"
            rows.append([game.key, f"{n:,}", name, fmt_seconds(stats.median),
                         fmt_seconds(stats.min), fmt_seconds(stats.max), share,
                         f"{stats.median / n * 1e9:.2f}", f"{moved / n:.1f}", f"{gbps:.1f}",
                         f"{gbps / read_bw:.0%}"])
            csv_rows.append(dict(
                game=game.key, histories=n, nonterminals=result["nonterminals"], phase=name,
                seconds_median=stats.median, seconds_min=stats.min, seconds_max=stats.max,
                repeats=stats.n, share_of_pass=stats.median / total if name != "stream" else "",
                ns_per_history=stats.median / n * 1e9, bytes_per_history=moved / n,
                gb_per_s=gbps, read_gb_per_s=read_bw,
                live_fraction=result["live_fraction"],
                warm_iterations=result["warm_iterations"],
                iteration_seconds=result["iteration_seconds"], load=load_average()))
        rows.append([game.key, f"{n:,}", "sum of the 3 phases x 2 players", fmt_seconds(2 * total),
                     "-", "-", "-", "-", "-", "-",
                     f"iteration {fmt_seconds(result['iteration_seconds'])}; reached "
                     f"{result['live_fraction']:.2f}"])
    print_table(
        "Profile: where a pass's time goes (float64, alternating, 1 thread)",
        ["game", "histories", "phase", "median", "min", "max", "share of pass", "ns/history",
         "bytes/history", "GB/s", "of read bandwidth"], rows,
        note="Each phase of one player's pass called alone on a warm solver's buffers, "
             f"after {warm} CFR+ iterations (benchmarks/probe.py, `phases`): forward = reach of "
             "every non-terminal and the list of reached ones; backward = values and regret "
             "terms of the reached ones; infosets = average weights, regret update and regret "
             "matching. stream = a sequential read and write of the forward pass's bytes with "
             "no indirection, for reference. GB/s: the phase's bytes (model in "
             f"benchmarks/probe.py) over its time, against the measured read bandwidth "
             f"({read_bw:.1f} GB/s, 1 thread).")
    return write_csv("profile", csv_rows, info)


def run_compile(options, info):
    """Numba compile time (empty cache) and cached load time, in fresh processes."""
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        cold = probe("compile", env={"NUMBA_CACHE_DIR": cache})
        warm = probe("compile", env={"NUMBA_CACHE_DIR": cache})
    rows, csv_rows = [], []
    for key in cold:
        if key == "error" or key not in warm:
            continue
        c, w = cold[key], warm[key]
        if isinstance(c, list):
            rows.append([key, fmt_seconds(c[0]), fmt_seconds(w[0]), fmt_seconds(c[1])])
            csv_rows.append(dict(step=key, fresh_seconds=c[0], cached_seconds=w[0],
                                 warm_call_seconds=c[1]))
        else:
            rows.append([key, fmt_seconds(c), fmt_seconds(w), "-"])
            csv_rows.append(dict(step=key, fresh_seconds=c, cached_seconds=w))
    if "error" in cold:
        rows.append(["error", cold["error"], "", ""])
    print_table("Numba compile time: first calls on a fresh machine and with the cache",
                ["step (Kuhn poker unless named)", "fresh machine (empty cache)", "cached",
                 "warm call"], rows,
                note="Each column is a fresh process with NUMBA_CACHE_DIR set to the same new "
                     "directory: the first compiles every kernel, the second loads them. The "
                     "CFR kernel is compiled once per precision; algorithm, updates and "
                     "threads are runtime arguments.")
    return write_csv("compile", csv_rows, info)
