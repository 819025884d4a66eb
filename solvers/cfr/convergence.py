"""Measured strength of a solver's strategy along its run: exact exploitability or NashConv per step.

A curve is a list of :class:`Row`: after each iteration count of a schedule, the seconds spent
iterating so far (the measurements excluded) and the average strategy's exact strength on a whole
:class:`~solvers.GameTree` of the same game: the exploitability (``NashConv / 2``) of a two-player
zero-sum tree, the NashConv (the sum over players of the best-response gains) of any other
(:func:`strength`). :func:`mccfr_curve` runs a sampled solver (:class:`~solvers.mccfr.solver.MCCFRSolver`,
its average read onto the tree by :func:`solvers.mccfr.policy.tree_policy`); :func:`cfr_curve` the
exact CFR family (:class:`~solvers.Solver`, two-player zero-sum trees only).

This lives in :mod:`solvers` rather than ``benchmarks/``: it is game-agnostic library code (a tree
and a sampling game in, rows out) that tests and examples call; the timings it records are the
solvers' own step times, for plotting, and no test asserts them.
"""

from __future__ import annotations

from typing import NamedTuple

from solvers.history.best_response import exploitability, nash_conv
from solvers.mccfr.solver import MCCFRSolver
from solvers.mccfr.policy import tree_policy
from solvers.cfr.solver import Solver, int_arg

__all__ = ["Row", "strength", "mccfr_curve", "cfr_curve", "format_rows"]


class Row(NamedTuple):
    """One point of a curve.

    Attributes
    ----------
    solver : str
        What ran (``"mccfr-external"``, ``"mccfr-outcome"``, ``"cfr+"``, ...).
    iterations : int
    seconds : float
        Seconds spent iterating up to this point (compilation and measurements not included).
    value : float
        The average strategy's exact strength, :attr:`measure`.
    measure : str
        ``"exploitability"`` (two-player zero-sum tree) or ``"nash_conv"``.
    """

    solver: str
    iterations: int
    seconds: float
    value: float
    measure: str


def strength(tree, policy):
    """``(value, measure)``: exploitability on a two-player zero-sum tree, else NashConv."""
    if tree.two_player_zero_sum:
        return exploitability(tree, policy), "exploitability"
    return nash_conv(tree, policy), "nash_conv"


def _schedule(schedule):
    counts = [int_arg("schedule entry", n, 1) for n in schedule]
    if not counts or any(b <= a for a, b in zip(counts, counts[1:])):
        raise ValueError(f"schedule must be increasing iteration counts, got {list(schedule)!r}")
    return counts


def _curve(name, tree, schedule, step, elapsed, policy):
    """Step to each count of ``schedule``; measure ``policy()`` there."""
    rows, done = [], 0
    for n in _schedule(schedule):
        step(n - done)
        done = n
        value, measure = strength(tree, policy())
        rows.append(Row(name, n, elapsed(), value, measure))
    return rows


def mccfr_curve(game, tree, schedule, *, seed=0, sampling="external", max_infosets=None, **options):
    """Train an :class:`~solvers.mccfr.solver.MCCFRSolver` along ``schedule``, measuring on ``tree``.

    Parameters
    ----------
    game : SamplingGame
        The sampling game of ``tree``'s game (``tree.game_id == game.game_id``).
    tree : GameTree
        Its whole tree, children in the game's move order (as ``GameTree.from_openspiel`` and
        a game's own tree builder make them).
    schedule : sequence of int
        Increasing iteration counts at which to measure.
    seed : int
    sampling : {"external", "outcome", "probe"}
        ("probe" for a game whose binding provides the probing kernel)
    max_infosets : int, optional
        The table's room (default: the tree's information sets, every one the sampling can meet).
    **options
        Passed to :class:`~solvers.mccfr.solver.MCCFRSolver` (``regret``, ``average``, ``epsilon``).

    Returns
    -------
    list of Row
        ``solver`` is ``"mccfr-<sampling>"``.
    """
    room = tree.num_infosets if max_infosets is None else max_infosets
    solver = MCCFRSolver(game, max_infosets=max(room, 1), max_actions=max(tree.num_actions, 1),
                         seed=seed, sampling=sampling, **options)
    solver.step(0)  # compiled (or loaded from the cache) before the clock starts
    solver.seconds = 0.0
    return _curve(f"mccfr-{sampling}", tree, schedule, solver.step, lambda: solver.seconds,
                  lambda: tree_policy(solver, tree))


def cfr_curve(tree, schedule, algorithm="cfr+", **options):
    """Run an exact CFR-family :class:`~solvers.Solver` along ``schedule``, measuring on ``tree``.

    ``options`` go to :class:`~solvers.Solver` (``precision``, ``updates``, ``threads``). Two-player
    zero-sum trees only (the solver refuses others). Returns a list of :class:`Row` named
    ``algorithm``.
    """
    solver = Solver(tree, algorithm, **options)
    solver.step(0)
    solver.seconds = 0.0
    return _curve(algorithm, tree, schedule, solver.step, lambda: solver.seconds,
                  solver.average_policy)


def format_rows(rows):
    """The rows as a plain-text table (one line each, a header first)."""
    lines = [f"{'solver':<16} {'iterations':>11} {'seconds':>10} {'measure':<15} {'value':>12}"]
    lines += [f"{r.solver:<16} {r.iterations:>11,} {r.seconds:>10.3f} {r.measure:<15} "
              f"{r.value:>12.6g}" for r in rows]
    return "\n".join(lines)
