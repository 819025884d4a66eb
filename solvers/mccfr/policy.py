"""A sampled strategy (:class:`solvers.mccfr.solver.MCCFRSolver`'s average) as policies others evaluate.

:func:`tree_policy` gives the flat policy over a :class:`solvers.GameTree` of the same game (the
exact exploitability is then :func:`solvers.exploitability`); :class:`SampledPolicy` an OpenSpiel
policy for any number of players, which looks a state's information set up in the solver's table by
the hashes of the state's history (the same keys the sampling gave it). Information sets the sampling
never visited, and those whose average weights are all zero, play uniformly, or, given a ``prior``
policy (a warm-started strategy's prior), as the prior does.
"""

from __future__ import annotations

import numpy as np
from open_spiel.python import policy as os_policy

from solvers.mccfr.solver import MCCFRSolver, call_kernel

__all__ = ["tree_policy", "SampledPolicy"]


def _normalised(weights, offset, num_actions):
    """Each segment ``offset[i] .. + num_actions[i]`` of ``weights`` scaled to sum to 1 (uniform if it
    sums to 0); ``offset`` is -1 for a segment not in ``weights`` (uniform too)."""
    m = np.asarray(num_actions, np.int64)
    offset = np.where(offset + m <= weights.shape[0], offset, -1)  # a set made after ``weights``
    starts = np.zeros(m.shape[0], np.int64)
    starts[1:] = np.cumsum(m)[:-1]
    pos = np.arange(int(m.sum())) - np.repeat(starts, m)
    seen = np.repeat(offset >= 0, m)
    padded = weights if weights.shape[0] else np.zeros(1)  # an empty table: nothing is seen
    w = np.where(seen, padded[np.where(seen, np.repeat(offset, m) + pos, 0)], 0.0)
    sums = np.repeat(np.add.reduceat(w, starts) if m.shape[0] else np.zeros(0), m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums > 0.0, w / sums, 1.0 / np.repeat(m, m))


def tree_policy(solver: MCCFRSolver, tree) -> np.ndarray:
    """The solver's average strategy as a flat policy over ``tree`` (float64, ``tree.num_actions``).

    The tree must be of the solver's game with its children in the order of the game's moves (as
    ``GameTree.from_openspiel`` and a game's own tree builder make them); each information set's key
    is found by walking the tree beside the game.

    Raises
    ------
    ValueError
        A tree of another game, or whose nodes do not follow the game's moves.
    """
    g = solver.game
    if tree.game_id != g.game_id:
        raise ValueError(f"the tree is of game {tree.game_id!r}, the solver's is {g.game_id!r}")
    keys = np.zeros(tree.num_infosets, np.uint64)
    checks = np.zeros(tree.num_infosets, np.uint64)
    bad = call_kernel(g.kernels[2], g.params, g.scratch, g.num_players, g.state_size, g.max_moves,
                      g.max_depth, tree.node_infoset, tree.node_player, tree.child_start,
                      tree.num_children, keys, checks)
    if bad >= 0:
        raise ValueError(f"history {bad} of the tree does not have the game's moves as its children")
    offset = solver.find(keys, checks, tree.infoset_player, tree.infoset_num_actions)
    return _normalised(solver.table()["average"], offset, tree.infoset_num_actions)


class SampledPolicy(os_policy.Policy):
    """The solver's average strategy (as it is when this is made) as an OpenSpiel policy.

    Parameters
    ----------
    solver : MCCFRSolver
    game : pyspiel.Game
        The OpenSpiel game of the solver's game (``str(game)`` is its ``game_id``), whose action ids
        and history are the sampling game's moves.
    prior : open_spiel Policy, optional
        Plays the information sets that have no average yet (default: uniformly): for a strategy
        trained with a warm start, the prior it started from (the training never moved them off it).

    Raises
    ------
    ValueError
        A game of another id.
    """

    def __init__(self, solver, game, prior=None):
        g = solver.game
        if str(game) != g.game_id:
            raise ValueError(f"game {str(game)!r} is not the solver's {g.game_id!r}")
        super().__init__(game, list(range(g.num_players)))
        self._solver = solver
        self._average = solver.table()["average"]
        self._prior = prior

    def infoset_hashes(self, state):
        """The acting player's two hashes at ``state`` (uint64, (2,))."""
        g = self._solver.game
        out = np.zeros((g.num_players, 2), np.uint64)
        moves = np.asarray(state.history(), np.int32)
        bad = call_kernel(g.kernels[1], g.params, g.scratch, moves, g.num_players, g.state_size,
                          g.max_moves, out)
        if bad >= 0:
            raise ValueError(f"move {bad} of {state.history()} is not legal in the sampling game")
        return out[state.current_player()]

    def action_probabilities(self, state, player_id=None):
        """``{action: probability}`` at ``state`` (OpenSpiel's ``Policy`` interface)."""
        legal = state.legal_actions()
        h = self.infoset_hashes(state)
        o = self._solver.find([h[0]], [h[1]], [state.current_player()], [len(legal)])
        if self._prior is not None and (o[0] < 0 or not self._average[o[0]:o[0] + len(legal)].any()):
            return self._prior.action_probabilities(state, player_id)
        probs = _normalised(self._average, o, [len(legal)])
        return {int(a): float(p) for a, p in zip(legal, probs)}
