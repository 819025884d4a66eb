"""A public tree in which one player is partly held to a model: the game a data-biased response solves.

An opponent model (a strategy someone believes the opponent plays) is exploited best by a best
response to it, and a best response is as bad as the model is wrong. Johanson and Bowling ("Data
biased robust counter strategies", AISTATS 2009) trade the two at each information set: there the
restricted player plays the model's strategy with a given probability (how far the model is trusted
there) and chooses freely otherwise. An equilibrium of that game gives the other player a
counter-strategy that exploits the model as far as it is trusted and is a Nash strategy where it
is not trusted at all (weight 0 everywhere); weight 1 everywhere makes it a best response to the
model. (The restricted Nash response of Johanson, Zinkevich and Bowling, "Computing robust
counter-strategies", NeurIPS 2007, mixes once, at the root; the per-information-set mixture needs
no second copy of the tree.)

:class:`RestrictedTree` is a :class:`~solvers.PublicTree` with that restriction: ``weight`` per
information set (zero: unrestricted) and ``model``, a strategy per action. The CFR family solves it
as any public tree (:class:`solvers.public.rep.RestrictedPublicRep`): at a restricted information set
the strategy played is ``weight * model + (1 - weight) * own``, where ``own`` is the regret matching of
regrets measured against the value of ``own`` alone (the value played, less the model's share). Its
average policy is the restricted player's whole strategy, the model's share included; exploitability
is measured in the tree without the restriction (how far each average strategy is from a best
response there). The predictive variants and Magnetic Mirror Descent do not take it.
"""

from __future__ import annotations

import numpy as np

from solvers.trees.publictree import PublicTree

__all__ = ["RestrictedTree"]


class RestrictedTree:
    """``tree`` (a :class:`~solvers.PublicTree`) with information set ``i`` playing ``model`` with
    probability ``weight[i]`` (the module docstring). Every other attribute is ``tree``'s.

    Parameters
    ----------
    tree : PublicTree
    weight : array_like, float, shape (tree.num_infosets,)
        In ``[0, 1]``.
    model : array_like, float, shape (tree.num_actions,)
        Non-negative; at each information set of positive weight, its actions' entries sum to 1
        (elsewhere they are not read).

    Raises
    ------
    TypeError, ValueError
        In one line, for a tree that is not a public tree or a restriction that does not fit it.
    """

    def __init__(self, tree, weight, model):
        if not isinstance(tree, PublicTree):
            raise TypeError(f"a restricted tree is a PublicTree's, not a {type(tree).__name__}'s")
        weight = np.asarray(weight, np.float64)
        model = np.asarray(model, np.float64)
        if weight.shape != (tree.num_infosets,) or model.shape != (tree.num_actions,):
            raise ValueError(f"a restriction of {tree.game_id} has {tree.num_infosets} weights and "
                             f"{tree.num_actions} model entries, not {weight.size} and {model.size}")
        if not (np.all(weight >= 0.0) and np.all(weight <= 1.0) and np.all(model >= 0.0)):
            raise ValueError("a restriction's weights are in [0, 1] and its model is not negative")
        sums = np.add.reduceat(model, tree.infoset_offset) if model.size else np.zeros(0)
        bad = np.flatnonzero((weight > 0.0) & (np.abs(sums - 1.0) > 1e-9))
        if bad.size:
            raise ValueError(f"the model's strategy at restricted information set {int(bad[0])} sums to "
                             f"{sums[bad[0]]:.6g}, not 1")
        self.tree, self.weight, self.model = tree, weight, model

    #: What :func:`solvers.cfr.checkpoint.tree_digest` hashes: the tree's fields and the restriction.
    DIGEST_FIELDS = PublicTree.DIGEST_FIELDS + ("weight", "model")

    def __getattr__(self, name):
        if name in ("tree", "weight", "model"):  # not yet set: no recursion through ``tree``
            raise AttributeError(name)
        return getattr(self.tree, name)

    def __repr__(self):
        return f"RestrictedTree({self.tree!r}, {int(np.count_nonzero(self.weight))} information sets restricted)"
