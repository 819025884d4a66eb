"""Sizes of a public tree too large to count whole, estimated from a seeded sample of its parts.

Turn limit 5 of the card-selection setup is about 24 times turn limit 4: its count by parts would take
about 15 hours here. :func:`coupsolve.trees.classwalk.count.count_some_parts` walks the levels above the cut and
then only a seeded random sample of the parts (each as the count by parts walks it), and this script
writes their figures (:class:`coupsolve.trees.classwalk.count.PartSize`: nodes, entries, information sets, actions,
matrix cells, the walk's bytes and seconds) to a JSON file part by part, so a run stopped early keeps
what it finished. The whole tree's figures are the sample's means times the number of parts, with a
95% interval from the sample's spread (:func:`estimate`); :mod:`benchmarks.cluster_plan` reads the file.

``python -m benchmarks.part_sample --turn-limit 5 --parts 4000 --sample 48 --out sample-tl5.json``
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from .common import machine_info

FIELDS = ("nodes", "entries", "infosets", "actions", "cells", "pair_cells", "work_bytes", "seconds")


def estimate(sample, number_of_parts):
    """``{field: (total, half width of its 95% interval)}`` from the sampled parts' figures (a list
    of dicts): the mean times the number of parts, the interval from the standard error of the mean
    with the finite-population correction."""
    n, big = len(sample), int(number_of_parts)
    out = {}
    for name in (f for f in FIELDS if sample and f in sample[0]):
        a = np.array([p[name] for p in sample], np.float64)
        sd = a.std(ddof=1) if n > 1 else float("inf")
        fpc = np.sqrt(max(0.0, (big - n) / (big - 1))) if big > 1 else 0.0
        out[name] = (a.mean() * big, 1.96 * big * sd / np.sqrt(n) * fpc)
    return out


def main(argv=None):
    from coupsolve import Rules
    from coupsolve.trees.classwalk.count import count_some_parts
    from coupsolve.plan import progress_lines

    parser = argparse.ArgumentParser(prog="python -m benchmarks.part_sample",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--turn-limit", type=int, default=5)
    parser.add_argument("--payoff", default="influence", choices=("draw", "influence"))
    parser.add_argument("--depth", type=int, default=12, help="the cut level (default 12)")
    parser.add_argument("--parts", type=int, default=4000)
    parser.add_argument("--sample", type=int, default=48, help="parts counted")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    rules = Rules.two_player_selection(turn_limit=args.turn_limit, limit_payoff=args.payoff)
    record = dict(turn_limit=args.turn_limit, payoff=args.payoff, depth=args.depth,
                  seed=args.seed, machine=machine_info(), sample=[])
    began = time.perf_counter()

    def which(number):
        record["number_of_parts"] = int(number)
        record["trunk_seconds"] = time.perf_counter() - began
        rng = np.random.default_rng(args.seed)
        return rng.choice(number, size=min(args.sample, number), replace=False)

    def write():
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)

    def keep(size):
        record["sample"].append({k: int(v) if k != "seconds" else float(v)
                                 for k, v in size._asdict().items()})
        write()

    bounds, cut_entries, _ = count_some_parts(rules, args.depth, args.parts, which, args.workers,
                                              progress_lines(print), keep)
    record.update(cut_nodes=int(bounds[-1]), cut_entries=cut_entries,
                  seconds=time.perf_counter() - began)
    write()
    got = record["sample"]
    for name, (total, half) in estimate(got, record["number_of_parts"]).items():
        print(f"{name}: {total:.4g} +- {half:.2g} (95%) below the cut, from {len(got)} of "
              f"{record['number_of_parts']} parts")


if __name__ == "__main__":
    main()
