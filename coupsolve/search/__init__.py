"""Search: a player of full-length two-player Coup that re-solves as it plays.

- :mod:`~coupsolve.search.blueprint`: :class:`Blueprint`, a trained full-length strategy as the
  re-solves read it (ranges by Bayes' rule, under it or under the honest model of :data:`MODELS`, its
  features of a history);
- :mod:`~coupsolve.search.leaves`: :func:`rooted_leaf_values`, the leaves of a tree rooted mid-game
  valued by rollouts of the blueprint's continuations;
- :mod:`~coupsolve.search.own`: :class:`OwnRange`, the re-solving player's own range by Bayes' rule
  over the strategies its re-solves played;
- :mod:`~coupsolve.search.resolve`: :func:`resolve`, one re-solve, rooted as
  :mod:`~coupsolve.search.root` says;
- :mod:`~coupsolve.search.opening`: the first turn played from one solve at the game's start;
- :mod:`~coupsolve.search.policy`: :class:`ResolvingPolicy`, the player as an OpenSpiel policy;
- :mod:`~coupsolve.search.safe`: the re-solving gadget above a re-solve (``SearchSettings(safe=...)``)
  and its values from the blueprint.
"""

from coupsolve.search.blueprint import MODELS, Blueprint
from coupsolve.search.leaves import rooted_leaf_values
from coupsolve.search.own import OwnRange
from coupsolve.search.policy import ResolvingPolicy
from coupsolve.search.resolve import RANGE_FLOOR, ROOTS, SAFE, Resolution, SearchSettings, resolve, root_length

__all__ = ["Blueprint", "MODELS", "OwnRange", "RANGE_FLOOR", "ROOTS", "SAFE", "Resolution", "ResolvingPolicy",
           "SearchSettings", "resolve", "root_length", "rooted_leaf_values"]
