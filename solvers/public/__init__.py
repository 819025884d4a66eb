"""The public-tree representation: vector CFR over a :class:`~solvers.PublicTree` (:mod:`~.rep`), its
compiled passes (:mod:`~._kernel`, :mod:`~._forward`, :mod:`~._node`).
"""

# The vector passes, for the pieces of a cut tree and for analyses that read a public tree's reach and
# values under a policy.
from solvers.public._forward import no_live
from solvers.public._kernel import backward_levels, forward, forward_levels, scratch, values, values_levels
from solvers.public._node import _side as entries_of  # (first entry, count) of a player's at a node

__all__ = ["backward_levels", "entries_of", "forward", "forward_levels", "no_live", "scratch", "values", "values_levels"]
