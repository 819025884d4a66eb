"""The opponent model inside a re-solve: where the re-solving player believes the opponent is the honest
blueprint, the opponent's challenge rounds in the subgame are held, that far, to the honest player's
move.

The opponent model of :class:`~coupsolve.search.resolve.SearchSettings` (``honest=q``) weighs the
opponent's hands at the re-solve's root by Bayes' rule over two types, the blueprint and the honest
blueprint (:data:`~coupsolve.search.blueprint.MODELS`). That changes what the re-solving player
believes the opponent holds, not what it expects the opponent to do next: inside the subgame the
opponent's moves are solved, so they answer the re-solving player's claims as an equilibrium player
would, whoever the opponent is believed to be. Here they are held to the model where the model
says what an honest player does: in a challenge round, the honest blueprint passes, unless it can see
the claim is false, and then it challenges. Each such information set of the opponent plays that
move with the probability that a player holding its hand is the honest type (the posterior at the
root), and its solved strategy otherwise: a data-biased response (Johanson and Bowling, AISTATS 2009;
:mod:`solvers.trees.restricted`), which exploits an opponent who does not challenge as far as the
evidence says it is one, and stays an equilibrium player's answer where the evidence says it is not.

Two approximations: an information set whose hand is not one the opponent held at the root (after an
Exchange or a lost card inside the subgame) takes the posterior of the opponent's whole range, and
whether the claim is false is judged with the face-up cards as they were at the root.
"""

from __future__ import annotations

import numpy as np

from coupsolve import engine as E
from coupsolve.engine.context import context_field

__all__ = ["held_to_model", "hold", "posterior_by_hand"]


def posterior_by_hand(hands, blueprint_reach, honest_reach, prior):
    """``{packed hand: probability that the player is the honest type}`` from each private state's
    ``hands`` code and its reach under the two types (on one scale, as
    :meth:`~coupsolve.search.blueprint.Blueprint.reach` gives them), with prior ``prior`` on the honest
    type: Bayes' rule over the pair (type, private state), the private states of one hand pooled."""
    out = {}
    for code, bp, fair in zip(np.asarray(hands).tolist(), blueprint_reach.tolist(), honest_reach.tolist()):
        both, honest = out.get(code, (0.0, 0.0))
        out[code] = (both + (1 - prior) * bp + prior * fair, honest + prior * fair)
    return {code: honest / both if both > 0 else 0.0 for code, (both, honest) in out.items()}


def held_to_model(tree, rooted, player, posterior, overall, params, face_up):
    """``tree`` (the game a re-solve solves, whose first information sets are ``rooted``'s, a
    :class:`~coupsolve.trees.stepwalk.build.CoupPublicTree`) as a
    :class:`~solvers.trees.restricted.RestrictedTree`: ``player``'s challenge rounds held to the
    honest blueprint's move (the module docstring) with the weight ``posterior`` gives the hand there
    (``{packed hand: probability}``, :func:`posterior_by_hand`; ``overall`` for a hand it does not
    name). ``params`` are the rules' engine parameters, ``face_up`` the face-up copies of each
    character at the root. None where no information set is held (weight 0 everywhere)."""
    from solvers.trees.restricted import RestrictedTree

    n = rooted.infoset_hash.size
    weight, model = np.zeros(tree.num_infosets), np.zeros(tree.num_actions)
    hand = _infoset_hands(rooted)
    context = rooted.infoset_context.astype(np.int64)
    phase = context_field(context, E.CTX_PHASE)
    offsets, counts = tree.infoset_offset, tree.infoset_num_actions
    mine = np.flatnonzero((np.asarray(tree.flat.infoset_player[:n]) == player)
                          & ((phase == E.PH_CHALLENGE) | (phase == E.PH_BLOCK_CHALLENGE)))
    for i in mine.tolist():
        o, m = int(offsets[i]), int(counts[i])
        actions = tree.infoset_actions[o:o + m].tolist()
        if E.ACT_CHALLENGE not in actions or E.ACT_PASS not in actions:
            continue
        claim = int(context_field(context[i], E.CTX_CLAIM)) - 1
        move = E.ACT_CHALLENGE if _sees_false(claim, int(hand[i]), params, face_up) else E.ACT_PASS
        weight[i] = posterior.get(int(hand[i]), overall)
        model[o + actions.index(move)] = 1.0
    if not weight.any():
        return None
    return RestrictedTree(tree, weight, model)


def _infoset_hands(rooted):
    """The packed hand of each information set of ``rooted`` (a
    :class:`~coupsolve.trees.stepwalk.build.CoupPublicTree`): its entries' at decision nodes, where
    ``entry_ref`` names the information set (at a terminal it names a matrix row)."""
    from solvers.kinds import DECISION

    f = rooted.tree.flat
    node = np.repeat(np.arange(f.node_kind.shape[0]), np.diff(np.asarray(f.entry_start)))
    refs = np.asarray(f.entry_ref)
    acting = (np.asarray(f.node_kind)[node] == DECISION) & (refs >= 0)
    hand = np.zeros(rooted.infoset_hash.size, np.int64)
    hand[refs[acting]] = rooted.entry_hand[acting]
    return hand


def _sees_false(claim, hand, params, face_up):
    """Whether a player holding ``hand`` (packed) sees that ``claim`` is false: every copy of its
    character in that hand or face up. A Treaty is never seen false this way (its card is marked, not
    counted)."""
    if claim < 0 or claim == E.CLAIM_TREATY:
        return False
    c = int(E.CLAIM_CHAR[claim])
    return params[E.P_COPIES + c] - ((hand >> (3 * c)) & 7) - face_up[c] <= 0


def hold(rooted, tree, player, by_hand, overall, trust, params, state):
    """:func:`held_to_model` as a re-solve needs it: each weight the posterior (``by_hand``,
    ``overall``) times ``trust`` (clipped to ``[0, 1]``), the face-up cards read from ``state``, the
    engine state at the root. None where nothing is held."""
    from coupsolve.engine.honest import face_up_copies

    t = min(max(float(trust), 0.0), 1.0)
    if not t:
        return None
    face_up = [face_up_copies(params, state, c) for c in range(E.NCH)]
    return held_to_model(tree, rooted, player, {h: t * p for h, p in by_hand.items()}, t * overall, params,
                         face_up)
