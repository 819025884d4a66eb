"""The continuation strategies a player may choose at a depth-limited leaf: a blueprint and its biases.

Brown, Sandholm and Amos ("Depth-limited solving for imperfect-information games", NeurIPS 2018)
let a player choose, at the depth limit, among its blueprint and versions of it biased toward one
kind of action (in poker: folding, calling, raising), each made by multiplying the probability of
that kind of action by a constant and renormalising. In Coup the ways a player deviates are how
much it bluffs and how much it challenges, so the continuations here are:

``blueprint``
    the blueprint as it is;
``bluff more``
    claims the player cannot back (a declared action, block or Treaty whose character it does not
    hold) weighted by :data:`BIAS`;
``challenge more``
    Challenge weighted by :data:`BIAS`;
``challenge less``
    Challenge weighted by ``1 / BIAS``.

An action with probability 0 stays at 0, so a bias never adds an action the blueprint never plays.
"""

from __future__ import annotations

import numpy as np

from coupsolve import engine as E
from coupsolve.engine.context import context_field

__all__ = ["BIAS", "CONTINUATIONS", "action_classes", "biased", "check_count", "continuation_policies"]

#: The factor a biased continuation applies to its kind of action before renormalising.
BIAS = 5.0
#: The continuations, in the order a leaf's choice lists them (the first ``K`` are used).
CONTINUATIONS = ("blueprint", "bluff more", "challenge more", "challenge less")


def check_count(k) -> int:
    """``k`` as a number of continuations (1 to ``len(CONTINUATIONS)``), else ``ValueError``."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= len(CONTINUATIONS):
        raise ValueError(f"the number of continuations must be a whole number from 1 to "
                         f"{len(CONTINUATIONS)} ({', '.join(CONTINUATIONS)}), not {k!r}")
    return int(k)


def action_classes(coup_tree):
    """Per flat action of ``coup_tree.tree``: ``(bluff, challenge)`` boolean masks.

    ``bluff``: a claim (declared action, block, Treaty) whose character the decider does not hold;
    ``challenge``: the Challenge action. Read from each information set's packed decision context
    (the decider's cards are part of what it knows, so one history of the set tells).
    """
    tree, ctx = coup_tree.tree, coup_tree.node_context
    if ctx is None:
        raise ValueError("the continuations need a CoupTree built with context=True")
    owner = np.repeat(np.arange(tree.num_infosets), tree.infoset_num_actions)
    c = ctx[coup_tree.infoset_rep].astype(np.int64)[owner]
    a = tree.infoset_actions.astype(np.int64)
    phase = context_field(c, E.CTX_PHASE)
    claim = np.asarray(E.ACTION_CLAIM)[a]
    claiming = np.isin(phase, (E.PH_TURN, E.PH_BLOCK, E.PH_BLOCK_CHALLENGE)) & (claim >= 0)
    safe = np.where(claim >= 0, claim, 0)
    marked = np.asarray(E.CLAIM_MARK)[safe] >= 0
    holds_card = (context_field(c, E.CTX_HAND) >> np.asarray(E.CLAIM_CHAR)[safe]) & 1
    holds = np.where(marked, context_field(c, E.CTX_HOLDS_TREATY), holds_card)
    return claiming & (holds == 0), a == E.ACT_CHALLENGE


def biased(tree, policy, classes, which: int) -> np.ndarray:
    """Continuation ``which`` (an index into :data:`CONTINUATIONS`) of the flat ``policy`` over ``tree``.

    ``classes`` is :func:`action_classes` of the tree.
    """
    policy = np.asarray(policy, dtype=np.float64)
    if which == 0:
        return policy.copy()
    bluff, challenge = classes
    weight = np.ones_like(policy)
    if which == 1:
        weight[bluff] = BIAS
    elif which == 2:
        weight[challenge] = BIAS
    elif which == 3:
        weight[challenge] = 1.0 / BIAS
    else:
        raise ValueError(f"no continuation {which}")
    out = policy * weight
    starts = tree.infoset_offset[tree.infoset_num_actions > 0]
    total = np.add.reduceat(out, starts) if out.size else out
    per = np.zeros(tree.num_infosets)
    per[tree.infoset_num_actions > 0] = total
    per = np.repeat(per, tree.infoset_num_actions)
    return np.where(per > 0, out / np.where(per > 0, per, 1.0), policy)


def continuation_policies(longer, blueprint, k: int) -> list:
    """The first ``k`` of :data:`CONTINUATIONS` of ``blueprint`` (a flat policy over ``longer.tree``,
    a :class:`~coupsolve.trees.history.tree.CoupTree` built with ``context=True`` when ``k > 1``), as
    flat float64 policies."""
    k = check_count(k)
    classes = action_classes(longer) if k > 1 else None
    return [biased(longer.tree, blueprint, classes, c) if c else np.asarray(blueprint, np.float64)
            for c in range(k)]
