"""Coup's game trees, counted before they are built and built straight from the compiled engine.

- :mod:`~coupsolve.trees.history`: every history (a :class:`solvers.GameTree`), the quickest to build;
- :mod:`~coupsolve.trees.stepwalk`: the public tree by stepping every history (any rules);
- :mod:`~coupsolve.trees.classwalk`: the public tree by walking private *classes* (two players, the
  common rules), no history stepped;
- :mod:`~coupsolve.trees.pieces`: the class walk's public tree as a trunk and parts, built apart;
- :mod:`~coupsolve.trees.builders`: the registry of these builders (what rules each takes, how it
  counts and builds) and the :class:`~coupsolve.trees.builders.Size` protocol their counts share;
- :mod:`~coupsolve.trees.sizecache`: sizes known without counting (packaged, and the user's counts);
- :mod:`~coupsolve.trees.background`: long compiled passes that Ctrl-C stops and that report progress.
"""

from coupsolve import engine as _E
from coupsolve.rules import Rules as _Rules


def check_rules(rules, two_players: bool = False) -> None:
    """Refuse what is not a :class:`~coupsolve.Rules` (TypeError) or, with ``two_players``, rules of
    more than two players, for what solves only two-player zero-sum games (ValueError)."""
    if not isinstance(rules, _Rules):
        raise TypeError(f"expected a coupsolve.Rules, got {type(rules).__name__}")
    if two_players and rules.players != 2:
        raise ValueError(f"players: the solvers handle two-player zero-sum games; these rules have "
                         f"{rules.players} players")


def max_depth(rules) -> int:
    """The most steps a game of ``rules`` can take (the engine's bound): the depth of its trees."""
    return _E.game_bounds(rules.params())[0]
