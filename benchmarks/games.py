"""The benchmark games: Kuhn, Leduc, Liar's Dice (one die each) and the Coup selection setup.

Each :class:`Game` gives the OpenSpiel game (what OpenSpiel's and LiteEFG's
solvers run on; for Coup the Python game ``python_coup``) and coupsolve's flat
tree of the same game (``GameTree.from_openspiel`` for the OpenSpiel games,
the compiled builder ``coupsolve.build_coup_tree`` for Coup, whose trees equal
OpenSpiel's enumeration of ``python_coup``; see ``tests/test_coup_tree.py``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: Order of the games in every table.
ORDER = ("kuhn", "leduc", "liars_dice", "coup1", "coup2", "coup3")


@dataclass
class Game:
    key: str
    label: str
    openspiel: str | None = None     # pyspiel game string (None for Coup)
    turn_limit: int | None = None    # Coup selection setup
    _tree: object = field(default=None, repr=False)
    _game: object = field(default=None, repr=False)
    build_seconds: float = float("nan")
    build_info: dict = field(default_factory=dict)  # the Coup builder's sizes and pass seconds

    @property
    def is_coup(self):
        return self.turn_limit is not None

    def rules(self):
        from coupsolve import Rules

        return Rules.two_player_selection(turn_limit=self.turn_limit)

    def openspiel_game(self):
        """The OpenSpiel game (cached)."""
        if self._game is None:
            if self.is_coup:
                import coupsolve

                self._game = coupsolve.load_game(self.rules())
            else:
                import pyspiel

                self._game = pyspiel.load_game(self.openspiel)
        return self._game

    def tree(self):
        """coupsolve's :class:`solvers.GameTree` of the game (built once, timed)."""
        if self._tree is None:
            began = time.perf_counter()
            if self.is_coup:
                import coupsolve

                coup_tree = coupsolve.build_coup_tree(self.rules(), context=False)
                self._tree, self.build_info = coup_tree.tree, coup_tree.build_info
            else:
                import solvers

                self._tree = solvers.GameTree.from_openspiel(self.openspiel_game())
            self.build_seconds = time.perf_counter() - began
        return self._tree

    def drop_tree(self):
        """Free the tree (the large Coup trees take gigabytes)."""
        self._tree = None


def all_games():
    """Fresh :class:`Game` objects keyed as in :data:`ORDER`."""
    games = [
        Game("kuhn", "Kuhn poker", openspiel="kuhn_poker"),
        Game("leduc", "Leduc poker", openspiel="leduc_poker"),
        Game("liars_dice", "Liar's Dice (1 die each)", openspiel="liars_dice(numdice=1)"),
        Game("coup1", "Coup selection, turn limit 1", turn_limit=1),
        Game("coup2", "Coup selection, turn limit 2", turn_limit=2),
        Game("coup3", "Coup selection, turn limit 3", turn_limit=3),
    ]
    return {g.key: g for g in games}
