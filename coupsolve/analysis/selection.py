"""Which rates the equilibrium determines: each rate of one turn under CFR+, under MMD's selection,
and its interval over every epsilon-equilibrium.

A two-player zero-sum game has a convex set of equilibria, and a rate read off one solver's strategy
may be the solver's choice rather than the game's. :func:`selection` puts three figures side by side
for each rate of a turn (the card choice of each seat, and each claim's bluff, challenge and
challenge-success rate): the CFR+ strategy's, the MMD strategy's (:mod:`solvers.cfr.mmd`: the uniform
magnet annealed toward the limiting logit QRE, a named selection) and, where the linear programs fit,
the interval over all strategy profiles whose exploitability is at most ``epsilon``
(:class:`solvers.history.intervals.EquilibriumPolytope`). A rate whose interval is narrower than
``DETERMINED`` (2 points) is *determined*.

Each rate is a ratio of bilinear forms of the two players' sequence forms: a sum over the histories
where it counts of chance's reach times each player's own reach (:func:`rate_forms`). The card choice
involves one player's sequences only (its interval is exact); a claim's rates involve both, and
:func:`solvers.history.intervals.bilinear_interval` bounds them from outside (one linear-fractional
program per sequence of one player) and from inside (the rates of the profiles those programs
return, and of the CFR+ and MMD strategies when they are epsilon-equilibria). A rate is then
``determined`` (outer interval narrower than 2 points), ``not determined`` (two epsilon-equilibria
found more than 2 points apart) or ``open`` (neither proven).
"""

from __future__ import annotations

import dataclasses
import math
import time

import numba
import numpy as np

from solvers import DECISION

from coupsolve import engine as E
from coupsolve.analysis.claims import BLUFF, CHALLENGED, CLAIMS, DETERMINED, MADE, SUCCESS
from coupsolve.engine.context import context_field
from coupsolve.rules import CHARACTERS

__all__ = ["DETERMINED", "MAX_INTERVAL_HISTORIES", "MAX_TURN_LIMIT", "RateForm", "Selection", "SelectionRow",
           "check_rules", "rate_forms", "selection"]

#: Intervals are computed on history trees up to this size by default (turn limit 2's 3.07 million
#: histories; its programs take seconds each, turn limit 3's would not fit a few minutes).
MAX_INTERVAL_HISTORIES = 4_000_000
#: Above this many histories (turn limit 1 has 64,000, turn limit 2 three million) the linear
#: programs take seconds each, and :func:`selection` limits their number.
LARGE = 1_000_000
#: The largest turn limit :func:`selection` takes: it builds the history tree and runs MMD on it
#: (turn limit 3's tree is 30 times turn limit 2's).
MAX_TURN_LIMIT = 2
#: The rates of a claim, with the fields of their numerator and denominator.
CLAIM_RATES = (("bluff", BLUFF, MADE), ("challenged", CHALLENGED, MADE),
               ("challenge wins", SUCCESS, CHALLENGED))


@numba.njit(cache=True)
def _events(kind, infoset, context, child_start, ioff, inum, iact, turn, out):
    """Each claim event of turn ``turn``: rows ``(history after the decision, claim, field)`` written
    to ``out`` while they fit (fields MADE, BLUFF, CHALLENGED, SUCCESS, as
    :func:`coupsolve.analysis.history._accumulate` counts them). Returns the number of events."""
    n = 0
    for i in range(kind.shape[0]):
        if kind[i] != DECISION or context_field(context[i], E.CTX_TURN) != turn:
            continue
        ctx = context[i]
        ph = context_field(ctx, E.CTX_PHASE)
        o = ioff[infoset[i]]
        if ph == E.PH_TURN or ph == E.PH_BLOCK or ph == E.PH_BLOCK_CHALLENGE:
            hand = context_field(ctx, E.CTX_HAND)
            for j in range(inum[infoset[i]]):
                c = E.ACTION_CLAIM[iact[o + j]]
                if c < 0:
                    continue
                if E.CLAIM_MARK[c] >= 0:
                    holds = context_field(ctx, E.CTX_HOLDS_TREATY)
                else:
                    holds = (hand >> E.CLAIM_CHAR[c]) & 1
                for field in (MADE, BLUFF):
                    if field == BLUFF and holds != 0:
                        continue
                    if n < out.shape[0]:
                        out[n, 0], out[n, 1], out[n, 2] = child_start[i] + j, c, field
                    n += 1
        if ph == E.PH_CHALLENGE or ph == E.PH_BLOCK_CHALLENGE:
            c = context_field(ctx, E.CTX_CLAIM) - 1
            if c < 0:
                continue
            holds = context_field(ctx, E.CTX_HOLDS)
            for j in range(inum[infoset[i]]):
                if iact[o + j] != E.ACT_CHALLENGE:
                    continue
                for field in (CHALLENGED, SUCCESS):
                    if field == SUCCESS and holds != 0:
                        continue
                    if n < out.shape[0]:
                        out[n, 0], out[n, 1], out[n, 2] = child_start[i] + j, c, field
                    n += 1
    return n


@dataclasses.dataclass(frozen=True)
class RateForm:
    """One rate as a ratio of bilinear forms: ``numerator`` and ``denominator`` are ``(s0, s1, w)``
    (:func:`solvers.history.intervals.bilinear_interval`).

    Attributes
    ----------
    kind : str
        ``"card choice"``, ``"bluff"``, ``"challenged"`` or ``"challenge wins"``.
    subject : str
        The seat and card (``"p0 Duke"``) or the claim (``"Steal"``).
    """

    kind: str
    subject: str
    numerator: tuple
    denominator: tuple

    def value(self, z) -> float:
        """The rate at both players' sequence forms ``z`` (nan when its condition never holds)."""
        from solvers.history.intervals import ratio_at

        return ratio_at(z, self.numerator, self.denominator)

    def weight(self, z) -> float:
        """Its denominator at ``z``: how often, a game, the rate's condition holds."""
        s0, s1, w = self.denominator
        return float(np.sum(w * z[s0] * z[s1]))


def _choice_forms(coup_tree):
    """Each seat's card choice (selection setup): the probability of each card, a linear function
    of the seat's own sequence form (the other's term is its empty sequence, 1)."""
    tree = coup_tree.tree
    a, forms = tree.num_actions, []
    if coup_tree.rules.setup != "selection":
        return forms
    for seat in (0, 1):
        level = range(int(tree.level_start[seat]), int(tree.level_start[seat + 1]))
        nodes = [v for v in level if tree.node_kind[v] == DECISION and tree.node_player[v] == seat]
        if not nodes:
            continue
        i = int(tree.node_infoset[nodes[0]])
        o = int(tree.infoset_offset[i])
        empty = (a, a + 1)
        for k, action in enumerate(tree.actions(i)):
            pair = [empty[0], empty[1]]
            pair[seat] = o + k
            one = np.ones(1)
            forms.append(RateForm("card choice", f"p{seat} {CHARACTERS[action - E.ACT_CHOOSE]}",
                                  (np.array([pair[0]]), np.array([pair[1]]), one),
                                  (np.array([empty[0]]), np.array([empty[1]]), one)))
    return forms


def rate_forms(coup_tree, turn=1) -> list:
    """The rates of ``turn`` of a two-player :class:`~coupsolve.CoupTree` (built with context), as
    :class:`RateForm` s: the card choices, then each claim made at that turn in some history, its
    bluff, challenge and (when it can be challenged) challenge-success rate."""
    from solvers.history.mmd import history_sequences

    tree, ctx = coup_tree.tree, coup_tree.node_context
    args = (tree.node_kind, tree.node_infoset, ctx, tree.child_start, tree.infoset_offset,
            tree.infoset_num_actions, tree.infoset_actions, turn)
    events = np.zeros((_events(*args, np.zeros((0, 3), np.int64)), 3), np.int64)
    _events(*args, events)
    seq, reach = history_sequences(tree)
    forms = _choice_forms(coup_tree)
    for c in range(len(CLAIMS)):
        mine = events[events[:, 1] == c]
        if not (mine[:, 2] == MADE).any():
            continue
        terms = {}
        for f in (MADE, BLUFF, CHALLENGED, SUCCESS):
            h = mine[mine[:, 2] == f, 0]
            terms[f] = (seq[h, 0], seq[h, 1], reach[h])
        for kind, num, den in CLAIM_RATES:
            if len(terms[den][2]):
                forms.append(RateForm(kind, CLAIMS[c], terms[num], terms[den]))
    return forms


@dataclasses.dataclass
class SelectionRow:
    """One rate: its value under CFR+ and under MMD, how often its condition holds under each, and
    its interval (nan where not computed; ``seen_*``: the attained part, ``exact``: the bounds are
    attained)."""

    kind: str
    subject: str
    cfr_plus: float
    mmd: float
    weight_cfr_plus: float
    weight_mmd: float
    low: float = math.nan
    high: float = math.nan
    seen_low: float = math.nan
    seen_high: float = math.nan
    weight_low: float = math.nan  # how often the condition holds at the profile attaining seen_low
    weight_high: float = math.nan  # ... and seen_high (a conditional rate is free where it is ~0)
    exact: bool = False
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        """``determined``, ``not determined``, ``open`` or ``no interval`` (module docstring)."""
        if not math.isnan(self.low) and self.high - self.low < DETERMINED:
            return "determined"
        if not math.isnan(self.seen_low) and self.seen_high - self.seen_low >= DETERMINED:
            return "not determined"
        return "no interval" if math.isnan(self.low) and math.isnan(self.seen_low) else "open"


@dataclasses.dataclass
class Selection:
    """The rates of one turn under CFR+, under MMD, and over the epsilon-equilibria: plain data with
    ``to_table()``, ``to_dict()`` and ``plot(path)`` (:mod:`coupsolve.analysis.view`)."""

    rules: dict
    turn: int
    epsilon: float
    rows: list
    solves: dict  # "cfr+" / "mmd" -> {iterations, exploitability, seconds}
    intervals: bool
    meta: dict = dataclasses.field(default_factory=dict)
    #: ``{"cfr+": SolveResult, "mmd": SolveResult}`` of a computed selection (not in :meth:`to_dict`).
    results: dict = dataclasses.field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        clean = lambda x: None if isinstance(x, float) and math.isnan(x) else x  # noqa: E731
        rows = [{**{k: clean(v) for k, v in dataclasses.asdict(r).items()}, "verdict": r.verdict}
                for r in self.rows]
        return {"rules": self.rules, "turn": self.turn, "epsilon": self.epsilon,
                "determined_below": DETERMINED, "intervals": self.intervals, "solves": self.solves,
                "rates": rows, "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict) -> "Selection":
        """The selection :meth:`to_dict` wrote."""
        nan = lambda x: math.nan if x is None else x  # noqa: E731
        fields = {f.name for f in dataclasses.fields(SelectionRow)}
        rows = [SelectionRow(**{k: nan(v) for k, v in r.items() if k in fields}) for r in d["rates"]]
        return cls(d["rules"], d["turn"], d["epsilon"], rows, d["solves"], d["intervals"],
                   dict(d.get("meta", {})))

    def to_table(self) -> str:
        """The table as text (:func:`coupsolve.analysis.view.selection_table`)."""
        from coupsolve.analysis.view import selection_table

        return selection_table(self)

    def plot(self, path) -> None:
        """Each rate's interval as a whisker with its CFR+ and MMD values
        (:func:`coupsolve.analysis.view.selection_plot`)."""
        from coupsolve.analysis.view import selection_plot

        selection_plot(self, path)


def check_rules(rules) -> None:
    """Refuse (``ValueError``, one line) rules :func:`selection` does not take: more than two
    players, a turn limit over ``MAX_TURN_LIMIT``."""
    if rules.players != 2:
        raise ValueError(f"the selection compares two-player equilibria; these rules have "
                         f"{rules.players} players")
    if rules.turn_limit > MAX_TURN_LIMIT:
        raise ValueError(f"the selection solves the history tree with CFR+ and MMD up to turn limit "
                         f"{MAX_TURN_LIMIT}; got turn limit {rules.turn_limit}")


def _solve(tree, epsilon, mmd_iterations, say):
    import solvers

    say(f"solving with cfr+ to exploitability {epsilon / 2:g} ...")
    cfr = solvers.solve(tree, "cfr+", target_exploitability=epsilon / 2, iterations=20_000,
                        check_every=10, progress=False)
    say(f"solving with mmd, {mmd_iterations:,} iterations ...")
    mmd = solvers.solve(tree, "mmd", iterations=mmd_iterations, check_every=mmd_iterations,
                        progress=False)
    return cfr, mmd


def selection(rules, epsilon=1e-3, mmd_iterations=10_000, intervals=None, turn=1, min_weight=None,
              max_groups=None, coup_tree=None, say=None) -> Selection:
    """Each rate of ``turn`` under CFR+, under MMD, and its interval over the epsilon-equilibria.

    Parameters
    ----------
    rules : Rules
        Two players (the history tree of these rules is built unless ``coup_tree`` is given).
    epsilon : float
        Exploitability bound of the equilibria (OpenSpiel's convention); CFR+ is solved to half of it.
    mmd_iterations : int
        Iterations of ``mmd`` (its last iterate is the selection; its exploitability is recorded).
    intervals : bool, optional
        Compute the intervals (linear programs); default: when the tree has at most
        ``MAX_INTERVAL_HISTORIES`` histories.
    turn : int
    min_weight : float, optional
        A claim's rates get an interval only when their condition holds at least this often a game
        under CFR+ or MMD (the card choices always do); 0 for every rate. Default: 0, and 0.01 on a
        tree of more than ``LARGE`` histories.
    max_groups : int, optional
        A claim's rate gets outer bounds only when it has at most this many groups
        (:func:`~solvers.history.intervals.bilinear_interval`: two programs a group), else only the
        attained values from the CFR+ and MMD strategies' ascent. Default: every rate, and 5 on a
        tree of more than ``LARGE`` histories (turn limit 2: each program takes seconds there).
    coup_tree : CoupTree, optional
    say : callable, optional
        ``say(line)``: what it is doing, before each long step.
    """
    from solvers.history.intervals import EquilibriumPolytope
    from solvers.history.mmd import SequenceForm, sequence_form
    import coupsolve

    check_rules(rules)
    say = say or (lambda line: None)
    if coup_tree is None:
        say("building the history tree ...")
        coup_tree = coupsolve.build_coup_tree(rules)
    tree = coup_tree.tree
    cfr, mmd = _solve(tree, epsilon, mmd_iterations, say)
    sf = SequenceForm(tree)
    z = {name: sequence_form(r.average_policy, tree, sf) for name, r in (("cfr+", cfr), ("mmd", mmd))}
    witnesses = [z[name] for name, r in (("cfr+", cfr), ("mmd", mmd)) if r.exploitability <= epsilon]
    forms = rate_forms(coup_tree, turn)
    rows = [SelectionRow(f.kind, f.subject, f.value(z["cfr+"]), f.value(z["mmd"]), f.weight(z["cfr+"]),
                         f.weight(z["mmd"])) for f in forms]
    if intervals is None:
        intervals = tree.num_nodes <= MAX_INTERVAL_HISTORIES
    large = tree.num_nodes > LARGE
    min_weight = (0.01 if large else 0.0) if min_weight is None else min_weight
    max_groups = (5 if large else None) if max_groups is None else max_groups
    if intervals:
        say("building the linear programs of the epsilon-equilibria ...")
        polytope = EquilibriumPolytope(tree, sf)
        chosen = [(f, r) for f, r in zip(forms, rows)
                  if f.kind == "card choice" or max(r.weight_cfr_plus, r.weight_mmd) >= min_weight]
        for k, (form, row) in enumerate(chosen):
            say(f"interval {k + 1} of {len(chosen)}: {form.subject} {form.kind} ...")
            began = time.perf_counter()
            found = polytope.bilinear_interval(form.numerator, form.denominator, epsilon, witnesses,
                                               max_groups=max_groups)
            row.low, row.high, row.seen_low, row.seen_high = (found.low, found.high, found.seen_low,
                                                              found.seen_high)
            row.weight_low, row.weight_high = (math.nan if z is None else form.weight(z)
                                               for z in found.profiles)
            row.exact, row.seconds = found.exact, time.perf_counter() - began
    solves = {name: {"iterations": int(r.iterations), "exploitability": float(r.exploitability),
                     "seconds": float(r.seconds)} for name, r in (("cfr+", cfr), ("mmd", mmd))}
    return Selection(rules.to_dict(), turn, epsilon, rows, solves, bool(intervals),
                     results={"cfr+": cfr, "mmd": mmd})
