"""The plan of a training run (``coupsolve train``): which MCCFR sampling and information sets, when
neither is given.

External sampling over exact information sets is MCCFR's plainest form, but one iteration branches at
every decision of the updated player: in a game played to the end its first iteration alone fills any
table (``coupsolve train --players 3`` stopped with "the information-set table is full ... after 0
finished iterations"). Probing over the features abstraction learns such games (docs/sampling.md,
docs/howto/players.md). So the default is external sampling over exact keys only for a game whose
information sets are known to fit the table: a two-player game whose size is known without counting
(:mod:`coupsolve.trees.sizecache`: the presets at turn limits 1 to 4, or a count cached by an earlier
``info`` or ``solve``); every other game, three or more players and every full-length game among them,
trains by probing over the features abstraction. A resumed run keeps the options its checkpoint
records.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["TrainingPlan", "choose_training"]


class TrainingPlan(NamedTuple):
    """The sampling and the abstraction of a run, and why (one clause, said by the command line)."""

    sampling: str
    abstraction: str
    why: str


def choose_training(rules, sampling=None, abstraction=None, *, room=1 << 20, resume=None,
                    cache=True) -> TrainingPlan:
    """The sampling and abstraction of a training of ``rules`` (module docstring).

    Parameters
    ----------
    rules : Rules
    sampling, abstraction : str, optional
        Given: kept (the other, when not given, is the plain default: ``external``, ``exact``).
    room : int
        Information sets the table holds.
    resume : str, optional
        A checkpoint: its recorded options, when neither is given.
    cache : bool
        Ask the sizes known without counting (False: the game is taken as unknown).
    """
    from solvers.options import SAMPLINGS

    from coupsolve.sampling import ABSTRACTIONS

    if sampling is not None or abstraction is not None:
        return TrainingPlan(sampling or SAMPLINGS[0], abstraction or ABSTRACTIONS[0], "as given")
    if resume is not None:
        recorded = _recorded(resume)
        if recorded is not None:
            return TrainingPlan(*recorded, f"as {resume} was trained")
    infosets = _known_infosets(rules, cache)
    if infosets is not None and infosets <= room:
        return TrainingPlan("external", "exact", f"the game's {infosets:,} information sets fit the "
                                                 f"table of {room:,}")
    what = ("a game of more than two players" if rules.players > 2 else
            "a game played to the end" if rules.turn_limit >= 100 else
            "a game whose information sets are not known to fit the table" if infosets is None else
            f"a game of {infosets:,} information sets, more than the table's {room:,}")
    return TrainingPlan("probe", "features", f"{what}: exact keys and external sampling would fill "
                                             "the table; --sampling external --abstraction exact asks "
                                             "for them anyway")


def _known_infosets(rules, cache):
    """The information sets of the two-player ``rules``' game tree when known without counting."""
    if rules.players != 2:
        return None
    from coupsolve.trees import sizecache

    known = sizecache.lookup(rules, cache)
    return None if known is None or known.size is None else known.size.infosets


def _recorded(resume):
    """``(sampling, abstraction)`` recorded in the checkpoint ``resume``, or None when it cannot be read
    (the resume then refuses it with its own message)."""
    from solvers.mccfr.tablefile import read_table

    try:
        meta, _ = read_table(resume)
    except (ValueError, OSError):
        return None
    return meta.get("sampling") or "external", meta.get("abstraction") or "exact"
