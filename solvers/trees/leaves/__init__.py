"""Multi-valued leaves: a depth-limited game whose leaves let each player choose how the game goes on.

A depth-limited game stops at some histories (its *leaves*) before the real end. Brown, Sandholm and
Amos ("Depth-limited solving for imperfect-information games", NeurIPS 2018) value such a leaf not by
one number but by a choice: at the leaf each player picks one of a few *continuation strategies* for
the rest of the game, and the payoff is what that pair of continuations earns from the leaf's
history. Grafting that choice onto the tree as two decisions makes it part of the game, so every
solver, the exact best response and exploitability, checkpoints and analyses take the depth-limited
game unchanged:

- :func:`graft_leaf_choices` (:mod:`~solvers.trees.leaves.history`) on a history tree
  (:class:`~solvers.GameTree`);
- :func:`graft_public_leaf_choices` (:mod:`~solvers.trees.leaves.public`) on a public tree
  (:class:`~solvers.PublicTree`), with :func:`public_leaf_pairs` naming the pairs of private states
  each leaf needs a value for.

Who chooses what: at a leaf, player 0 chooses *its own* continuation knowing exactly what it knows
there, then player 1 its own without seeing player 0's pick (the two choices are simultaneous). A
player's best response in this game is then a best response among its continuations, so if a player's
set holds a best response to every continuation of the other (for instance the set of all its
strategies), the leaf values are exact: the depth-limited game's equilibria are the restriction of
the whole game's. With fewer continuations, each player is guaranteed no more than the best of its
few (Brown, Sandholm and Amos 2018, section 4). The new information sets come after the tree's own,
so a policy's first ``base_actions`` entries are the cut game's.
"""

from solvers.trees.leaves.history import GRAFT_HISTORY_BYTES, LeafChoices, graft_leaf_choices, grafted_histories
from solvers.trees.leaves.public import (LeafPairs, PublicLeafChoices, graft_public_leaf_choices, public_leaf_pairs,
                                        with_leaf_weights)

__all__ = ["LeafChoices", "LeafPairs", "PublicLeafChoices", "graft_leaf_choices", "graft_public_leaf_choices",
           "public_leaf_pairs", "with_leaf_weights"]
