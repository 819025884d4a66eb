"""The tables of :mod:`benchmarks.threads`: the profile level by level, the passes' balance and
bandwidth, the fixed costs, and the model's times beside what was measured (here, and the issue's
16-core figures at turn limit 2).
"""

from __future__ import annotations

import numpy as np

from ..common import fmt_seconds, print_table
from .model import makespans, model_time

__all__ = ["THREADS", "XEON_TL2", "level_table", "pass_table", "model_rows", "parallel_mask"]

#: Thread counts the model is evaluated at.
THREADS = (1, 2, 4, 8, 16)
#: CFR+ seconds per iteration of Coup's public tree at turn limit 2 on a 16-core Xeon (issue 49's
#: figures, one run each, before the passes' threads slept while waiting).
XEON_TL2 = {1: 5.44e-3, 2: 3.71e-3, 4: 3.19e-3, 8: 2.60e-3, 16: 1.97e-3}


def parallel_mask(passes, es, level_start, min_entries):
    """Per pass, which levels run as a parallel region when a level whose work is under
    ``min_entries`` entries runs on the calling thread (0: every level a region). A forward pass's
    work at a level is its children's entries (the next level's), a backward or values pass's the
    level's own."""
    per_level = np.diff(es[level_start])
    out = {}
    for p in passes:
        work = np.append(per_level[1:], 0) if p.name.startswith("forward") else per_level
        mask = work >= min_entries
        if p.name.startswith("forward"):
            mask[-1] = False  # the forward pass does not pass the last level
        out[p.name] = mask
    return out


def level_table(game, T, passes, nodes):
    """Rows per level: nodes, entries, single-thread time of the forward and backward passes (both
    players) and of the values pass, and the share of the largest share on 16 threads (1 = even)."""
    ls, es = T.level_start, T.entry_start
    by = {p.name: p for p in passes}
    fwd = by["forward 0"].level_cost + by["forward 1"].level_cost
    bwd = by["backward 0"].level_cost + by["backward 1"].level_cost
    vals = by["values 0"].level_cost
    mk = {name: makespans(by[name].cost, es, ls, 16, by[name].runs) for name in by}
    rows, csv = [], []
    for d in range(len(ls) - 1):
        f16 = mk["forward 0"][d] + mk["forward 1"][d]
        b16 = mk["backward 0"][d] + mk["backward 1"][d]
        entries = int(es[ls[d + 1]] - es[ls[d]])
        rows.append([game, d, f"{int(ls[d + 1] - ls[d]):,}", f"{entries:,}", fmt_seconds(fwd[d]),
                     fmt_seconds(bwd[d]), fmt_seconds(vals[d]),
                     f"{16 * f16 / fwd[d]:.2f}" if fwd[d] > 0 else "-",
                     f"{16 * b16 / bwd[d]:.2f}" if bwd[d] > 0 else "-",
                     f"{nodes[d]:.0f}"])
        csv.append(dict(game=game, level=d, nodes=int(ls[d + 1] - ls[d]), entries=entries,
                        forward_seconds=fwd[d], backward_seconds=bwd[d], values_seconds=vals[d],
                        forward_makespan16=f16, backward_makespan16=b16,
                        largest_node_us=nodes[d]))
    print_table(f"{game}: the passes level by level, one thread (CFR+, float64)",
                ["game", "level", "nodes", "entries", "forward (2 passes)", "backward (2 passes)",
                 "values (1)", "fwd 16T imbalance", "bwd 16T imbalance", "largest node us"], rows,
                note="Times: medians per node over the repetitions, summed over the level. "
                     "Imbalance: 16 x the largest of 16 shares (the drivers' split by entries) "
                     "over the level's time; 1.00 is an even split, 16 means one share has all.")
    return csv


def pass_table(game, T, passes, bandwidth):
    """Rows per pass: single-thread time, the sum over levels of the makespan on P threads by the
    drivers' split and by the best split of the measured cost, and the bandwidth floor."""
    ls, es = T.level_start, T.entry_start
    rows, csv = [], []
    for p in passes:
        total = p.level_cost.sum()
        cells = [p.name, fmt_seconds(total), f"{p.level_bytes.sum() / 1e6:,.0f} MB"]
        row = dict(game=game, pass_name=p.name, seconds=total, bytes=p.level_bytes.sum())
        for P in THREADS[1:]:
            mk = makespans(p.cost, es, ls, P, p.runs).sum()
            best = makespans(p.cost, es, ls, P, p.runs, rule="cost").sum()
            floor = p.level_bytes.sum() / bandwidth(P)
            cells.append(f"{total / mk:.1f}x / {total / best:.1f}x / {fmt_seconds(floor)}")
            row.update({f"makespan{P}": mk, f"best{P}": best, f"floor{P}": floor})
        rows.append(cells)
        csv.append(row)
    print_table(f"{game}: each pass's split on P threads",
                ["game pass", "1 thread", "bytes (bound)"] +
                [f"{P}T: speed-up by entries / best split / bandwidth floor" for P in THREADS[1:]],
                [[game + " " + r[0]] + r[1:] for r in rows],
                note="Speed-up of the compute alone (the sum of the levels' makespans, no region "
                     "cost, no bandwidth limit); 'best split': shares of equal measured cost (what "
                     "a split by a perfect static weight would give); floor: the pass's bytes "
                     "(an upper bound) at the bandwidth of P threads (assumed, see the model).")
    return csv


def model_rows(game, T, passes, threads, region, bandwidth, speed, specs):
    """``{label: (seconds, work, floor, regions)}`` of the model on ``threads`` threads for each
    ``(mask, rule)`` of ``specs`` (label -> a mask of :func:`parallel_mask` or None, and a rule of
    :func:`~.model.makespans`)."""
    out = {}
    for label, (mask, rule) in specs.items():
        out[label] = model_time(passes, T.entry_start, T.level_start, threads, region(threads),
                                (bandwidth(1), bandwidth(threads)), speed, mask, rule)
    return out


#: Turn limit 4 as ``coupsolve solve`` runs it (docs/research/public-speed.md, seventh session):
#: seconds per CFR+ iteration on one thread here (float32, in pieces), its parts, and the levels of a
#: part and of the trunk (25 levels cut at level 12).
TL4 = dict(seconds=3.9, parts=399, part_levels=13, trunk_levels=12)


def tl4_rows(balance, region, part_pass, speed):
    """``{P: (seconds, regions, per-part seconds)}`` of a turn-limit-4 iteration on ``P`` threads:
    its one-thread time (x ``speed``) over ``balance[P]`` (a compute speed-up measured on another
    tree), plus a region per level of each piece and pass, plus the Python-level cost of each part's
    pass (``part_pass`` seconds, not parallel)."""
    per_pass = TL4["parts"] * (2 * TL4["part_levels"] - 1) + 2 * TL4["trunk_levels"] - 1
    regions = 2 * per_pass
    fixed = 2 * TL4["parts"] * part_pass
    out = {}
    for P, b in balance.items():
        out[P] = (TL4["seconds"] * speed / b + (regions * region(P) if P > 1 else 0.0) + fixed,
                  regions, fixed)
    return out
