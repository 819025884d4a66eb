"""benchmarks.cluster_plan and benchmarks.part_sample: the plan's arithmetic on a synthetic profile."""

import numpy as np
import pytest

from benchmarks import cluster_plan as C
from benchmarks.part_sample import estimate


def _profile(n=40, seed=1):
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(n):
        e, a = int(rng.integers(1000, 100000)), int(rng.integers(500, 40000))
        parts.append(dict(entries=e, actions=a, infosets=a // 3, bytes=17 * e + 25 * a,
                          seconds_per_pass_2t=2e-9 * e + 1e-8 * a))
    return dict(turn_limit=4, depth=12, parts=parts, trunk_seconds_per_pass_2t=0.01)


def test_the_fit_recovers_a_linear_profile_and_one_machine_holds_everything():
    p = _profile()
    bcoef, scoef, err = C.fit(p)
    assert np.allclose(bcoef, [17, 25]) and np.allclose(scoef, [2e-9, 1e-8])
    assert max(err) < 1e-9
    sample = dict(sample=p["parts"], number_of_parts=len(p["parts"]))
    one, four = C.plan(p, sample, [1, 4], draws=3)
    # a bootstrap of the parts: one machine's memory is every part's arrays and state, one part's
    # buffers and the runtime, within the spread of the draws
    mean = np.mean([17 * q["entries"] + 37 * q["actions"] for q in p["parts"]]) * len(p["parts"])
    assert one["memory_per_machine"] - C.RUNTIME_BYTES == pytest.approx(mean, rel=0.3)
    assert four["seconds_per_iteration"] >= four["ideal_seconds"]
    assert four["memory_per_machine"] < one["memory_per_machine"]


def test_the_estimate_of_a_full_sample_is_exact():
    p = _profile(10)["parts"]
    for q in p:
        q.update(nodes=1, cells=2, pair_cells=1, work_bytes=3, seconds=0.5)
    est = estimate(p, len(p))
    assert est["entries"][0] == pytest.approx(sum(q["entries"] for q in p))
    assert est["entries"][1] == 0.0  # the whole population: no sampling error
