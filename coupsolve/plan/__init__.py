"""The planner: which tree a solve runs on, which builder makes it and in which precision, decided
once, before anything is built (:func:`choose`, returning a :class:`Plan`).

The order of a plan: the history tree is sized on the memory budget (:func:`measure_history`: a size
known without counting answers at once, else a count with a budget of histories); the public tree is
counted by its builder (:func:`measure_public`: the class walk whenever it takes the rules, else
stepping every history; :func:`coupsolve.trees.builders.public_builder` chooses); when the whole
public tree does not fit, a count by parts is planned in pieces (:func:`plan_pieces`). Which:
``representation="history"`` the history tree; ``public`` the public tree, whole when it fits, else
in pieces; ``pieces`` in pieces; ``auto`` the history tree when it fits, else the public tree when the
history tree is small enough for a public count to take minutes (:data:`AUTO_CLASS_MAX_HISTORIES`,
:data:`AUTO_PUBLIC_MAX_HISTORIES`), else a refusal that says what a public count would cost. The
precision follows the tree (:func:`precision_for`). What does not fit is refused with its figures
(:class:`PlanError`, a ``ValueError`` of one line).

Long steps say what they do through ``say`` (a function of one line; by default nothing is said), so
a command line prints them as they come; the :class:`Plan` returned holds the decisions and figures.
"""

from __future__ import annotations

from typing import NamedTuple

from coupsolve.plan.history import compile_needed, measure_history, say_compiling
from coupsolve.plan.options import (AUTO, Options, PlanError, asked_precision, budget, every, fmt,
                                    precision_for, progress_lines, silent, solve_threads)
from coupsolve.plan.public import COUNT_PARTS, measure_public, plan_pieces, public_hint

__all__ = ["AUTO", "COUNT_PARTS", "Options", "Plan", "PlanError", "asked_precision", "budget", "choose",
           "compile_needed", "every", "fmt", "measure_history", "measure_public", "plan_pieces",
           "precision_for", "progress_lines", "public_hint", "solve_threads", "survey"]


class Plan(NamedTuple):
    """A solve's tree, builder and precision, and the count it is built from.

    Attributes
    ----------
    rules : Rules
    builder : coupsolve.trees.builders.Builder
    size : Size
        The count (or, in pieces, the :class:`~coupsolve.trees.pieces.build.PiecesPlan`) to build from.
    precision : str
        The precision the solve runs in (``auto`` resolved for this tree).
    peak : int
        Estimated bytes at the peak of the build and the solve.
    budget : int or None
        The memory it was planned against.
    """

    rules: object
    builder: object
    size: object
    precision: str
    peak: int
    budget: int | None

    @property
    def tree(self) -> str:
        """``history``, ``public`` or ``pieces``."""
        return self.builder.tree

    @property
    def histories(self):
        """Histories of the game (the history tree's nodes), when the count knows them (else None)."""
        return getattr(self.size, "nodes" if self.tree == "history" else "histories", None)

    def build(self, say=silent):
        """``(tree for the solver, tree for the analysis)``: built from the plan's count, saying what it
        builds and its progress (Ctrl-C stops it)."""
        b = self.builder
        if b.tree == "pieces":
            say(f"building the public tree in {len(self.size.bounds) - 1} pieces by the class walk, "
                f"{self.size.workers} at a time (Ctrl-C stops) ...")
            return b.build(self.rules, self.size, progress_lines(say))
        if b.tree == "history":
            say_compiling(say)
        say(f"building the {'tree' if b.tree == 'history' else f'public tree by {b.label}'} (Ctrl-C "
            "stops) ...")
        stage = "{}: " if b.name == "classbuild" else ""  # the class walk's share is of a level's nodes
        report = every(5.0, lambda *a: say(f"  {stage.format(a[0])}{100 * a[-2] / a[-1]:.0f}% built"))
        return b.build(self.rules, self.size, report)


def _histories_first(rules, options, say):
    """The history tree's size when it fits (else None, with the size's histories for the public
    tree's refusals), or a refusal."""
    try:
        size, need, room = measure_history(rules, options, say, build=True)
    except PlanError as e:  # more histories than the budget holds: not tried on the public tree
        raise PlanError(f"{e} ({public_hint(rules, options=options)})") from None
    if room is None or need[2] <= room:
        return Plan(rules, _named("history"), size, precision_for(options, "history"), need[2], room)
    refusal = _no_public(rules, options, size, need, room)
    if refusal is not None:
        raise refusal
    say("the history tree does not fit: trying the public tree")
    return None


def _no_public(rules, options, size, need, room):
    """When the history tree of ``size`` does not fit: None if a solve goes on to the public tree, else
    its refusal (a :class:`PlanError`): the history tree asked for, or one whose public count would take
    hours (:data:`~coupsolve.plan.public.AUTO_CLASS_MAX_HISTORIES`)."""
    from coupsolve.plan import public  # its thresholds read when used
    from coupsolve.trees.builders import public_builder

    cap = public.AUTO_CLASS_MAX_HISTORIES if public_builder(rules)[0].name == "classbuild" else \
        public.AUTO_PUBLIC_MAX_HISTORIES
    if options.representation == "history" or size.nodes > cap:
        hint = ("--representation public" if options.representation == "history" else
                public_hint(rules, size.nodes, options))
        return PlanError(f"the build and solve need about {fmt(need[2])}, more than the {fmt(room)} of "
                         f"memory; try a lower --turn-limit or {hint}")
    return None


def _named(name):
    from coupsolve.trees.builders import named

    return named(name)


def _choose(rules, options, say):
    from coupsolve.trees.builders import public_builder

    rep = "public" if options.ray and options.representation != "pieces" else options.representation
    if rep in ("public", "pieces"):
        say(f"rules: {rules}")
    else:
        plan = _histories_first(rules, options, say)
        if plan is not None:
            return plan
    builder, why = public_builder(rules)
    if rep == "pieces" and builder.name != "classbuild":
        raise PlanError(f"--representation pieces builds by the class walk, which does not take {why}; "
                        "try --representation public")
    size, peak, room = measure_public(rules, options, say)
    if rep != "pieces" and (room is None or peak <= room):
        return Plan(rules, builder, size, precision_for(options, "public"), peak, room)
    if builder.name != "classbuild" or options.no_pieces:
        why = f" (--algorithm {options.algorithm} solves no tree in pieces)" if options.no_pieces else ""
        raise PlanError(f"the public tree's build and solve need about {fmt(peak)}, more than the "
                        f"{fmt(room)} of memory; try a lower --turn-limit{why}")
    pieces = plan_pieces(size, options, say, room, peak)
    return Plan(rules, _named("classpieces"), pieces, precision_for(options, "pieces"),
                pieces.peak_bytes(precision_for(options, "pieces"), options.predictive), room)


def choose(rules, options=None, say=silent) -> Plan:
    """The plan of a solve of ``rules`` with ``options`` (module docstring): the one place that
    chooses the tree, its builder and the precision.

    Raises
    ------
    PlanError
        What does not fit, with its figures and what to try.
    """
    options = options or Options()
    plan = _choose(rules, options, say)
    if plan.tree == "pieces" and options.precision == AUTO:
        say("precision: float32 (--precision auto: a tree in pieces is solved in float32, for its "
            "memory)")
    return plan


def survey(rules, options=None, say=silent) -> None:
    """What ``coupsolve info`` says: the history tree's size; with ``representation`` ``public`` or
    ``pieces`` also the public tree's (counted by its builder: minutes from turn limit 3 on) and, for
    the class walk's count by parts, its build in pieces. A refusal of the history tree is then said,
    not raised; one of the pieces is said too."""
    options = options or Options()
    if options.representation not in ("public", "pieces"):
        size, need, room = measure_history(rules, options, say)
        if room is None or need[2] <= room or options.representation == "history":
            say("(coupsolve info --representation public also counts the public tree)")
        else:
            _survey_next(rules, options, say, size, need, room)
        return
    try:
        measure_history(rules, options, say)
    except PlanError as e:
        say(f"history tree: {e}")
    size, peak, room = measure_public(rules, options, say)
    if _named("classbuild").owns(size) and (size.parts or options.representation == "pieces"):
        try:  # and in pieces, as a solve would build it when the whole tree does not fit
            plan_pieces(size, options, say, room, peak)
        except PlanError as e:
            say(str(e))


def _survey_next(rules, options, say, size, need, room):
    """``info`` of a history tree that does not fit: what a solve (``--representation auto``) does next,
    as :func:`choose` decides it: the refusal, or the public tree, whole or in pieces, from a count known
    without counting (cached, or packaged for the presets at turn limit 4); else what counting it would
    take."""
    refusal = _no_public(rules, options, size, need, room)
    if refusal is not None:
        say(f"a solve stops there: {refusal}")
        return
    builder = _named("classbuild")
    if sizecache_public(rules, options) is None:
        say(f"a solve goes on to the public tree: {public_hint(rules, size.nodes, options)}; coupsolve "
            "info --representation public counts it now (the count is cached for the solve)")
        return
    say("a solve goes on to the public tree (--representation auto):")
    public_size, peak, _ = measure_public(rules, options, say, known=True)
    if peak <= room:
        say("so a solve builds the public tree whole, and it fits" + _counted_first(rules, options, size))
        return
    if not builder.owns(public_size):
        say("so nothing fits here: try a lower --turn-limit, or --ray ADDRESS to solve on a cluster")
        return
    try:
        plan_pieces(public_size, options, say, room, peak)
    except PlanError as e:
        say(f"{e}, or --ray ADDRESS to hold the parts on a Ray cluster")
        return
    say("so a solve builds the public tree in pieces, and it fits" + _counted_first(rules, options, size))


def sizecache_public(rules, options):
    """The public tree's count known without counting (cached, or packaged), or None."""
    from coupsolve.plan.public import parts_of
    from coupsolve.trees import sizecache

    return sizecache.lookup_public(rules, parts_of(options), options.cache, known=True)


def _counted_first(rules, options, size):
    """``; it counts ... first`` when the public count known is the packaged one, not a cached count a
    solve builds from."""
    from coupsolve.plan.public import _minutes, parts_of
    from coupsolve.trees import sizecache

    if sizecache.lookup_public(rules, parts_of(options), options.cache) is not None:
        return ""
    return (f"; it counts the public tree first{_minutes(_named('classbuild'), size.nodes)}, as a tree "
            "is built only from a count of this very code")
