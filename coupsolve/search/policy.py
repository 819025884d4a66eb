"""The re-solving player as an OpenSpiel policy (:class:`ResolvingPolicy`): each of its moves a re-solve
(:func:`coupsolve.search.resolve.resolve`), its own range kept through the game
(:class:`~coupsolve.search.own.OwnRange`)."""

from __future__ import annotations

from open_spiel.python import policy as os_policy

from coupsolve.search.own import OwnRange
from coupsolve.search.resolve import SearchSettings, check_safe, resolve
from coupsolve.strategy.trained import trained_policy
from coupsolve.trees.stepwalk.descend import TooManyHistories

__all__ = ["ResolvingPolicy"]


class ResolvingPolicy(os_policy.Policy):
    """A re-solving player of the blueprint's game as an OpenSpiel policy: each call of
    :meth:`action_probabilities` re-solves at the state (:func:`~coupsolve.search.resolve.resolve`), so
    OpenSpiel's tools and :mod:`coupsolve.evaluation.arena` play it as any other policy. ``last`` is the
    last :class:`~coupsolve.search.resolve.Resolution` (what it thought; None where the root was too
    large to re-solve and the blueprint played, which ``fallbacks`` counts)."""

    def __init__(self, game, blueprint, settings: SearchSettings = SearchSettings()):
        if getattr(game, "rules", None) != blueprint.rules:
            raise ValueError(f"game {game} is not the blueprint's ({blueprint.rules})")
        check_safe(settings)
        super().__init__(game, [0, 1])
        self.blueprint, self.settings, self.last = blueprint, settings, None
        self.own = OwnRange(game.rules)
        self.table = trained_policy(blueprint.solver, game, blueprint.meta)
        self.fallbacks = 0

    def opening_due(self, state) -> bool:
        """Whether the move at ``state`` waits for the opening's solve (:mod:`coupsolve.search.opening`)."""
        from coupsolve.search.opening import covers, kept

        return covers(state, self.settings) and not kept(self.blueprint, self.settings, state.current_player())

    def action_probabilities(self, state, player_id=None):
        """``{action: probability}`` at ``state`` (OpenSpiel's ``Policy`` interface); a state with one
        legal action is not re-solved."""
        legal, history = state.legal_actions(), state.history()
        self.own.follow(history)
        if len(legal) == 1:
            return {int(legal[0]): 1.0}
        try:
            self.last = resolve(self.blueprint, history, self.settings, self.own)
        except TooManyHistories:  # a root too large to re-solve: the blueprint's move
            self.last, self.own.late = None, True  # and no exact own range after it
            self.fallbacks += 1
            return self.table.action_probabilities(state)
        self.own.add(self.last)
        return self.last.probabilities
