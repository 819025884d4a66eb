"""Names of actions, chance outcomes and observation tokens, exactly as RULES.md spells them."""

from __future__ import annotations

from . import engine as E
from .rules import CHARACTERS


def multiset_name(m: int) -> str:
    first, second = int(E.MS_FIRST[m]), int(E.MS_SECOND[m])
    if second < 0:
        return CHARACTERS[first]
    return f"{CHARACTERS[first]}+{CHARACTERS[second]}"


def action_name(action: int) -> str:
    """Name of a player action id (see :mod:`coupsolve.engine` for the id layout)."""
    a = int(action)
    if a == E.ACT_INCOME:
        return "Income"
    if a == E.ACT_FOREIGN_AID:
        return "Foreign Aid"
    if a == E.ACT_TAX:
        return "Tax"
    if a == E.ACT_EXCHANGE:
        return "Exchange"
    if E.ACT_COUP <= a < E.ACT_ASSASSINATE:
        return f"Coup p{a - E.ACT_COUP}"
    if E.ACT_ASSASSINATE <= a < E.ACT_STEAL:
        return f"Assassinate p{a - E.ACT_ASSASSINATE}"
    if E.ACT_STEAL <= a < E.ACT_PASS:
        return f"Steal p{a - E.ACT_STEAL}"
    if a == E.ACT_PASS:
        return "Pass"
    if a == E.ACT_CHALLENGE:
        return "Challenge"
    if E.ACT_BLOCK <= a < E.ACT_LOSE:
        return f"Block {CHARACTERS[a - E.ACT_BLOCK]}"
    if E.ACT_LOSE <= a < E.ACT_KEEP:
        return f"Lose {CHARACTERS[a - E.ACT_LOSE]}"
    if E.ACT_KEEP <= a < E.ACT_CHOOSE:
        return f"Keep {multiset_name(a - E.ACT_KEEP)}"
    if E.ACT_CHOOSE <= a < E.NUM_ACTIONS:
        return f"Choose {CHARACTERS[a - E.ACT_CHOOSE]}"
    raise ValueError(f"{action!r} is not a Coup action id (0 to {E.NUM_ACTIONS - 1})")


def chance_name(outcome: int, phase: int) -> str:
    """Name of a chance outcome at a chance node of the given phase."""
    o = int(outcome)
    if E.CH_START <= o < E.NUM_CHANCE_OUTCOMES:
        return f"Start p{o - E.CH_START}"
    if not 0 <= o < E.NUM_MULTISETS:
        raise ValueError(f"{outcome!r} is not a Coup chance outcome id (0 to {E.NUM_CHANCE_OUTCOMES - 1})")
    verb = "Deal" if phase in (E.PH_DEAL, E.PH_DEAL_ONE) else "Draw"
    return f"{verb} {multiset_name(o)}"


def token_name(token: int) -> str:
    """A readable observation token: 'p1 Challenge', 'p0 Draw Duke', 'p1 drew 2 cards', ..."""
    seat, code = divmod(int(token), E.TOKEN_SEAT)
    who = f"p{seat - 1}"
    if code < E.CODE_DEAL:
        return f"{who} {action_name(code)}"
    if code < E.CODE_DRAW:
        return f"{who} Deal {multiset_name(code - E.CODE_DEAL)}"
    if code < E.CODE_START:
        return f"{who} Draw {multiset_name(code - E.CODE_DRAW)}"
    if code < E.CODE_HIDDEN_DEAL:
        return f"Start p{code - E.CODE_START}"
    if code < E.CODE_HIDDEN_DRAW:
        k = code - E.CODE_HIDDEN_DEAL + 1
        return f"{who} dealt {k} card{'s' if k > 1 else ''}"
    if code < E.CODE_HIDDEN_DRAW0:
        k = code - E.CODE_HIDDEN_DRAW + 1
        return f"{who} drew {k} card{'s' if k > 1 else ''}"
    return {
        E.CODE_HIDDEN_DRAW0: f"{who} drew no card",
        E.CODE_HIDDEN_CHOOSE: f"{who} chose a card",
        E.CODE_HIDDEN_KEEP: f"{who} kept cards",
        E.CODE_PROVED: f"{who} proved",
        E.CODE_FAILED: f"{who} failed to prove",
    }[code]


def canonical_name(name: str) -> str:
    """Put the cards of a 'Keep'/'Deal'/'Draw' name in canonical order; fold spaces and case."""
    words = " ".join(name.split())
    verb, _, rest = words.partition(" ")
    lookup = {c.lower(): c for c in CHARACTERS}
    if verb.lower() in ("keep", "deal", "draw") and rest:
        cards = [lookup.get(c.strip().lower(), c.strip()) for c in rest.split("+")]
        order = {c: i for i, c in enumerate(CHARACTERS)}
        cards.sort(key=lambda c: order.get(c, len(order)))
        return f"{verb.capitalize()} {'+'.join(cards)}"
    return words


def all_action_names() -> dict[str, int]:
    return {action_name(a): a for a in range(E.NUM_ACTIONS)}
