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


@pytest.mark.parametrize("key", ["leduc", "coup1"])
def test_liteefg_exploitability_agrees_with_ours(key):
    """LiteEFG's evaluator (the benchmark's time-to-target figures) against our exact best response.

    On Coup turn limit 1 LiteEFG's CFR+ average is an exact equilibrium after
    10 iterations (it averages the strategies after each update, leaving out
    the uniform first one that OpenSpiel's and our averages include).
    """
    import numpy as np

    import solvers

    game = all_games()[key]
    tree = game.tree()
    solver = adapters.make(adapters.LITEEFG, game, "cfr+", threads=1, from_tree=True)
    solver.step(10)
    policy = tree.uniform_policy().copy()
    offsets = np.concatenate([[0], np.cumsum(tree.infoset_num_actions)])
    for player in (1, 2):  # LiteEFG numbers players from 1; infoset names end in __I<our id>
        for name, values in solver.env.get_strategy(player, solver._strategy(), solver.convergence):
            s = int(name.rsplit("__I", 1)[1])
            policy[offsets[s]:offsets[s + 1]] = values
    theirs = solver.exploitability()
    solver.close()
    assert theirs == pytest.approx(solvers.exploitability(tree, policy), abs=1e-12)
