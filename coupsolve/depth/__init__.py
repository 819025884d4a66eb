"""Depth-limited solving: a Coup game cut after a few turns, its leaves valued by continuation strategies.

A turn limit's payoff (a draw, or counting influence) is not what a position is worth, so the exact
answers of a cut game move with the cut. Here each leaf at the cut instead lets each player choose
among continuation strategies of a *blueprint* of a longer game, and pays what the chosen pair earns
from there (Brown, Sandholm and Amos, "Depth-limited solving for imperfect-information games",
NeurIPS 2018; the value of a leaf depends on both players' ranges, which a fixed number does not see:
Kovarik, Seitz, Lisy et al., "Value functions for depth-limited solving in zero-sum
imperfect-information games", AIJ 2023).

- :mod:`~coupsolve.depth.continuations`: the blueprint and its biased versions;
- :mod:`~coupsolve.depth.values`: leaf values from a strategy of a longer game, exactly;
- :mod:`~coupsolve.depth.game`: the depth-limited game as a ``solvers.GameTree``;
- :mod:`~coupsolve.depth.public`: the same game on the public tree (``solvers.PublicTree``);
- :mod:`~coupsolve.depth.stitch`: a cut solution stitched onto the blueprint, and its exploitability;
- :mod:`~coupsolve.depth.oracle`: best responses to a solution added as continuations, round by round.
"""

from coupsolve.depth.continuations import BIAS, CONTINUATIONS
from coupsolve.depth.game import DepthLimitedGame, depth_limited_game, leaf_infosets
from coupsolve.depth.stitch import stitch, stitch_choices, stitched_exploitability
from coupsolve.depth.values import LeafValues, NodeMap, node_map, values_from_longer_game

__all__ = ["BIAS", "CONTINUATIONS", "DepthLimitedGame", "LeafValues", "NodeMap", "depth_limited_game",
           "leaf_infosets", "node_map", "stitch", "stitch_choices", "stitched_exploitability", "values_from_longer_game"]
