"""Where a re-solve is rooted (:attr:`~coupsolve.search.resolve.SearchSettings.root`): at the decision
itself, or where the current turn began (or after the acting player's latest choice in it); the
module docstring of :mod:`coupsolve.search.resolve`, step 1, says why the first is the default."""

from __future__ import annotations

__all__ = ["ROOTS", "replay", "root_length", "root_of"]

#: Where a re-solve may be rooted (:attr:`~coupsolve.search.resolve.SearchSettings.root`):
#: ``"here"``, at the decision itself, or ``"turn"``, at the turn's start or after the player's latest
#: choice in it.
ROOTS = ("here", "turn")


def replay(rules, history):
    """The game's state after each prefix of ``history`` (the empty one first), or ``ValueError``
    where the history does not stop at a decision."""
    from coupsolve.search.own import _game

    states = [_game(rules).new_initial_state()]
    for a in history:
        states.append(states[-1].clone())
        states[-1].apply_action(int(a))
    if states[-1].is_terminal() or states[-1].is_chance_node():
        raise ValueError("the history does not stop at a decision")
    return states


def root_of(states, where):
    """:func:`root_length` of the replayed ``states``."""
    if where not in ROOTS:
        raise ValueError(f"a re-solve's root is one of {', '.join(ROOTS)}, not {where!r}")
    now = states[-1]
    if where == "here":
        return len(states) - 1
    me, turn, start = now.current_player(), now.turn, None
    for i, state in enumerate(states[:-1]):
        if state.is_chance_node() or state.turn != turn:
            continue
        if start is None:
            start = i
        if state.current_player() == me and len(state.legal_actions()) > 1:
            start = None  # its own choice: the root comes after it
    return len(states) - 1 if start is None else start


def root_length(rules, history, where: str = "here") -> int:
    """How many of ``history``'s moves lead to the root of the re-solve at the decision it reaches
    (the module docstring): with ``where="here"``, all of them; with ``where="turn"``, the first
    decision of the current turn, or the first decision after the acting player's latest choice in it
    (a decision with more than one legal move), whichever is later. ``ValueError`` where ``history``
    does not stop at a decision, or ``where`` is not one of :data:`ROOTS`."""
    return root_of(replay(rules, history), where)
