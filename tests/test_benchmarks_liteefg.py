"""The LiteEFG game file written from coupsolve's tree is the same game as LiteEFG's own walk."""

import pytest

pytest.importorskip("LiteEFG")  # the `bench` extra

from benchmarks import adapters  # noqa: E402
from benchmarks.games import all_games  # noqa: E402


@pytest.mark.parametrize("key", ["kuhn", "leduc"])
def test_tree_file_gives_liteefg_the_same_game(key):
    game = all_games()[key]
    walked = adapters.make(adapters.LITEEFG, game, "cfr+", threads=1, from_tree=False)
    written = adapters.make(adapters.LITEEFG, game, "cfr+", threads=1, from_tree=True)
    values = []
    for solver in (walked, written):
        curve = []
        for _ in range(3):
            solver.step(10)
            curve.append(solver.exploitability())
        solver.close()
        values.append(curve)
    assert values[0][0] > values[0][-1] > 0  # it is solving
    assert values[1] == pytest.approx(values[0], rel=1e-9, abs=1e-12)
