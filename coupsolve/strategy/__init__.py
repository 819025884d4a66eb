"""Strategy files: a solve's (:mod:`~coupsolve.strategy.solved`, on a history tree, a public tree or in
pieces) and a training's (:mod:`~coupsolve.strategy.trained`), read back with every check
(:func:`load`), made OpenSpiel policies (:meth:`Strategy.policy`), and the exact analysis kept with a
strategy solved in pieces (:mod:`~coupsolve.strategy.kept`).

Files are numpy ``.npz`` with JSON metadata, never pickle. A file that cannot be used raises
:class:`StrategyError` (a ``ValueError`` of one line naming the file and why)::

    from coupsolve.strategy import load

    strategy = load("strategy.npz")
    policy = strategy.policy()          # an open_spiel.python.policy.Policy of its game
"""

from __future__ import annotations

from typing import NamedTuple

from coupsolve.plan.options import silent
from coupsolve.strategy.shipped import resolve
from coupsolve.strategy.kept import analyse_and_keep, analyse_sampled, rebuild_pieces, stored_analysis
from coupsolve.strategy.solved import StrategyError, leaves_of, load_solved, read_result, record, resume_iterations
from coupsolve.strategy.trained import describe, is_trained, load_trained, save_trained

__all__ = ["Strategy", "StrategyError", "analyse_and_keep", "analyse_sampled", "describe", "is_trained",
           "load", "load_solved", "load_trained", "rebuild_pieces", "record", "resume_iterations", "save_trained",
           "stored_analysis"]


class Strategy(NamedTuple):
    """A strategy file read back (:func:`load`).

    Attributes
    ----------
    path : str
    rules : Rules
    kind : {"history", "public", "pieces", "trained", "depth-limited"}
        What it was solved or trained on ("depth-limited": a history tree cut at a turn limit whose
        leaves let each player choose a continuation of a blueprint, :mod:`coupsolve.depth`; its
        ``tree`` is that :class:`~coupsolve.depth.DepthLimitedGame`, and its OpenSpiel policy the cut
        game's part).
    tree : CoupTree or CoupPublicTree or DepthLimitedGame or None
        The tree rebuilt for it (none in pieces, none trained).
    result : solvers.SolveResult or None
        A solve's result (none trained).
    solver : solvers.MCCFRSolver or None
        A training's solver (none solved).
    meta : dict or None
        A training's metadata (none solved).
    """

    path: str
    rules: object
    kind: str
    tree: object = None
    result: object = None
    solver: object = None
    meta: dict | None = None

    @property
    def what(self) -> str:
        """What made it, in a few words ("cfr+", "2,000 MCCFR iterations")."""
        if self.kind == "trained":
            return f"{self.meta['iterations']:,} MCCFR iterations"
        return f"{self.result.algorithm}"

    def game(self):
        """The ``python_coup`` game of its rules."""
        from coupsolve.openspiel.game import load_game

        return load_game(self.rules)

    def policy(self, game=None):
        """The strategy as an OpenSpiel policy of ``game`` (default: :meth:`game`): by history on a
        history tree (:class:`~coupsolve.openspiel.policy.HistoryTreePolicy`), by the information set's
        key on a public tree or in pieces (:class:`~coupsolve.openspiel.policy.PublicTreePolicy`), the
        sampled table of a training (:func:`~coupsolve.strategy.trained.trained_policy`)."""
        from solvers import PublicTree

        from coupsolve.openspiel.policy import HistoryTreePolicy, PublicTreePolicy
        from coupsolve.strategy.trained import trained_policy

        game = self.game() if game is None else game
        if self.kind == "trained":
            return trained_policy(self.solver, game, self.meta)
        if self.kind == "pieces":
            return PublicTreePolicy.of_result(game, self.rules, self.result)
        if self.kind == "public":
            return PublicTreePolicy(game, self.tree, self.result.average_policy)
        if self.kind == "depth-limited":  # the cut game's part: the leaves' choices are not moves
            cut = self.tree.cut
            kind = PublicTreePolicy if isinstance(self.tree.tree, PublicTree) else HistoryTreePolicy
            return kind(game, cut, self.result.average_policy[:cut.tree.num_actions])
        return HistoryTreePolicy(game, self.tree, self.result.average_policy)

    def analyse(self, sampled=False, games=1000, seed=0, meta=None, say=silent):
        """The analysis of a solved strategy: exact on the tree rebuilt for it
        (:func:`coupsolve.analysis.analyse`); in pieces, the exact one kept in its file, else its
        pieces rebuilt for it (and it kept), else (or when ``sampled``) estimated from ``games``
        self-play games with seed ``seed``. Says which through ``say``."""
        from coupsolve.analysis import analyse

        if self.kind == "trained":
            raise StrategyError(f"{self.path}: a trained strategy is analysed from self-play "
                                "(coupsolve.analysis.sampled)")
        result = self.result
        if self.kind != "pieces":
            say("analysing the strategy ...")
            tree = self.tree.coup_tree if self.kind == "depth-limited" else self.tree
            return analyse(tree, result.average_policy, meta=meta)
        result.current_policy = None  # not analysed: let go before a rebuild
        analysis = None if sampled else stored_analysis(self.path, result)
        if analysis is not None:
            say("the exact analysis kept with the strategy (computed on its public tree)")
            return analysis
        pieces, why = (None, "as asked (--sampled)") if sampled else \
            rebuild_pieces(self.path, self.rules, result, say)
        if pieces is None:
            say(f"a strategy solved in pieces, {why}: its analysis is estimated from {games:,} "
                f"self-play games (seed {seed}) ...")
            return analyse_sampled(self.rules, result, games, seed, meta)
        return analyse_and_keep(pieces, result, meta, say, store=self.path)


def load(path, say=silent) -> Strategy:
    """The strategy file ``path``, a solve's or a training's, with every check; a solve's tree is
    rebuilt (said through ``say``).

    Raises
    ------
    StrategyError
        Naming the file and why it cannot be used.
    """
    path = resolve(path)  # a shipped strategy's name, or a path
    if is_trained(path):
        rules, solver, meta = load_trained(path)
        return Strategy(path, rules, "trained", solver=solver, meta=meta)
    read = read_result(path)  # once: the loaders below take it
    if leaves_of(read[1]) is not None:
        from coupsolve.depth.build import load_depth_limited

        rules, tree, result = load_depth_limited(path, say, read)
        return Strategy(path, rules, "depth-limited", tree=tree, result=result)
    rules, tree, result = load_solved(path, say, read)
    kind = {"PublicPieces": "pieces", "PublicTree": "public"}.get(result.tree_type, "history")
    return Strategy(path, rules, kind, tree=tree, result=result)
