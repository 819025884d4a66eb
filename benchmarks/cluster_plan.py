"""A plan for solving a public tree on k machines, computed from measured per-part figures.

Inputs, both measured here:

- a **profile** of a tree built in pieces (:mod:`benchmarks.parts_profile`; turn limit 4): per part its
  entries, information sets, actions, bytes and seconds per pass on 1 and 2 threads;
- a **sample** of the parts of the deeper tree (:mod:`benchmarks.part_sample`; turn limit 5): per sampled
  part its entries, information sets and actions, and the cut level's entries.

From the profile, least squares fit each part's bytes and seconds per pass on 2 threads as linear in
its entries and actions (the fit's largest relative error on the profile's parts is printed). Each
sampled part of the deeper tree gets those figures from its own entries and actions. The deeper tree's
parts are then that many parts drawn from the sample (seeded bootstrap). They are dealt to k machines
as :class:`~solvers.pieces.ray.RayBackend` deals them: runs of consecutive parts, balanced by cost.
Consecutive parts in the tree's order are not the bootstrap's order, so the deal is repeated over
bootstrap draws, and the table gives the mean over the draws.

Per machine, the memory is its parts' arrays, their per-action state (three arrays in the solve's
precision) and one part's pass buffers, plus the interpreter and compiled code (measured: 0.8 GiB). The
time per iteration is two passes of its parts on its 2 cores. Per pass, the driver sends the cut's
reach down and gets its values back: 4 bytes each per entry at the cut (float32), and this is printed
as traffic. Network time is not measured here (one machine): it is given for a link speed you choose
(``--gbits``), which is an assumption about the cluster, not a measurement.

``python -m benchmarks.cluster_plan parts-tl4.json sample-tl5.json``
"""

from __future__ import annotations

import argparse
import json

import numpy as np

GIB = 2 ** 30
#: Resident after the count, before the build, in the turn-limit-4 run: the interpreter, numpy, numba
#: and the compiled kernels (0.79 GiB).
RUNTIME_BYTES = int(0.8 * GIB)


def fit(profile):
    """``(bytes coefficients, seconds coefficients, worst relative errors)``: least squares of each
    part's bytes and 2-thread seconds per pass on ``[entries, actions]``."""
    parts = profile["parts"]
    X = np.array([[p["entries"], p["actions"]] for p in parts], np.float64)
    out = []
    for name in ("bytes", "seconds_per_pass_2t"):
        y = np.array([p[name] for p in parts], np.float64)
        coef = np.linalg.lstsq(X, y, rcond=None)[0]
        big = y >= np.quantile(y, 0.5)  # the error that matters is on the parts that dominate
        out.append((coef, float(np.max(np.abs(X[big] @ coef - y[big]) / y[big]))))
    return out[0][0], out[1][0], (out[0][1], out[1][1])


def plan(profile, sample, machines=(4, 8, 16), draws=20, seed=0, real_bytes=4):
    """Rows of the plan (module docstring), one per machine count, as dicts."""
    from solvers.pieces.groups import deal

    bcoef, scoef, _ = fit(profile)
    S = sample["sample"]
    X = np.array([[p["entries"], p["actions"]] for p in S], np.float64)
    actions = X[:, 1]
    part_bytes = X @ bcoef + 3 * real_bytes * actions
    buffers = 2 * real_bytes * X[:, 0] + real_bytes * actions
    seconds = np.maximum(X @ scoef, 0.0)
    n = int(sample["number_of_parts"])
    trunk = profile["trunk_seconds_per_pass_2t"]
    rng = np.random.default_rng(seed)
    rows = []
    for k in machines:
        acc = []
        for _ in range(draws):
            pick = rng.integers(0, len(S), n)
            cuts = deal(seconds[pick], k)
            mem = [part_bytes[pick[a:b]].sum() + buffers[pick[a:b]].max() for a, b in
                   zip(cuts[:-1], cuts[1:])]
            tim = [seconds[pick[a:b]].sum() for a, b in zip(cuts[:-1], cuts[1:])]
            acc.append((max(mem), max(tim), seconds[pick].sum()))
        mem, slow, whole = (float(np.mean([a[i] for a in acc])) for i in range(3))
        rows.append(dict(machines=k, memory_per_machine=mem + RUNTIME_BYTES,
                         seconds_per_iteration=2 * (slow + trunk),
                         ideal_seconds=2 * (whole / k + trunk),
                         one_machine_seconds=2 * (whole + trunk)))
    return rows


def totals(sample, profile):
    """The deeper tree's entries, information sets, actions and solve memory (bytes) below the cut,
    from the sample (:func:`benchmarks.part_sample.estimate`), with their 95% half widths."""
    from .part_sample import estimate

    est = estimate(sample["sample"], sample["number_of_parts"])
    bcoef, _, _ = fit(profile)
    out = {k: est[k] for k in ("entries", "infosets", "actions")}
    e, a = est["entries"], est["actions"]
    out["bytes"] = (bcoef[0] * e[0] + (bcoef[1] + 12) * a[0],
                    abs(bcoef[0]) * e[1] + abs(bcoef[1] + 12) * a[1])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cluster_plan",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("profile", help="benchmarks.parts_profile's JSON")
    parser.add_argument("sample", help="benchmarks.part_sample's JSON")
    parser.add_argument("--machines", default="4,8,16")
    parser.add_argument("--gbits", type=float, default=10.0, help="assumed link speed (Gbit/s)")
    args = parser.parse_args(argv)
    with open(args.profile, encoding="utf-8") as f:
        profile = json.load(f)
    with open(args.sample, encoding="utf-8") as f:
        sample = json.load(f)
    _, _, err = fit(profile)
    print(f"fit on the profile's {len(profile['parts'])} parts (turn limit {profile['turn_limit']}): "
          f"bytes within {100 * err[0]:.1f}%, seconds within {100 * err[1]:.1f}% on the larger half")
    for name, (v, h) in totals(sample, profile).items():
        print(f"turn limit {sample['turn_limit']} below the cut: {name} {v:.4g} +- {h:.2g} (95%)")
    cut = sample.get("cut_entries")
    traffic = 2 * 2 * 4 * cut if cut else float("nan")  # two passes, down and up, float32
    print(f"cut at level {sample['depth']}: {cut:,} entries; {traffic / 2**20:.1f} MiB cross per "
          f"iteration, {traffic * 8 / (args.gbits * 1e9):.3f} s at {args.gbits:g} Gbit/s")
    print("machines | memory per machine | s/iteration | ideal (one machine / k) | ratio")
    for r in plan(profile, sample, [int(x) for x in args.machines.split(",")]):
        print(f"{r['machines']} | {r['memory_per_machine'] / GIB:.1f} GiB | "
              f"{r['seconds_per_iteration']:.1f} | {r['ideal_seconds']:.1f} | "
              f"{r['seconds_per_iteration'] / r['ideal_seconds']:.2f}x")
    one = plan(profile, sample, [1])[0]
    print(f"one machine: {one['memory_per_machine'] / GIB:.0f} GiB, "
          f"{one['seconds_per_iteration']:.0f} s an iteration on 2 cores")


if __name__ == "__main__":
    main()
