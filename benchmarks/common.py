"""Shared helpers: machine description, load, repeat statistics, tables and CSV files."""

from __future__ import annotations

import csv
import importlib.metadata
import os
import platform
import statistics
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"

_PACKAGES = ("coupsolve", "numpy", "numba", "llvmlite", "open_spiel", "LiteEFG")


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib():
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 2 ** 20
    except (OSError, ValueError):
        pass
    return float("nan")


def version(package):
    """Installed version of ``package``, or ``"not installed"``."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_info():
    """CPU model, core count, memory, OS, Python and library versions."""
    import numba

    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "memory_gib": round(_memory_gib(), 1),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        **{name: version(name) for name in _PACKAGES},
    }


def machine_line(info):
    """One-line summary of :func:`machine_info` for the CSV files."""
    return f"{info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB, {info['os']}"


def versions_line(info):
    """``python 3.11.x, coupsolve 0.1.0, ...`` for the CSV files."""
    return ", ".join([f"python {info['python']}"] + [f"{p} {info[p]}" for p in _PACKAGES])


def load_average():
    """The 1-minute load average (NaN where unknown)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def available_gib():
    """Memory available to new allocations, in GiB (NaN where unknown)."""
    from solvers.memory import available_bytes

    available = available_bytes()
    return float("nan") if available is None else available / 2 ** 30


class Stats:
    """Median, min and max of repeated measurements."""

    def __init__(self, values):
        self.values = [float(v) for v in values]

    @property
    def n(self):
        return len(self.values)

    @property
    def median(self):
        return statistics.median(self.values) if self.values else float("nan")

    @property
    def min(self):
        return min(self.values) if self.values else float("nan")

    @property
    def max(self):
        return max(self.values) if self.values else float("nan")


def fmt_seconds(seconds):
    """Seconds with a unit that keeps three significant digits (``"76.2 us"``)."""
    if seconds != seconds:  # NaN
        return "-"
    if seconds >= 100:
        return f"{seconds:.0f} s"
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.3g} us"
    return f"{seconds * 1e9:.3g} ns"


def fmt_ratio(ratio):
    if ratio != ratio:
        return "-"
    return f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:.2g}x"


def print_table(title, columns, rows, note=None):
    """Print ``rows`` (lists of strings) under ``columns`` as a Markdown table."""
    print()
    print(f"### {title}")
    if note:
        print()
        print(note)
    print()
    widths = [max(len(str(c)), *(len(str(r[i])) for r in rows)) if rows else len(str(c))
              for i, c in enumerate(columns)]
    print("| " + " | ".join(str(c).ljust(w) for c, w in zip(columns, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(str(x).ljust(w) for x, w in zip(row, widths)) + " |")
    print(flush=True)


def write_csv(name, rows, info):
    """Write ``rows`` (dicts) to ``benchmarks/results/<name>.csv`` with machine columns.

    Returns the path relative to the repository root.
    """
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.csv"
    extra = {"machine": machine_line(info), "versions": versions_line(info),
             "date": time.strftime("%Y-%m-%d %H:%M:%S")}
    columns = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    columns += list(extra)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, **extra})
    return f"benchmarks/results/{name}.csv"


class Deadline:
    """Wall-clock budget: ``Deadline(60).expired``."""

    def __init__(self, seconds):
        self.end = time.perf_counter() + seconds

    @property
    def expired(self):
        return time.perf_counter() >= self.end

    @property
    def left(self):
        return self.end - time.perf_counter()


def timed_main(parser, argv, run):
    """A benchmark's ``main``: parse ``argv`` (``parser`` has ``--quick``), set the timing blocks
    (``--quick``: 3 of 0.5 s, else 5 of 2 s), then print the load and the file ``run(args, info)``
    wrote."""
    args = parser.parse_args(argv)
    args.repeats, args.block = (3, 0.5) if args.quick else (5, 2.0)
    info = machine_info()
    print(f"load average at start {load_average():.2f}")
    print(f"written: {run(args, info)}")


def bench_parser(module, doc, quick_help):
    """The parser of ``python -m benchmarks.<module>`` with its ``--quick`` flag."""
    import argparse

    parser = argparse.ArgumentParser(prog=f"python -m benchmarks.{module}",
                                     description=doc.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick_help)
    return parser
