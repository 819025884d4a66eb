"""Named node kinds, defined once for every module and kernel of :mod:`solvers`.

A :class:`~solvers.trees.gametree.GameTree` stores one ``node_kind`` per history (int8): :data:`DECISION`,
:data:`CHANCE` or :data:`TERMINAL`. The solver layout (:mod:`solvers.history.layout`) instead labels each
segment of non-terminals by who acts there, ``seg_kind``: the player (0 or 1) at a decision, or
:data:`SEG_CHANCE`; the same code tags the edge into a history (``edge & 3``), with :data:`EDGE_ROOT`
for the root's. Kernels that update one player ``p`` take ``p`` in ``{0, 1}`` or :data:`BOTH_PLAYERS`
(simultaneous updates). numba reads these module globals as compile-time constants.
"""

#: ``GameTree.node_kind`` of a decision node (a player acts).
DECISION = 0
#: ``GameTree.node_kind`` of a chance node.
CHANCE = 1
#: ``GameTree.node_kind`` of a terminal history.
TERMINAL = 2

#: Layout segment kind (and edge owner) of chance nodes; players 0 and 1 are their own codes.
SEG_CHANCE = 2
#: Edge owner code of the root (no parent edge).
EDGE_ROOT = 3
#: The updated "player" of a pass that updates both (simultaneous updates).
BOTH_PLAYERS = 2

__all__ = ["DECISION", "CHANCE", "TERMINAL", "SEG_CHANCE", "EDGE_ROOT", "BOTH_PLAYERS"]
