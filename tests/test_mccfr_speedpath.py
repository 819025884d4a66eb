"""The fast paths of the MCCFR kernels change nothing: after a fixed number of iterations at a fixed
seed, the table, regrets, averages and generator state are bit for bit those of the kernels before
the speed work (their SHA-256 digests, recorded from that code in ``data/mccfr_digests.json``).

``python -m tests.test_mccfr_speedpath`` rewrites the digests (only from code known to be right).
"""

import hashlib
import json
import pathlib

import numpy as np
import pytest

import coupsolve
from coupsolve.sampling.game import sampling_game
from solvers.mccfr.solver import MCCFRSolver

# one worker compiles the sampling kernels (MCCFR) once, not both at the same time
pytestmark = pytest.mark.xdist_group("sampling")

DIGESTS = pathlib.Path(__file__).parent / "data" / "mccfr_digests.json"

#: name -> (players, turn limit, abstraction, sampling, regret, average, seed, iterations, workers);
#: the runs with two workers are threaded external sampling (deterministic batches,
#: :mod:`solvers.mccfr.batch`), one worker the serial kernel.
RUNS = {
    "2p-tl2-external-rm": (2, 2, "exact", "external", "rm", "uniform", 3, 400, 1),
    "4p-tl2-external-rm+lin": (4, 2, "exact", "external", "rm+", "linear", 5, 150, 1),
    "2p-tl4-external-rm": (2, 4, "exact", "external", "rm", "uniform", 7, 40, 1),
    "3p-tl3-external-rm+": (3, 3, "exact", "external", "rm+", "uniform", 11, 40, 1),
    "3p-tl2-outcome-rm": (3, 2, "exact", "outcome", "rm", "uniform", 13, 3000, 1),
    "4p-tl4-outcome-rm+lin": (4, 4, "exact", "outcome", "rm+", "linear", 19, 3000, 1),
    "2p-tl2-external-rm+lin-2workers": (2, 2, "exact", "external", "rm+", "linear", 23, 1024, 2),
    "4p-tl3-external-rm-2workers": (4, 3, "exact", "external", "rm", "uniform", 29, 64, 2),
}


def run_digest(name):
    """The SHA-256 of a run's table, regrets, averages, generator state and counters."""
    players, limit, abstraction, sampling, regret, average, seed, iterations, workers = RUNS[name]
    rules = coupsolve.Rules(players=players, turn_limit=limit)
    threaded = dict(threads=workers, batch=16) if workers > 1 else {}
    solver = MCCFRSolver(sampling_game(rules, abstraction), max_infosets=1 << 20, regret=regret,
                         average=average, seed=seed, sampling=sampling, **threaded)
    solver.step(iterations)
    table = solver.table()
    h = hashlib.sha256()
    for field in ("key", "check", "owner", "num_actions", "offset", "regret", "average"):
        h.update(np.ascontiguousarray(table[field]).tobytes())
    h.update(solver._rng.tobytes())
    h.update(solver._stats.tobytes())
    return h.hexdigest(), solver.num_infosets


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n.endswith("workers") else n
                                  for n in sorted(RUNS)])  # threads: test_mccfr_threads
def test_iterates_bit_for_bit(name):
    expected = json.loads(DIGESTS.read_text())[name]
    digest, infosets = run_digest(name)
    assert infosets == expected["infosets"]
    assert digest == expected["sha256"]


if __name__ == "__main__":
    out = {}
    for name in sorted(RUNS):
        digest, infosets = run_digest(name)
        out[name] = {"sha256": digest, "infosets": infosets}
        print(name, infosets, digest)
    DIGESTS.write_text(json.dumps(out, indent=1) + "\n")
