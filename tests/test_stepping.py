"""The one stepping loop (solvers.cfr.stepping.run) with each way of ending: a count, a time limit alone,
checks, saves by count and by the clock."""

import pytest

from solvers.cfr.stepping import run


class Counter:
    """A solver that only counts its iterations (each step takes no time)."""

    def __init__(self):
        self.iterations, self.calls = 0, []

    def step(self, count):
        self.calls.append(count)
        self.iterations += count
        return 1e-4 * count


def test_a_time_limit_alone_runs_and_stops():
    """`train --minutes M` with no iteration count, no checks and saves by the clock only: the loop
    once raised TypeError (a min over nothing but the chunk)."""
    s = Counter()
    assert run(s, seconds=0.2, progress=False, save=lambda: False, save_seconds=0.05) is False
    assert s.iterations > 0


@pytest.mark.parametrize("every", [1, 7, 50])
def test_checks_and_saves_land_on_their_multiples(every):
    s, seen, saved = Counter(), [], []
    run(s, iterations=120, check=lambda: (seen.append(s.iterations), (False, ""))[1], check_every=every,
        save=lambda: saved.append(s.iterations) or False, save_every=2 * every, progress=False)
    assert s.iterations == 120
    assert seen == list(range(every, 121, every))
    assert saved == list(range(2 * every, 121, 2 * every))
