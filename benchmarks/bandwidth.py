"""This machine's memory bandwidth: the physical floor of a pass over a tree larger than the caches.

Streaming kernels over arrays far larger than the last-level cache (512 MiB
of float64), compiled with numba, one thread and all threads: ``read`` sums
an array (reordering allowed, so the sum is not latency bound), ``copy``
reads one array and writes another (both counted), ``write`` fills one.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import prange

from .common import Stats, load_average, print_table, write_csv

SIZE_BYTES = 512 * 2 ** 20


@numba.njit(fastmath=True, cache=True)
def _read(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@numba.njit(fastmath=True, cache=True, parallel=True)
def _read_parallel(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@numba.njit(cache=True)
def _copy(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


@numba.njit(cache=True, parallel=True)
def _copy_parallel(a, b):
    for i in prange(a.shape[0]):
        b[i] = a[i]


@numba.njit(cache=True)
def _write(b, x):
    for i in range(b.shape[0]):
        b[i] = x


@numba.njit(cache=True, parallel=True)
def _write_parallel(b, x):
    for i in prange(b.shape[0]):
        b[i] = x


def measure(repeats=5, threads=None):
    """``{(kernel, threads): Stats of GB/s}`` (1e9 bytes per second)."""
    threads = threads or numba.config.NUMBA_NUM_THREADS
    a = np.ones(SIZE_BYTES // 8)
    b = np.empty_like(a)
    kernels = {
        "read": (lambda: _read(a), lambda: _read_parallel(a), a.nbytes),
        "copy": (lambda: _copy(a, b), lambda: _copy_parallel(a, b), 2 * a.nbytes),
        "write": (lambda: _write(b, 1.0), lambda: _write_parallel(b, 1.0), b.nbytes),
    }
    out = {}
    for name, (serial, parallel, nbytes) in kernels.items():
        for count, fn in ((1, serial), (threads, parallel)):
            numba.set_num_threads(count)
            fn()
            rates = []
            for _ in range(repeats):
                began = time.perf_counter()
                fn()
                rates.append(nbytes / (time.perf_counter() - began) / 1e9)
            out[(name, count)] = Stats(rates)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return out


def run(options, info):
    """Measure, print the table, write ``bandwidth.csv``; returns the measurements."""
    before = load_average()
    result = measure(options.repeats, options.threads)
    after = load_average()
    rows, csv_rows = [], []
    for (name, count), stats in result.items():
        rows.append([name, str(count), f"{stats.median:.1f}", f"{stats.min:.1f}",
                     f"{stats.max:.1f}"])
        csv_rows.append(dict(kernel=name, threads=count, gb_per_s_median=stats.median,
                             gb_per_s_min=stats.min, gb_per_s_max=stats.max,
                             repeats=stats.n, load_before=before, load_after=after))
    print_table("Memory bandwidth (GB/s, 512 MiB float64 arrays)",
                ["kernel", "threads", "median", "min", "max"], rows,
                note=f"Load average {before:.2f} before, {after:.2f} after (other processes "
                     f"share the memory bus).")
    return write_csv("bandwidth", csv_rows, info), result
