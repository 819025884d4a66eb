"""What a solved strategy does: bluff and challenge frequencies, the card choice, values by hand.

Everything is computed exactly from a flat policy over the whole tree (built with
``build_tree(rules, context=True)``): each decision is weighted by the probability of reaching it when
chance and both players follow the policy, so a frequency here is a ratio of expected counts, not an
estimate from sampled games.

Definitions (per claim: Tax/Duke, Steal/Captain, Assassinate/Assassin, Exchange/Ambassador, the four
blocks, and with the marked cards the Treaty, a claim of the Treaty Contessa):

- ``made``: expected number of times per game the claim is made;
- ``bluff``: probability that the claimant does not hold the character, given the claim is made;
- ``challenged``: probability that the claim is challenged, given it is made;
- ``challenge_success``: probability that the challenger wins (the claim was a bluff), given a challenge.

Break-downs: by turn number and by whether the claimant is down to one influence.
"""

from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np

from solvers.evaluate import reach_and_values

from . import engine as E
from .rules import CHARACTERS

CLAIMS = ("Tax", "Steal", "Assassinate", "Exchange", "Block Duke", "Block Contessa", "Block Captain",
          "Block Ambassador", "Treaty")
CLAIM_CHARACTER = ("Duke", "Captain", "Assassin", "Ambassador", "Duke", "Contessa", "Captain", "Ambassador",
                   "Contessa (Treaty)")
_CLAIM_CHAR = np.array([CHARACTERS.index(c.split()[0]) for c in CLAIM_CHARACTER], dtype=np.int64)
TREATY_CLAIM = CLAIMS.index("Treaty")
# block character -> claim index
_BLOCK_CLAIM = np.array([4, -1, 6, 7, 5], dtype=np.int64)
MADE, BLUFF, CHALLENGED, SUCCESS = 0, 1, 2, 3


@numba.njit(cache=True)
def _turn_claim(a):
    if a == E.ACT_TAX:
        return 0
    if E.ACT_STEAL <= a < E.ACT_PASS:
        return 1
    if E.ACT_ASSASSINATE <= a < E.ACT_STEAL:
        return 2
    if a == E.ACT_EXCHANGE:
        return 3
    return -1


@numba.njit(cache=True)
def _accumulate(kind, infoset, context, infoset_offset, infoset_num_actions, infoset_actions, sigma,
                reach, claim_char, block_claim, acc):
    """acc[turn, one_influence, claim, field] += reach-weighted counts (fields MADE..SUCCESS)."""
    max_turn = acc.shape[0] - 1
    for i in range(kind.shape[0]):
        if kind[i] != 0 or reach[i] == 0.0:
            continue
        ctx = context[i]
        ph = ctx & 15
        turn = min((ctx >> E.CTX_TURN) & 255, max_turn)
        I = infoset[i]
        o = infoset_offset[I]
        if ph == E.PH_TURN or ph == E.PH_BLOCK:
            mask = (ctx >> E.CTX_HAND) & 31
            one = 1 if ((ctx >> E.CTX_INFL) & 7) == 1 else 0
            for j in range(infoset_num_actions[I]):
                a = infoset_actions[o + j]
                if ph == E.PH_TURN:
                    c = _turn_claim(a)
                elif a >= E.ACT_BLOCK and a < E.ACT_LOSE:
                    c = block_claim[a - E.ACT_BLOCK]
                else:
                    c = -1
                if c < 0:
                    continue
                w = reach[i] * sigma[o + j]
                acc[turn, one, c, 0] += w
                if (mask >> claim_char[c]) & 1 == 0:
                    acc[turn, one, c, 1] += w
        elif ph == E.PH_CHALLENGE or ph == E.PH_BLOCK_CHALLENGE:
            if ph == E.PH_BLOCK_CHALLENGE:  # marked cards: the actor may claim the Treaty here
                one = 1 if ((ctx >> E.CTX_INFL) & 7) == 1 else 0
                for j in range(infoset_num_actions[I]):
                    if infoset_actions[o + j] == E.ACT_TREATY:
                        w = reach[i] * sigma[o + j]
                        acc[turn, one, TREATY_CLAIM, 0] += w
                        if (ctx >> E.CTX_HOLDS_TREATY) & 1 == 0:
                            acc[turn, one, TREATY_CLAIM, 1] += w
            if (ctx >> E.CTX_TREATY) & 1:
                c = TREATY_CLAIM
            elif ph == E.PH_CHALLENGE:
                c = _turn_claim(_kind_action((ctx >> E.CTX_ACTION) & 7))
            else:
                c = block_claim[((ctx >> E.CTX_BLOCK) & 7) - 1]
            if c < 0:
                continue
            one = (ctx >> E.CTX_ONE) & 1
            holds = (ctx >> E.CTX_HOLDS) & 1
            for j in range(infoset_num_actions[I]):
                if infoset_actions[o + j] == E.ACT_CHALLENGE:
                    w = reach[i] * sigma[o + j]
                    acc[turn, one, c, 2] += w
                    if holds == 0:
                        acc[turn, one, c, 3] += w


@numba.njit(cache=True)
def _kind_action(k):
    """Context action index (1 Income ... 7 Steal) -> a representative turn action id."""
    if k == 3:
        return E.ACT_TAX
    if k == 4:
        return E.ACT_EXCHANGE
    if k == 6:
        return E.ACT_ASSASSINATE
    if k == 7:
        return E.ACT_STEAL
    return -1


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
    choice_value: dict  # seat -> {character: value to that seat}
    hand_value: dict  # seat -> {hand: (probability, value to that seat)}
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
                "hand_value": {str(k): {h: list(pv) for h, pv in v.items()} for k, v in self.hand_value.items()},
                "meta": self.meta}

    def to_table(self) -> str:
        pct = lambda x: "     -" if math.isnan(x) else f"{100 * x:5.1f}%"  # noqa: E731
        # the Treaty is a claim only with marked cards: leave its row out of other games' tables
        shown = [c for c, name in enumerate(CLAIMS) if name != "Treaty" or self.rules.get("marked_cards")]
        lines = [f"game value: p0 {self.game_value[0]:+.4f}, p1 {self.game_value[1]:+.4f}", "",
                 f"{'claim':<17}{'character':<18}{'made/game':>10}{'bluff':>8}{'challenged':>12}"
                 f"{'chal. wins':>12}"]
        for c in shown:
            s = self.claims[c]
            lines.append(f"{s.claim:<17}{s.character:<18}{s.made:>10.3f}{pct(s.bluff):>8}"
                         f"{pct(s.challenged):>12}{pct(s.challenge_success):>12}")
        for title, table in (("by turn", self.by_turn), ("by the claimant's influence", self.by_influence)):
            lines += ["", f"bluff rate {title}:", f"{'':<17}" + "".join(f"{str(k):>9}" for k in table)]
            for c in shown:
                lines.append(f"{CLAIMS[c]:<17}" + "".join(f"{pct(rows[c].bluff):>9}" for rows in table.values()))
        if self.choice:
            lines += ["", "card choice (probability, value to the chooser):"]
            for seat, dist in self.choice.items():
                vals = self.choice_value[seat]
                lines.append(f"  p{seat}: " + ", ".join(f"{c} {100 * p:.1f}% ({vals[c]:+.3f})"
                                                        for c, p in dist.items()))
        if self.hand_value:
            lines += ["", "value by starting hand (probability, value; hands reached under 0.1% left out):"]
            for seat, hands in self.hand_value.items():
                best = sorted(((h, pv) for h, pv in hands.items() if pv[0] >= 1e-3), key=lambda kv: -kv[1][1])
                lines.append(f"  p{seat}: " + ", ".join(f"{h} {100 * p:.1f}% {v:+.3f}" for h, (p, v) in best))
        return "\n".join(lines)

    def plot(self, path) -> None:
        """Bar charts of bluff and challenge rates per claim, and the card-choice distribution."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        panels = 3 if self.choice else 2
        fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 4.5))
        names = [s.claim for s in self.claims]
        nz = lambda xs: [0.0 if math.isnan(x) else x for x in xs]  # noqa: E731
        axes[0].barh(names, nz([s.bluff for s in self.claims]), color="tab:red")
        axes[0].set_title("bluff rate (claimant lacks the card)")
        axes[0].set_xlim(0, 1)
        axes[0].invert_yaxis()
        axes[1].barh(names, nz([s.challenged for s in self.claims]), color="tab:blue", label="challenged")
        axes[1].barh(names, nz([s.challenged * s.challenge_success for s in self.claims]), color="tab:cyan",
                     label="challenged and caught")
        axes[1].set_title("challenge rate")
        axes[1].set_xlim(0, 1)
        axes[1].invert_yaxis()
        axes[1].legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, fontsize="small")
        if self.choice:
            width = 0.8 / len(self.choice)
            for k, (seat, dist) in enumerate(self.choice.items()):
                xs = np.arange(len(dist)) + k * width
                axes[2].bar(xs, list(dist.values()), width, label=f"p{seat}")
            axes[2].set_xticks(np.arange(len(dist)) + width * (len(self.choice) - 1) / 2, list(dist),
                               rotation=30)
            axes[2].set_title("card choice")
            axes[2].set_ylim(0, 1)
            axes[2].legend()
        title = self.meta.get("title")
        if title:
            fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


def analyse(tree, policy, meta=None) -> Analysis:
    """Analyse a flat ``policy`` over a Coup tree built with ``build_tree(rules, context=True)``."""
    context = getattr(tree, "node_context", None)
    if context is None:
        raise ValueError("analyse() needs a tree built with coupsolve.build_tree(rules, context=True)")
    reach, value = reach_and_values(tree, policy)
    sigma = np.asarray(policy, dtype=np.float64)
    max_turn = tree.rules.turn_limit
    acc = np.zeros((max_turn + 1, 2, len(CLAIMS), 4))
    _accumulate(tree.node_kind, tree.node_infoset, context, tree.infoset_offset, tree.infoset_num_actions,
                tree.infoset_actions, sigma, reach, _CLAIM_CHAR, _BLOCK_CLAIM, acc)
    total = acc.sum(axis=(0, 1))
    by_turn = {t: _rows(acc[t].sum(axis=0)) for t in range(1, max_turn + 1)}
    by_infl = {"one": _rows(acc[:, 1].sum(axis=0)), "two": _rows(acc[:, 0].sum(axis=0))}
    choice, choice_value = _choices(tree, sigma, reach, value)
    return Analysis(rules=tree.rules.to_dict(), game_value=(float(value[0]), -float(value[0])),
                    claims=_rows(total), by_turn=by_turn, by_influence=by_infl, choice=choice,
                    choice_value=choice_value, hand_value=_hand_values(tree, reach, value), meta=dict(meta or {}))


def _choices(tree, sigma, reach, value):
    """Card-selection setup: each seat's choice distribution and the value of each choice to it."""
    choice, choice_value = {}, {}
    if tree.rules.setup != "selection":
        return choice, choice_value
    level = lambda d: range(int(tree.level_start[d]), int(tree.level_start[d + 1]))  # noqa: E731
    for seat, d in ((0, 0), (1, 1)):
        nodes = [v for v in level(d) if tree.node_kind[v] == 0 and tree.node_player[v] == seat]
        if not nodes:
            continue
        I = int(tree.node_infoset[nodes[0]])
        names = [CHARACTERS[a - E.ACT_CHOOSE] for a in tree.actions(I)]
        o = int(tree.infoset_offset[I])
        choice[seat] = {c: float(sigma[o + j]) for j, c in enumerate(names)}
        sign = 1.0 if seat == 0 else -1.0
        weight = sum(reach[v] for v in nodes)
        choice_value[seat] = {
            c: float(sign * sum(reach[v] * value[tree.child_start[v] + j] for v in nodes) / weight)
            for j, c in enumerate(names)}
    return choice, choice_value


def _hand_values(tree, reach, value):
    """Each seat's value by its hand at the first turn (probability of the hand, value to the seat)."""
    ctx = tree.node_context
    first = np.flatnonzero((tree.node_kind == 0) & ((ctx & 15) == E.PH_TURN)
                           & (((ctx >> E.CTX_TURN) & 255) == 1))
    out = {0: {}, 1: {}}
    for v in first:
        if reach[v] == 0.0:
            continue
        state = tree.state_at(int(v))
        for seat in (0, 1):
            hand = "+".join(state.hand(seat))
            p, pv = out[seat].get(hand, (0.0, 0.0))
            out[seat][hand] = (p + reach[v], pv + reach[v] * value[v] * (1 if seat == 0 else -1))
    return {seat: {h: (p, pv / p) for h, (p, pv) in hands.items()} for seat, hands in out.items()}
