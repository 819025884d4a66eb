"""Public trees of two-player Coup rooted at any public state, with a range for each player.

The other builders start at the game's start. A player that searches as it plays (continual
re-solving: Moravcik, Schmid, Burch et al., "DeepStack", Science 2017; Brown, Sandholm and Amos,
"Depth-limited solving for imperfect-information games", NeurIPS 2018) needs the game from where it
is: a public state and each player's range over their private states there.

- :mod:`~coupsolve.trees.rooted.root`: :func:`public_root` finds the public state a history reaches
  and every history of the game there (:class:`PublicRoot`: the private states, their hands, the
  chance probability of each pair, the ranges' checks);
- :mod:`~coupsolve.trees.rooted.build`: :func:`build_rooted_public_tree` builds the public tree from
  there (a chance node over the pairs of private states, weighted by both ranges and card removal,
  then the same walk as from the game's start), counted first; :func:`restrict_policy` reads a
  strategy of the whole game onto it.

Example::

    root = public_root(rules, state.history())          # an OpenSpiel state of the game
    rooted = build_rooted_public_tree(rules.replace(turn_limit=root.turn_limit_ahead(2)),
                                      root, range0, range1)
    solvers.solve(rooted.tree, iterations=200)
"""

from coupsolve.trees.rooted.build import (RootedSize, build_rooted_public_tree, count_rooted_public_tree,
                                          restrict_policy)
from coupsolve.trees.rooted.root import PublicRoot, hand_name, public_root, turn_limit_ahead

__all__ = ["PublicRoot", "RootedSize", "build_rooted_public_tree", "count_rooted_public_tree", "hand_name",
           "public_root", "restrict_policy", "turn_limit_ahead"]
