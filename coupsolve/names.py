"""Names of actions, chance outcomes and observation tokens, exactly as the rules documentation spells them.

Plain Python over the id layout of :mod:`coupsolve.engine.tables` (no numba): ``action_name(16 + 1)`` is
``'Steal p1'``, ``chance_name(5, PH_DEAL)`` is ``'Deal Duke+Duke'``, ``token_name`` renders an observation
token. :func:`canonical_name` folds a typed name to the form these functions print.
"""

from __future__ import annotations

from coupsolve.engine import tables as E
from coupsolve.rules import CHARACTERS


def multiset_name(m: int, mask: int = 0) -> str:
    """Cards of multiset code m; ``mask`` marks the marked copies among them (bit k: marked card k)."""
    first, second = int(E.MS_FIRST[m]), int(E.MS_SECOND[m])
    cards = [first] if second < 0 else [first, second]
    return _cards_name(cards, mask)


def card_name(c: int, marked: bool = False) -> str:
    """'Ambassador', or with its mark 'Ambassador (Inheritance)'."""
    if marked:
        return f"{CHARACTERS[c]} ({E.MARK_NAMES[int(E.CHAR_MARK[c])]})"
    return CHARACTERS[c]


def _cards_name(cards, mask: int) -> str:
    """Cards in canonical order, the plain copy of a character before its marked copy."""
    names = []
    for i, c in enumerate(cards):
        m = int(E.CHAR_MARK[c])
        last = i + 1 == len(cards) or cards[i + 1] != c
        names.append(card_name(c, m >= 0 and (mask >> m) & 1 and last))
    return "+".join(names)


def _action_names() -> tuple[str, ...]:
    """The name of every player action id, in id order (the layout of :mod:`coupsolve.engine.tables`)."""
    seats = range(E.MAXP)
    blocks = [  # (first id of the block, its names)
        (E.ACT_INCOME, E.KIND_NAMES[:E.ACT_COUP]),
        (E.ACT_COUP, [f"{kind} p{t}" for kind in ("Coup", "Assassinate", "Steal") for t in seats]),
        (E.ACT_PASS, ["Pass", "Challenge"]),
        (E.ACT_BLOCK, [f"Block {c}" for c in CHARACTERS]),
        (E.ACT_LOSE, [f"Lose {c}" for c in CHARACTERS]),
        (E.ACT_KEEP, [f"Keep {multiset_name(m)}" for m in range(E.NUM_MULTISETS)]),
        (E.ACT_CHOOSE, [f"Choose {c}" for c in CHARACTERS]),
        (E.ACT_SCOUP, [f"Coup p{t} {c}" for t in seats for c in CHARACTERS]),
        (E.ACT_DEFECT, ["Defect", "Faction Up", "Faction Down", "Pay", "Prove", "Decline", "Treaty"]),
        (E.ACT_VENGEANCE, [f"Vengeance p{t}" for t in seats]),
        (E.ACT_LOSE_MARKED, [f"Lose {card_name(int(c), True)}" for c in E.MARK_CHAR]),
        (E.ACT_KEEP_MARKED, [f"Keep {multiset_name(int(m), int(mask))}" for m, mask in zip(E.KM_M, E.KM_MASK)]),
    ]
    names = []
    for first, block in blocks:
        assert len(names) == first, f"action names out of step with the id layout at {first}"
        names += block
    assert len(names) == E.NUM_ACTIONS and names[E.ACT_PAY] == "Pay"
    return tuple(names)


ACTION_NAMES = _action_names()


def action_name(action: int, pay: int | None = None) -> str:
    """Name of a player action id (``0 <= action < NUM_ACTIONS``; layout in :mod:`coupsolve.engine.tables`).

    ``pay`` is the challenge buyout's amount, part of the name ``Pay 5`` (just ``Pay`` when not given).
    """
    a = int(action)
    if not 0 <= a < E.NUM_ACTIONS:
        raise ValueError(f"{action!r} is not a Coup action id (0 to {E.NUM_ACTIONS - 1})")
    if a == E.ACT_PAY and pay:
        return f"Pay {int(pay)}"
    return ACTION_NAMES[a]


def declared_name(s) -> str:
    """'p0 Steal p1': the declared action of the engine state ``s`` (``int32[S_SIZE]`` or a tuple) with its
    actor and target."""
    a = s[E.S_ACTION]
    if E.KIND_TARGETED[a]:
        a += max(s[E.S_TARGET], 0)
    return f"p{s[E.S_ACTOR]} {action_name(a)}"


def event_multiset_name(i: int, mask: int = 0) -> str:
    counts = E.EV_MS[i]
    return _cards_name([c for c in range(E.NCH) for _ in range(counts[c])], mask)


def chance_name(outcome: int, phase: int) -> str:
    """Name of a chance outcome at a chance node of the given phase."""
    o = int(outcome)
    if E.CH_START <= o < E.CH_FLIP:
        return f"Start p{o - E.CH_START}"
    if E.CH_FLIP <= o < E.CH_FLIP_MARKED:
        return f"Flip {CHARACTERS[o - E.CH_FLIP]}"
    if E.CH_FLIP_MARKED <= o < E.CH_MARKED:
        return f"Flip {card_name(int(E.MARK_CHAR[o - E.CH_FLIP_MARKED]), True)}"
    if E.CH_EVENTS <= o < E.NUM_CHANCE_OUTCOMES:
        i, mask = divmod(o - E.CH_EVENTS, 8)
        return f"Events {event_multiset_name(i, mask)}"
    if E.CH_MARKED <= o < E.CH_EVENTS:
        m, mask = divmod(o - E.CH_MARKED, 8)
        verb = "Deal" if phase in (E.PH_DEAL, E.PH_DEAL_ONE) else "Draw"
        return f"{verb} {multiset_name(m, mask)}"
    if not 0 <= o < E.NUM_MULTISETS:
        raise ValueError(f"{outcome!r} is not a Coup chance outcome id (0 to {E.NUM_CHANCE_OUTCOMES - 1})")
    verb = "Deal" if phase in (E.PH_DEAL, E.PH_DEAL_ONE) else "Draw"
    return f"{verb} {multiset_name(o)}"


def token_name(token: int, pay: int | None = None) -> str:
    """A readable observation token: 'p1 Challenge', 'p0 Draw Duke', 'p1 drew 2 cards', ..."""
    seat, code = divmod(int(token), E.TOKEN_SEAT)
    who = f"p{seat - 1}"
    if code < E.CODE_DEAL:
        return f"{who} {action_name(code, pay)}"
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
        E.CODE_MISSED: f"{who} missed by the Coup",
        E.CODE_EVENTS: "event cards dealt",
        E.CODE_HIDDEN_MARKS: f"{who} marks hidden",
    }.get(code) or _variant_token(who, code)


def _variant_token(who: str, code: int) -> str:
    if E.CODE_SHOW <= code < E.CODE_MISSED:
        return f"{who} shows {multiset_name(code - E.CODE_SHOW)}"
    if E.CODE_FLIP <= code < E.CODE_EVENTS:  # the public flip token names the flip outcome
        return chance_name(E.CH_FLIP + code - E.CODE_FLIP, E.PH_FLIP)
    if E.CODE_FLIP_MARKED <= code < E.CODE_MARKS:
        return chance_name(E.CH_FLIP_MARKED + code - E.CODE_FLIP_MARKED, E.PH_FLIP)
    if E.CODE_MARKS <= code < E.CODE_HIDDEN_MARKS:
        mask = code - E.CODE_MARKS
        marked = [card_name(int(E.MARK_CHAR[k]), True) for k in range(3) if mask >> k & 1]
        return f"{who} marked: {', '.join(marked) if marked else 'none'}"
    raise ValueError(f"{code} is not an observation code")


def canonical_name(name: str) -> str:
    """Put the cards of a 'Keep'/'Deal'/'Draw' name in canonical order; fold spaces and case."""
    words = " ".join(name.split())
    verb, _, rest = words.partition(" ")
    lookup = {c.lower(): c for c in CHARACTERS}
    if verb.lower() in ("keep", "deal", "draw", "events") and rest:
        order = {c: i for i, c in enumerate(CHARACTERS)}
        cards = []
        for card in rest.split("+"):
            name, _, mark = card.strip().partition(" ")
            name = lookup.get(name.lower(), name)
            mark = mark.strip()
            if mark:
                mark = mark.strip("()").capitalize()
                mark = f" ({mark})"
            cards.append((order.get(name, len(order)), mark != "", name + mark))
        cards.sort()
        return f"{verb.capitalize()} {'+'.join(c for _, _, c in cards)}"
    return words


def all_action_names(pay: int | None = None) -> dict[str, int]:
    return {action_name(a, pay): a for a in range(E.NUM_ACTIONS)}
