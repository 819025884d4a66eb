"""Where a compiled kernel's time goes: Linux ``perf`` sampling, with numba's functions named.

``perf stat``'s hardware counters are not available in this virtual machine, but ``perf record -e
cpu-clock`` (a timer) samples any process. Numba's compiled code carries no symbols perf can read, so
its samples show as bare addresses; :func:`write_map` writes perf's map of JIT code
(``/tmp/perf-<pid>.map``: address, size, name per line) for every function numba compiled in this
process, and ``perf report`` then names them. Only functions compiled here have a module to list (one
loaded from numba's cache keeps only its machine code), so run with an empty cache directory:

    NUMBA_CACHE_DIR=$(mktemp -d) python -m benchmarks.perfmap mccfr --players 2 --turn-limit 2

(compiling first takes a minute or two). It warms the kernels up, writes the map, samples the
workload for ``--seconds`` with ``perf record -p`` and prints the share of samples per function.
Non-inlined engine functions show apart, inlined ones inside their caller; the map's names are
numba's mangled ones. For instruction-level detail, ``perf annotate`` cannot read JIT code, but
``perf script -F ip`` gives the sampled addresses, and the map's address of a function the offsets.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

#: The packages whose numba functions are mapped.
PACKAGES = ("coupsolve", "solvers")


def compiled_functions(packages=PACKAGES):
    """``(address, size, name)`` of every function in the code numba compiled in this process for the
    dispatchers of ``packages`` (a function's size: up to the next function's address)."""
    from numba.core.dispatcher import Dispatcher

    found = {}
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in packages:
            continue
        for obj in list(vars(module).values()):
            if not isinstance(obj, Dispatcher):
                continue
            for cres in obj.overloads.values():
                library = cres.library
                try:  # None or absent for code loaded from the cache
                    functions = [f.name for f in library._final_module.functions
                                 if not f.is_declaration]
                except (AttributeError, RuntimeError):
                    continue
                for fn in functions:
                    address = library.get_pointer_to_function(fn)
                    if address:
                        found[address] = fn
    rows = sorted(found.items())
    return [(a, (rows[i + 1][0] - a) if i + 1 < len(rows) else 4096, n)
            for i, (a, n) in enumerate(rows)]


def write_map(path=None, packages=PACKAGES):
    """Write perf's map of this process's compiled functions (default ``/tmp/perf-<pid>.map``);
    returns the number of functions."""
    rows = compiled_functions(packages)
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w", encoding="ascii") as f:
        for address, size, name in rows:
            f.write(f"{address:x} {size:x} {name}\n")
    return len(rows)


def _mccfr(args):
    import coupsolve
    from coupsolve.sampling.game import sampling_game
    from solvers.mccfr.solver import MCCFRSolver

    solver = MCCFRSolver(sampling_game(coupsolve.Rules(players=args.players,
                                                       turn_limit=args.turn_limit)),
                         max_infosets=args.max_infosets, seed=0, threads=args.threads)
    chunk = 4096 if args.turn_limit <= 2 else 256
    solver.step(chunk)
    return lambda: solver.step(chunk)


def _public(args):
    import coupsolve
    import solvers
    from coupsolve.trees.classwalk.build import build_class_tree

    tree = build_class_tree(coupsolve.Rules.two_player_selection(turn_limit=args.turn_limit)).tree
    solver = solvers.Solver(tree, "cfr+", threads=args.threads)
    solver.step(2)
    return lambda: solver.step(1)


def profile(work, seconds, report_lines=25):
    """Sample ``work()`` (called over and over) for ``seconds`` under ``perf record``; print the
    samples per function."""
    if shutil.which("perf") is None:
        raise SystemExit("perf is not installed (Debian: linux-perf)")
    mapped = write_map()
    if not mapped:
        raise SystemExit("no compiled function to map: numba loaded every kernel from its cache; run "
                         "with NUMBA_CACHE_DIR set to an empty directory")
    fd, data = tempfile.mkstemp(suffix=".perf.data")
    os.close(fd)
    perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-o", data, "-p",
                             str(os.getpid()), "--", "sleep", str(seconds)],
                            stderr=subprocess.DEVNULL)
    began = time.perf_counter()
    while perf.poll() is None and time.perf_counter() - began < seconds + 5:
        work()
    perf.wait()
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", "symbol"],
                         capture_output=True, text=True).stdout
    os.remove(data)
    lines = [line for line in out.splitlines() if line.strip() and not line.startswith("#")]
    print(f"{mapped} compiled functions mapped; samples per function:")
    print("\n".join(line[:140] for line in lines[:report_lines]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=("mccfr", "public"))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--turn-limit", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-infosets", type=int, default=4_000_000)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args(argv)
    profile((_mccfr if args.workload == "mccfr" else _public)(args), args.seconds)


if __name__ == "__main__":
    main()
