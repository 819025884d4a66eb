"""The analysis of :mod:`coupsolve.analysis.history`, exactly, on the public tree: no history is built.

The same :class:`~coupsolve.analysis.history.Analysis` (bluff, challenge and success rates by turn and by
influence, the card choice with its strategy and best-response values, the starting hands' values)
from a policy over a :class:`~coupsolve.trees.stepwalk.build.CoupPublicTree`, so a strategy solved on the
public tree (turn limit 4, whose history tree does not fit) is analysed where it was solved.

How a reach probability is had without histories: the probability that play reaches public node
``s`` with player ``q`` in private state (entry) ``e`` is ``reach_q[e] * cf_q[e]``, ``q``'s own reach
(the product of its own action probabilities, :func:`solvers.public._kernel.forward`) times its
counterfactual reach (the opponent's and chance's part). The counterfactual reach of every entry is
one backward pass of :func:`solvers.public._kernel.values` with every terminal paying 1: below an
entry its own strategy sums to 1, so the value is exactly the weight of the opponent's and chance's
part. This needs the payoffs to be public, as they are in Coup (a terminal's matrix holds only chance
weights and ``term_scale`` the payoff), which :func:`analyse_public` checks.

Each claim row is summed over the deciders' entries as in the history analysis (their own hand and
the public context are the information set's :attr:`~CoupPublicTree.infoset_context`). A successful
challenge depends on the claimant's cards, which the challenger does not see: it is summed over the
claimant's entries at the children the challenge leads to (the challenger's probability of
challenging is then inside their counterfactual reach), each counted when the claimant's hand at the
challenge (:attr:`~CoupPublicTree.entry_hand`) lacks the claimed character. The starting hands are
the entries of both seats at the first turn's decision nodes.

The marked cards (the Treaty claim, copies told apart) are not covered: their hands are not in
``entry_hand``; :func:`analyse_public` refuses them.
"""

from __future__ import annotations

import numba
import numpy as np

from solvers import DECISION, TERMINAL
from solvers.public import entries_of, forward, no_live, scratch, values
from solvers.kinds import BOTH_PLAYERS
from solvers.public.rep import PRANGE_MIN_ENTRIES

from coupsolve import engine as E
from coupsolve.analysis.history import Analysis, _rows
from coupsolve.analysis.claims import BLUFF, CHALLENGED, CLAIMS, MADE, SUCCESS
from coupsolve.engine.context import context_field
from coupsolve.rules import CHARACTERS

__all__ = ["analyse_public", "entry_reach"]


@numba.njit(cache=True, inline="always")
def _held(hand, c):
    return (hand >> (3 * c)) & 7


@numba.njit(cache=True)
def _accumulate_public(T, acts, hand, ctx, sigma, reach, cf, acc):
    """Add the reach-weighted counts of every claim into ``acc`` (``coupsolve.analysis.history._accumulate``'s
    layout: ``acc[turn, one_influence, claim, field]``); ``acts`` the information sets' action ids."""
    max_turn = acc.shape[0] - 1
    for s in range(T.node_kind.shape[0]):
        if T.node_kind[s] != DECISION:
            continue
        q = T.node_player[s]
        b, n = entries_of(T, s, q)
        ph, turn, c, one = -1, 0, -1, 0
        for x in range(b, b + n):
            I = T.entry_ref[x]
            if I < 0:
                continue
            k = ctx[I]
            ph = context_field(k, E.CTX_PHASE)
            turn = min(context_field(k, E.CTX_TURN), max_turn)
            c = context_field(k, E.CTX_CLAIM) - 1
            one = context_field(k, E.CTX_ONE)
            w0 = reach[x] * cf[x]
            if w0 == 0.0:
                continue
            o = T.infoset_offset[I]
            for j in range(T.infoset_num_actions[I]):
                a = acts[o + j]
                w = w0 * sigma[o + j]
                if ph == E.PH_TURN or ph == E.PH_BLOCK or ph == E.PH_BLOCK_CHALLENGE:
                    cl = E.ACTION_CLAIM[a]
                    if cl >= 0:
                        mine = 1 if context_field(k, E.CTX_INFL) == 1 else 0
                        acc[turn, mine, cl, MADE] += w
                        if (context_field(k, E.CTX_HAND) >> E.CLAIM_CHAR[cl]) & 1 == 0:
                            acc[turn, mine, cl, BLUFF] += w
                if (ph == E.PH_CHALLENGE or ph == E.PH_BLOCK_CHALLENGE) and c >= 0 \
                        and a == E.ACT_CHALLENGE:
                    acc[turn, one, c, CHALLENGED] += w
        if c >= 0 and (ph == E.PH_CHALLENGE or ph == E.PH_BLOCK_CHALLENGE):
            _successes(T, acts, hand, s, q, turn, one, c, reach, cf, acc)


@numba.njit(cache=True)
def _successes(T, acts, hand, s, q, turn, one, c, reach, cf, acc):
    """Challenges of claim ``c`` at node ``s`` (challenger ``q``) the claimant could not prove: summed
    over the claimant's entries at the children a challenge leads to."""
    qb, _ = entries_of(T, s, q)  # the challenger's entries at s
    cb, _ = entries_of(T, s, 1 - q)  # the claimant's
    for ch in range(T.child_start[s], T.child_start[s] + T.num_children[s]):
        lo, n = entries_of(T, ch, q)
        challenged = False
        for e in range(lo, lo + n):  # the challenger's entries say which action led here
            k = T.entry_slot[e]
            if k < 0:
                continue
            I = T.entry_ref[qb + T.entry_parent[e]]
            challenged = acts[T.infoset_offset[I] + k] == E.ACT_CHALLENGE
            break
        if not challenged:
            continue
        lo, n = entries_of(T, ch, 1 - q)
        for j in range(lo, lo + n):
            if _held(hand[cb + T.entry_parent[j]], E.CLAIM_CHAR[c]) == 0:
                acc[turn, one, c, SUCCESS] += reach[j] * cf[j]


def entry_reach(coup_public, sigma):
    """``(reach, cf, X, acc)``: each entry's own reach and counterfactual reach under ``sigma`` (their
    product is the probability that play reaches the entry's node with its player in that private
    state), and the scratch the passes used. The counterfactual reach is read from
    ``coup_public.weights`` when given (a tree whose terminals' matrices hold only the chance weights,
    as a depth-limited game's leaves do not)."""
    tree = coup_public.tree
    T = tree.flat
    par = tree.num_entries >= PRANGE_MIN_ENTRIES
    reach, acc = np.empty(tree.num_entries), np.zeros(tree.num_actions)
    X = scratch(T, numba.get_num_threads() if par else 1)
    forward(T, sigma, reach, par, BOTH_PLAYERS, no_live())
    W = T if coup_public.weights is None else coup_public.weights.flat
    unit = W._replace(term_scale=np.where(W.node_kind == TERMINAL, 1.0, 0.0))
    cf = np.empty(tree.num_entries)
    values(unit, sigma, reach, cf, acc, X, BOTH_PLAYERS, False, np.empty(0, np.int32), par)
    np.abs(cf, out=cf)  # player 1's values are the negated sums (of non-negative terms)
    return reach, cf, X, acc


def _passes(coup_public, sigma):
    """``(reach, cf, v, br)``: own reach and counterfactual reach per entry (:func:`entry_reach`), the
    counterfactual values under ``sigma`` (each entry's to its own player) and ``{seat: values when
    seat best-responds}``."""
    tree = coup_public.tree
    T = tree.flat
    par = tree.num_entries >= PRANGE_MIN_ENTRIES
    none = np.empty(0, np.int32)
    reach, cf, X, acc = entry_reach(coup_public, sigma)
    v = np.empty(tree.num_entries)
    values(T, sigma, reach, v, acc, X, BOTH_PLAYERS, False, none, par)
    br = {}
    for seat in (0, 1):
        w = np.empty(tree.num_entries)
        values(T, sigma, reach, w, acc, X, seat, True, none, par)
        br[seat] = w
    return reach, cf, v, br


def _entries(tree, s, p):
    """Player ``p``'s entries at node ``s`` (a range)."""
    b, n = entries_of(tree.flat, s, p)
    return range(b, b + n)


def _hand_name(code):
    return "+".join(CHARACTERS[c] for c in range(E.NCH) for _ in range((int(code) >> (3 * c)) & 7))


def _choices(coup_public, sigma, reach, cf, v, br):
    """The card choice: ``(choice, value under the strategy, value when the chooser best-responds)``,
    as :func:`coupsolve.analysis.history._choices`."""
    tree = coup_public.tree
    choice, value, best = {}, {}, {}
    if coup_public.rules.setup != "selection":
        return choice, value, best
    is_choice = np.isin(tree.infoset_actions, E.ACT_CHOOSE + np.arange(E.NCH))
    for I in np.flatnonzero(is_choice[tree.infoset_offset]):
        o, k = int(tree.infoset_offset[I]), int(tree.infoset_num_actions[I])
        seat, s = int(tree.infoset_player[I]), int(tree.infoset_node[I])
        x = next(e for e in _entries(tree, s, seat) if tree.entry_ref[e] == I)
        names = [CHARACTERS[a - E.ACT_CHOOSE] for a in tree.infoset_actions[o:o + k]]
        sums = np.zeros((2, k))
        first = _entries(tree, s, seat).start
        for ch in range(int(tree.child_start[s]), int(tree.child_start[s] + tree.num_children[s])):
            for e in _entries(tree, ch, seat):
                if first + tree.entry_parent[e] == x and tree.entry_slot[e] >= 0:
                    sums[:, tree.entry_slot[e]] += (v[e], br[seat][e])
        choice[seat] = {c: float(sigma[o + j]) for j, c in enumerate(names)}
        value[seat] = dict(zip(names, (sums[0] / cf[x]).tolist()))
        best[seat] = dict(zip(names, (sums[1] / cf[x]).tolist()))
    return choice, value, best


def _hand_values(coup_public, reach, cf, v, br):
    """Both seats' hands at the first turn, as :func:`coupsolve.analysis.history._hand_values`."""
    return _hand_table(_hand_sums(coup_public, reach, cf, v, br, {0: {}, 1: {}}))


def _hand_sums(coup_public, reach, cf, v, br, out):
    """Add to ``out`` (``{seat: {hand: (probability, reach x value, reach x best-response
    value)}}``) the entries of both seats at the first turn's decision nodes."""
    tree, ctx = coup_public.tree, coup_public.infoset_context
    turn1 = (context_field(ctx, E.CTX_PHASE) == E.PH_TURN) & (context_field(ctx, E.CTX_TURN) == 1)
    nodes = np.unique(tree.infoset_node[turn1])
    for s in nodes:
        for seat in (0, 1):
            for e in _entries(tree, int(s), seat):
                p = reach[e] * cf[e]
                if p == 0.0:
                    continue
                h = _hand_name(coup_public.entry_hand[e])
                a, b, c = out[seat].get(h, (0.0, 0.0, 0.0))
                out[seat][h] = (a + p, b + reach[e] * v[e], c + reach[e] * br[seat][e])
    return out


def _hand_table(out):
    """``(hand_value, hand_best_response)`` of :func:`_hand_sums`' totals."""
    return ({seat: {h: (p, pv / p) for h, (p, pv, _) in hands.items()} for seat, hands in out.items()},
            {seat: {h: pb / p for h, (p, _, pb) in hands.items()} for seat, hands in out.items()})


def analyse_public(coup_public, policy, meta=None) -> Analysis:
    """Analyse a flat ``policy`` over a Coup public tree, exactly (module docstring).

    Parameters
    ----------
    coup_public : CoupPublicTree
        From :func:`coupsolve.trees.stepwalk.build.build_public_tree`.
    policy : array_like, float64, shape (num_actions,)
        A flat policy in the public tree's information-set order (``SolveResult.average_policy``).
    meta : dict, optional
        Copied into ``Analysis.meta``.
    """
    from solvers.policy import check_policy

    from coupsolve.trees.stepwalk.build import CoupPublicTree

    if not isinstance(coup_public, CoupPublicTree):
        raise ValueError("analyse_public() needs a CoupPublicTree (coupsolve.trees.stepwalk.build.build_public_tree)")
    rules, tree = coup_public.rules, coup_public.tree
    if rules.marked_cards:
        raise ValueError("analyse_public(): the marked cards are not covered on the public tree "
                         "(their copies are not in entry_hand); analyse the history tree")
    sigma = check_policy(tree, policy, "the policy")
    reach, cf, v, br = _passes(coup_public, sigma)
    acc = np.zeros((rules.turn_limit + 1, 2, len(CLAIMS), 4))
    _accumulate_public(tree.flat, tree.infoset_actions, coup_public.entry_hand, coup_public.infoset_context, sigma, reach,
                       cf, acc)
    return analysis_of(rules, acc, float(v[int(tree.entry_start[0])]),
                       _choices(coup_public, sigma, reach, cf, v, br),
                       _hand_values(coup_public, reach, cf, v, br), meta)


def analysis_of(rules, acc, value0, choices, hands, meta=None) -> Analysis:
    """The :class:`Analysis` of the claim counts ``acc`` (``[turn, one influence, claim, field]``),
    player 0's value, ``choices`` (:func:`_choices`) and ``hands`` (:func:`_hand_values`)."""
    return Analysis(rules=rules.to_dict(), game_value=(value0, -value0),
                    claims=_rows(acc.sum(axis=(0, 1))),
                    by_turn={t: _rows(acc[t].sum(axis=0)) for t in range(1, rules.turn_limit + 1)},
                    by_influence={"one": _rows(acc[:, 1].sum(axis=0)), "two": _rows(acc[:, 0].sum(axis=0))},
                    choice=choices[0], choice_value=choices[1], choice_best_response=choices[2],
                    hand_value=hands[0], hand_best_response=hands[1], meta=dict(meta or {}))
