"""What a solved strategy does: bluff and challenge frequencies, the card choice, values by hand.

Everything is computed exactly from a flat policy over the whole tree (a :class:`coupsolve.CoupTree`
built with ``build_coup_tree(rules)``, which records each history's decision context): each decision
is weighted by the probability of reaching it when chance and both players follow the policy, so a
frequency here is a ratio of expected counts, not an estimate from sampled games.

Definitions (per claim: Tax/Duke, Steal/Captain, Assassinate/Assassin, Exchange/Ambassador, the four
blocks, and with the marked cards the Treaty, a claim of the Treaty Contessa):

- ``made``: expected number of times per game the claim is made;
- ``bluff``: probability that the claimant does not hold the character, given the claim is made;
- ``challenged``: probability that the claim is challenged, given it is made;
- ``challenge_success``: probability that the challenger wins (the claim was a bluff), given a challenge.

Break-downs: by turn number and by whether the claimant is down to one influence.

Rates conditional on a claim are only as good as the strategy where the claim is made: a claim made
less than ``REACH_THRESHOLD`` times a game is reached so rarely that the solver has not converged
there, so its rates are marked (in parentheses in the tables, pale and hatched in the plot). A claim
never made has no rates at all ("never made"), which is not a bluff rate of 0% ("never bluffed").

The card choice (card-selection setup) is valued twice for each card: under the strategy (the chooser
then plays the strategy, which after a card it almost never chooses is not converged either) and by
the best response (the chooser then plays a best response to the opponent's strategy: what the
choice is really worth against it); the regret of a card is the best card's best-response value
minus its own.

Each seat's starting hand (its cards at the first turn) is valued twice too, with the hand's
probability under the strategy: ``hand_value`` when the seat plays the strategy, ``hand_best_response``
when, holding that hand, it best-responds to the opponent's strategy from the first turn on (its card
choice, if any, is the strategy's). The difference is what the seat gains by deviating with that hand:
never negative, zero where the strategy is a best response. The probability-weighted mean of the
best-response values is the seat's best-response value when it makes no choice before its first turn
(the standard setup), and the choice-weighted mean of ``choice_best_response`` in the card-selection
setup (the best-response value itself when the strategy's card choice is a best response). Each
seat's best response is computed once and serves both.
"""

from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np

from solvers import DECISION
from solvers.history.evaluate import reach_and_values

from coupsolve import engine as E
from coupsolve.engine.context import context_field
from coupsolve.analysis.claims import BLUFF, CHALLENGED, CLAIM_CHARACTER, CLAIMS, MADE, REACH_THRESHOLD, SUCCESS
from coupsolve.rules import CHARACTERS



@numba.njit(cache=True)
def _accumulate(kind, infoset, context, infoset_offset, infoset_num_actions, infoset_actions, sigma,
                reach, acc):
    """Add the reach-weighted counts of every claim into ``acc``.

    Parameters
    ----------
    kind, infoset, context : arrays of shape (nodes,)
        Node kinds (``solvers.DECISION`` at decisions), information sets (``int64``) and packed contexts
        (``CTX_*`` layout).
    infoset_offset, infoset_num_actions, infoset_actions : integer arrays
        Each information set's first slot in the flat policy, its action count, and the action ids.
    sigma : float64[slots]
        The flat policy.
    reach : float64[nodes]
        Each node's reach probability under ``sigma``.
    acc : float64[turns + 1, 2, NUM_CLAIMS, 4]
        ``acc[turn, one_influence, claim, field]`` for the fields MADE, BLUFF, CHALLENGED, SUCCESS; turns
        past the last row are counted in it.
    """
    max_turn = acc.shape[0] - 1
    for i in range(kind.shape[0]):
        if kind[i] != DECISION or reach[i] == 0.0:
            continue
        ctx = context[i]
        ph = context_field(ctx, E.CTX_PHASE)
        turn = min(context_field(ctx, E.CTX_TURN), max_turn)
        I = infoset[i]
        o = infoset_offset[I]
        if ph == E.PH_TURN or ph == E.PH_BLOCK or ph == E.PH_BLOCK_CHALLENGE:
            # claims made here by the decider: declared actions, blocks, the Treaty
            one = 1 if context_field(ctx, E.CTX_INFL) == 1 else 0
            hand = context_field(ctx, E.CTX_HAND)
            for j in range(infoset_num_actions[I]):
                c = E.ACTION_CLAIM[infoset_actions[o + j]]
                if c < 0:
                    continue
                w = reach[i] * sigma[o + j]
                acc[turn, one, c, MADE] += w
                if E.CLAIM_MARK[c] >= 0:
                    holds = context_field(ctx, E.CTX_HOLDS_TREATY)
                else:
                    holds = (hand >> E.CLAIM_CHAR[c]) & 1
                if holds == 0:
                    acc[turn, one, c, BLUFF] += w
        if ph == E.PH_CHALLENGE or ph == E.PH_BLOCK_CHALLENGE:
            c = context_field(ctx, E.CTX_CLAIM) - 1  # the claim this round may challenge
            if c < 0:
                continue
            one = context_field(ctx, E.CTX_ONE)
            holds = context_field(ctx, E.CTX_HOLDS)
            for j in range(infoset_num_actions[I]):
                if infoset_actions[o + j] == E.ACT_CHALLENGE:
                    w = reach[i] * sigma[o + j]
                    acc[turn, one, c, CHALLENGED] += w
                    if holds == 0:
                        acc[turn, one, c, SUCCESS] += w


def _ratio(a, b):
    return float(a / b) if b > 0 else math.nan


@dataclasses.dataclass
class ClaimStats:
    """Reach-weighted statistics of one claim (see the module docstring for the definitions)."""

    claim: str
    character: str
    made: float
    bluff: float
    challenged: float
    challenge_success: float

    @classmethod
    def from_counts(cls, c, counts):
        made, bluffs, challenged, success = (float(x) for x in counts)
        return cls(CLAIMS[c], CLAIM_CHARACTER[c], made, _ratio(bluffs, made), _ratio(challenged, made),
                   _ratio(success, challenged))


def _rows(counts):
    return [ClaimStats.from_counts(c, counts[c]) for c in range(len(CLAIMS))]


@dataclasses.dataclass
class Analysis:
    """The analysis of one strategy: plain data, with ``to_table()``, ``to_dict()`` and ``plot(path)``."""

    rules: dict
    game_value: tuple  # (player 0, player 1)
    claims: list  # ClaimStats, all turns
    by_turn: dict  # turn -> list of ClaimStats
    by_influence: dict  # 'one' / 'two' -> list of ClaimStats (claimant's influence when claiming)
    choice: dict  # seat -> {character: probability} (card-selection setup)
    choice_value: dict  # seat -> {character: value to that seat when it then plays the strategy}
    choice_best_response: dict  # seat -> {character: value to that seat when it then best-responds}
    hand_value: dict  # seat -> {hand: (probability, value to that seat)}
    hand_best_response: dict  # seat -> {hand: value to that seat when it then best-responds}
    meta: dict = dataclasses.field(default_factory=dict)

    @property
    def bluff(self) -> dict:
        return {s.claim: s.bluff for s in self.claims}

    def to_dict(self) -> dict:
        clean = lambda x: None if isinstance(x, float) and math.isnan(x) else x  # noqa: E731
        rows = lambda rs: [{k: clean(v) for k, v in dataclasses.asdict(r).items()} for r in rs]  # noqa: E731
        return {"rules": self.rules, "game_value": list(self.game_value), "claims": rows(self.claims),
                "by_turn": {str(t): rows(r) for t, r in self.by_turn.items()},
                "by_influence": {k: rows(r) for k, r in self.by_influence.items()},
                "choice": {str(k): v for k, v in self.choice.items()},
                "choice_value": {str(k): v for k, v in self.choice_value.items()},
                "choice_best_response": {str(k): v for k, v in self.choice_best_response.items()},
                "reach_threshold": REACH_THRESHOLD,
                "hand_value": {str(k): {h: list(pv) for h, pv in v.items()} for k, v in self.hand_value.items()},
                "hand_best_response": {str(k): v for k, v in self.hand_best_response.items()},
                "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict) -> "Analysis":
        """The analysis :meth:`to_dict` wrote (a strategy file's stored analysis)."""
        nan = lambda x: math.nan if x is None else x  # noqa: E731
        rows = lambda rs: [ClaimStats(**{k: nan(v) for k, v in r.items()}) for r in rs]  # noqa: E731
        seats = lambda m: {int(k): v for k, v in m.items()}  # noqa: E731
        return cls(rules=d["rules"], game_value=tuple(d["game_value"]), claims=rows(d["claims"]),
                   by_turn={int(t): rows(r) for t, r in d["by_turn"].items()},
                   by_influence={k: rows(r) for k, r in d["by_influence"].items()},
                   choice=seats(d["choice"]), choice_value=seats(d["choice_value"]),
                   choice_best_response=seats(d["choice_best_response"]),
                   hand_value={int(k): {h: tuple(pv) for h, pv in v.items()}
                               for k, v in d["hand_value"].items()},
                   hand_best_response=seats(d["hand_best_response"]), meta=dict(d.get("meta", {})))

    def shown_claims(self) -> list:
        """Indices of the claims of this game (the Treaty only with the marked cards)."""
        return [c for c, name in enumerate(CLAIMS) if name != "Treaty" or self.rules.get("marked_cards")]

    def to_table(self) -> str:
        """The tables as text (:func:`coupsolve.analysis.view.table`)."""
        from coupsolve.analysis.view import table

        return table(self)

    def plot(self, path) -> None:
        """Bar charts of bluff and challenge rates per claim, and the card choice
        (:func:`coupsolve.analysis.view.plot`)."""
        from coupsolve.analysis.view import plot

        plot(self, path)


def analyse(coup_tree, policy, meta=None) -> Analysis:
    """Analyse a flat ``policy`` over a Coup tree.

    Parameters
    ----------
    coup_tree : CoupTree
        Built with ``coupsolve.build_coup_tree(rules)`` (``context=True``, the default).
    policy : array_like, float64, shape (num_actions,)
        A flat policy over ``coup_tree.tree`` (for example ``SolveResult.average_policy``).
    meta : dict, optional
        Copied into ``Analysis.meta`` (``title`` titles the plot).
    """
    from coupsolve.trees.history.tree import CoupTree

    if not isinstance(coup_tree, CoupTree) or coup_tree.node_context is None:
        raise ValueError("analyse() needs a coupsolve.CoupTree built with context=True "
                         "(coupsolve.build_coup_tree(rules))")
    tree, rules, context = coup_tree.tree, coup_tree.rules, coup_tree.node_context
    reach, value = reach_and_values(tree, policy)
    sigma = np.asarray(policy, dtype=np.float64)
    max_turn = rules.turn_limit
    acc = np.zeros((max_turn + 1, 2, len(CLAIMS), 4))
    _accumulate(tree.node_kind, tree.node_infoset, context, tree.infoset_offset, tree.infoset_num_actions,
                tree.infoset_actions, sigma, reach, acc)
    total = acc.sum(axis=(0, 1))
    by_turn = {t: _rows(acc[t].sum(axis=0)) for t in range(1, max_turn + 1)}
    by_infl = {"one": _rows(acc[:, 1].sum(axis=0)), "two": _rows(acc[:, 0].sum(axis=0))}
    br = _best_responses(tree, sigma)
    choice, choice_value, choice_br = _choices(tree, rules, sigma, reach, value, br)
    hand_value, hand_br = _hand_values(coup_tree, reach, value, br)
    return Analysis(rules=rules.to_dict(), game_value=(float(value[0]), -float(value[0])),
                    claims=_rows(total), by_turn=by_turn, by_influence=by_infl, choice=choice,
                    choice_value=choice_value, choice_best_response=choice_br,
                    hand_value=hand_value, hand_best_response=hand_br, meta=dict(meta or {}))


def _best_responses(tree, sigma):
    """``{seat: (reach, values)}`` over the tree when that seat best-responds to ``sigma`` (player 0's
    values, as ``solvers.history.evaluate.reach_and_values`` gives them)."""
    from solvers.history.best_response import best_response

    return {seat: reach_and_values(tree, best_response(tree, sigma, seat).policy) for seat in (0, 1)}


def _choice_values(tree, nodes, sign, reach, value):
    """The value to the chooser of each choice at ``nodes`` (its choice nodes), reach-weighted."""
    weight = sum(reach[v] for v in nodes)
    k = int(tree.num_children[nodes[0]])
    return [float(sign * sum(reach[v] * value[tree.child_start[v] + j] for v in nodes) / weight)
            for j in range(k)]


def _choices(tree, rules, sigma, reach, value, br):
    """Card-selection setup: each seat's choice distribution and each choice's value to it, under the
    strategy and when the chooser then best-responds to the opponent's strategy (``br``, from
    :func:`_best_responses`; module docstring)."""
    choice, choice_value, choice_br = {}, {}, {}
    if rules.setup != "selection":
        return choice, choice_value, choice_br
    level = lambda d: range(int(tree.level_start[d]), int(tree.level_start[d + 1]))  # noqa: E731
    for seat, d in ((0, 0), (1, 1)):
        nodes = [v for v in level(d) if tree.node_kind[v] == DECISION and tree.node_player[v] == seat]
        if not nodes:
            continue
        I = int(tree.node_infoset[nodes[0]])
        names = [CHARACTERS[a - E.ACT_CHOOSE] for a in tree.actions(I)]
        o = int(tree.infoset_offset[I])
        sign = 1.0 if seat == 0 else -1.0
        choice[seat] = {c: float(sigma[o + j]) for j, c in enumerate(names)}
        choice_value[seat] = dict(zip(names, _choice_values(tree, nodes, sign, reach, value)))
        choice_br[seat] = dict(zip(names, _choice_values(tree, nodes, sign, *br[seat])))
    return choice, choice_value, choice_br


def _hand_values(coup_tree, reach, value, br):
    """Each seat's starting hands (its cards at the first turn): ``{seat: {hand: (probability, value)}}``
    under the strategy, and ``{seat: {hand: value}}`` when the seat best-responds from there (``br``,
    from :func:`_best_responses`), both weighted by the strategy's reach (module docstring)."""
    ctx = coup_tree.node_context
    kind = coup_tree.tree.node_kind
    first = np.flatnonzero((kind == DECISION) & (context_field(ctx, E.CTX_PHASE) == E.PH_TURN)
                           & (context_field(ctx, E.CTX_TURN) == 1))
    out = {0: {}, 1: {}}
    for v in first:
        if reach[v] == 0.0:
            continue
        state = coup_tree.state_at(int(v))
        for seat, sign in ((0, 1.0), (1, -1.0)):
            hand = "+".join(state.hand(seat))
            p, pv, pb = out[seat].get(hand, (0.0, 0.0, 0.0))
            out[seat][hand] = (p + reach[v], pv + reach[v] * value[v] * sign, pb + reach[v] * br[seat][1][v] * sign)
    return ({seat: {h: (p, pv / p) for h, (p, pv, _) in hands.items()} for seat, hands in out.items()},
            {seat: {h: pb / p for h, (p, _, pb) in hands.items()} for seat, hands in out.items()})
