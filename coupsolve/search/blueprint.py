"""A full-length blueprint (a strategy trained by sampling over the features abstraction) as a
re-solving player reads it: each player's range at a public state, and the blueprint's features of a
history.

A re-solve starts from a public state with a range for each player (:mod:`coupsolve.trees.rooted`):
the probability of each private state there under the player's strategy so far. Bayes' rule gives it
exactly: the product of the player's own move probabilities along any history of that private state
(chance's and the other player's are the same for every private state of the player, so they cancel
once the range is normalised with the chance probabilities, as the rooted tree does). :meth:`Blueprint.ranges`
computes it in compiled code for every private state at once (:func:`solvers.mccfr.rollout.path_reach`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solvers.mccfr.kernel import call_kernel
from solvers.mccfr.rollout import path_reach

from coupsolve import engine as E
from coupsolve.engine.core import bluffs
from coupsolve.engine.honest import proves_false
from coupsolve.sampling.keys import FEATURES, features_init, features_step
from coupsolve.strategy.shipped import named, resolve
from coupsolve.strategy.solved import StrategyError

__all__ = ["Blueprint", "MODELS", "model_weight"]

#: The opponent models a blueprint's ranges are read under (:meth:`Blueprint.ranges`): the blueprint
#: itself, and the honest blueprint, an honest and credulous player: it plays the blueprint's strategy
#: over the moves that claim nothing it cannot back and challenge only a claim it sees is false
#: (renormalised; where the blueprint plays none of them, every such move alike), so in a challenge
#: round it passes unless it can prove the claim false, and then it challenges.
MODELS = ("blueprint", "honest")


@njit(cache=True, inline="always")
def model_weight(P, s, p, a, c):
    """The weight opponent model ``c`` (an index into :data:`MODELS`) gives seat ``p``'s action ``a``
    at ``s``: 1 for every move of the blueprint; for the honest blueprint, 0 for a claim the seat
    cannot back and, in a challenge round, 0 for the move the seat's view of the claim rules out (a
    challenge of a claim it cannot prove false, a pass on one it can), 1 for the others."""
    if c != 1:
        return 1.0
    if bluffs(s, p, a):
        return 0.0
    if a == E.ACT_CHALLENGE or a == E.ACT_PASS:  # proves_false is False outside a challenge round
        return 1.0 if proves_false(P, s, p) == (a == E.ACT_CHALLENGE) else 0.0
    return 1.0


@njit(cache=True, nogil=True)
def _features_reach(c, P, W, n, state_size, max_moves, paths, lengths, seat, table, stats, avg, prior, out):
    """:func:`solvers.mccfr.rollout.path_reach` for Coup's features game, under model ``c``."""
    return path_reach(FEATURES, model_weight, c, P, W, n, state_size, max_moves, paths, lengths, seat, table,
                      stats, avg, prior, out)


class Blueprint:
    """A strategy trained by sampling over the features abstraction, for two players: its ``rules``,
    ``solver`` (an :class:`~solvers.mccfr.solver.MCCFRSolver`), training ``meta``, sampling ``game``
    and ``table`` (the arrays the compiled readers take); ``source`` names where it came from.
    :meth:`load` reads a train file.

    Raises
    ------
    StrategyError
        In one line, for a strategy that is not of two players over the features abstraction.
    """

    def __init__(self, rules, solver, meta, source=""):
        from coupsolve.strategy.trained import key_version, make_game

        self.rules, self.solver, self.meta, self.source = rules, solver, meta, str(source)
        if rules.players != 2 or meta.get("abstraction") != "features":
            raise StrategyError(f"{self.source or 'the blueprint'}: a re-solving player needs a two-player "
                                "blueprint over the features abstraction")
        self.warm = float(meta.get("warm_start", 0.0) or 0.0)
        self.game = make_game(rules, "features", None, self.warm, key=key_version(meta))
        self.table = solver.lookup_arrays()

    @classmethod
    def load(cls, source="blueprint"):
        """The train file ``source`` (a path, or the name of a shipped strategy), or a one-line
        :class:`StrategyError`."""
        from coupsolve.strategy.trained import is_trained, load_trained

        path, name = resolve(source), named(source)  # the file; what messages call it
        if not is_trained(path):
            raise StrategyError(f"{name}: not a strategy trained by sampling (coupsolve train)")
        return cls(*load_trained(path), source=name)

    def ranges(self, root, model: str = "blueprint") -> tuple:
        """Each player's range at ``root`` (a :class:`~coupsolve.trees.rooted.PublicRoot` of the
        blueprint's rules) when both play opponent model ``model`` (:data:`MODELS`): :meth:`reach` of
        each seat."""
        return tuple(self.reach(root, seat, model) for seat in (0, 1))

    def reach(self, root, seat: int, model: str = "blueprint") -> np.ndarray:
        """``seat``'s range at ``root`` under opponent model ``model`` (:data:`MODELS`): per private
        state, its own reach (one history of it suffices: all of them reach it with the same own
        moves). Not normalised: the reaches of two models weigh the seat's private states on one scale
        (chance's and the other player's moves are the same under both), so a mixture of models is the
        same mixture of their reaches."""
        if model not in MODELS:
            raise ValueError(f"an opponent model is one of {', '.join(MODELS)}, not {model!r}")
        node, g, t = root.node, self.game, self.table
        first = np.unique(node.entry[:, seat], return_index=True)[1]
        paths = np.ascontiguousarray(node.paths[first], np.int32)
        lengths = (paths >= 0).sum(axis=1).astype(np.int64)
        out = np.ones(first.size)
        bad = call_kernel(_features_reach, MODELS.index(model), g.params, g.scratch, g.num_players, g.state_size,
                          g.max_moves, paths, lengths, seat, t["table"], t["stats"], t["average"], self.warm > 0, out)
        if bad >= 0:
            raise ValueError(f"history {paths[bad, :lengths[bad]].tolist()} is not a game of the blueprint")
        return out

    def features_state(self, history) -> np.ndarray:
        """The features game's state (the engine's, then its own entries: the claims made so far) after
        the moves of ``history`` from the game's start."""
        g = self.game
        s = np.zeros(g.state_size, np.int32)
        h = np.zeros((g.num_players, 2), np.uint64)
        features_init(g.params, s, h, g.scratch)
        for a in history:
            features_step(g.params, s, h, int(a), g.scratch)
        return s
