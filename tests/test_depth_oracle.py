"""Best responses as continuations (coupsolve.depth.oracle): once a player's best response to a
solution is among the leaves' continuations, the depth-limited game sees exactly what that best
response wins in the longer game."""

import numpy as np
import pytest

import solvers
import coupsolve
from coupsolve import Rules, depth
from coupsolve.depth.oracle import best_response_continuations
from solvers.trees.derive import within as _within

pytestmark = pytest.mark.xdist_group("depth")
CUT, FULL = Rules.two_player_selection(turn_limit=1), Rules.two_player_selection(turn_limit=2)


@pytest.fixture(scope="module")
def games():
    cut = coupsolve.build_coup_tree(CUT, leaves=True)
    full = coupsolve.build_coup_tree(FULL)
    weak = solvers.solve(full.tree, algorithm="cfr+", iterations=4, progress=False)
    return cut, full, depth.node_map(cut.tree, full.tree), weak.average_policy


def _pad(old_tree, policy, new_tree):
    """``policy`` (of a depth-limited tree) on ``new_tree``, the same tree whose leaf choices have more
    continuations at the end: probability 0 on those."""
    n = old_tree.infoset_num_actions
    assert (new_tree.infoset_num_actions >= n).all() and new_tree.num_infosets == old_tree.num_infosets
    within = _within(n)
    out = np.zeros(new_tree.num_actions)
    out[np.repeat(new_tree.infoset_offset, n) + within] = policy
    return out


def test_a_best_response_among_the_continuations_is_seen_exactly(games):
    """Round r's solution, offered in round r + 1's game with probability 0 on the new continuation:
    each player's best response there is worth exactly its best response in the longer game to the
    solution played as it chose (the leaves' values are then what that best response wins)."""
    cut, full, where, blueprint = games
    lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 2, where=where)
    dl = depth.depth_limited_game(CUT, lv, cut=cut)
    sigma = solvers.solve(dl.tree, algorithm="hs-pcfr+", iterations=30, progress=False).average_policy
    played = depth.stitch_choices(dl, sigma, full, blueprint, where=where)
    br = [solvers.best_response(full.tree, played, p) for p in (0, 1)]
    owner = np.repeat(full.tree.infoset_player, full.tree.infoset_num_actions)
    both = np.where(owner == 0, br[0].policy, br[1].policy)
    lv2 = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 2, where=where,
                                        extra=[("best response", both)])
    assert lv2.continuations[-1] == "best response" and np.array_equal(lv2.values[:, :2, :2], lv.values)
    reused = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 2, where=where,
                                           extra=[("best response", both)], known=lv.values)
    assert np.array_equal(reused.values, lv2.values)
    with pytest.raises(ValueError, match="known values"):
        depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 1, where=where,
                                      known=lv.values)
    dl2 = depth.depth_limited_game(CUT, lv2, cut=cut)
    padded = _pad(dl.tree, sigma, dl2.tree)
    for p in (0, 1):
        seen = solvers.best_response(dl2.tree, padded, p).value
        assert seen == pytest.approx(br[p].value, abs=1e-9), p
        # without the best response among the continuations the game saw less
        assert solvers.best_response(dl.tree, sigma, p).value < br[p].value - 1e-6


def test_the_loop_adds_a_best_response_a_round(games):
    cut, full, where, blueprint = games
    lines, seen = [], []
    rounds = best_response_continuations(cut, full, blueprint, k=1, rounds=2, iterations=60, target=1e-6,
                                         where=where, say=lines.append,
                                         each=lambda r, game, policy: seen.append((r, game.tree.num_nodes)))
    assert seen == [(r, x.histories) for r, x in enumerate(rounds)]
    assert [r.names for r in rounds] == [("blueprint",), ("blueprint", "best response 1"),
                                         ("blueprint", "best response 1", "best response 2")]
    assert len(lines) == 3 and all("longer game" in s for s in lines)
    first = rounds[0]
    # round 0 is the plain depth-limited solve with the blueprint's value at each leaf
    lv = depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 1, where=where)
    dl = depth.depth_limited_game(CUT, lv, cut=cut)
    played = depth.stitch_choices(dl, first.policy, full, blueprint, where=where)
    assert first.stitched == pytest.approx(solvers.exploitability(full.tree, played), abs=1e-12)
    assert first.stitched == pytest.approx(sum(first.gains) / 2, abs=1e-12)
    for r in rounds:
        assert set(r.leaf_choice) == {0, 1}
        assert all(sum(c.values()) == pytest.approx(1) for c in r.leaf_choice.values())
    # the first best responses are the seam's deviations: offering them cuts the stitched figure
    assert rounds[-1].stitched < first.stitched, [r.stitched for r in rounds]


def test_bad_rounds_are_refused(games):
    cut, full, where, blueprint = games
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="rounds"):
            best_response_continuations(cut, full, blueprint, rounds=bad, where=where)
    with pytest.raises(ValueError, match="flat policy"):
        depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 1, where=where,
                                      extra=[("short", np.ones(3))])
    with pytest.raises(ValueError, match="2 continuations' policies for k = 1"):
        depth.values_from_longer_game(cut.tree, cut.leaf_node, full, blueprint, 1, where=where,
                                      continuations=[blueprint, blueprint])
