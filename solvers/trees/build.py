"""Enumerating a game breadth first into the arrays of a :class:`~solvers.trees.gametree.GameTree`.

Two front ends share one breadth-first builder; each returns the keyword
arguments of ``GameTree(...)`` (this module does not import
:mod:`solvers.trees.gametree`, which calls it from :meth:`GameTree.from_openspiel` and
:meth:`GameTree.from_nested`):

* :func:`openspiel_arrays` enumerates any sequential OpenSpiel game that is
  two-player zero-sum or has three or more players (then with every
  player's returns, ``payoffs``), keyed by information-state strings
  (``game_id = str(game)``);
* :func:`nested_arrays` takes small hand-written or generated trees as
  nested tuples (tests, toy games)::

      ("terminal", payoff_to_player_0)
      ("terminal", (payoff_0, payoff_1, ..., payoff_N-1))   # every player's: an N-player tree
      ("chance", [(probability, child), ...])
      ("decision", player, infoset_key, [(action_id, child), ...])

A tree whose terminals give every player's payoff (all of them, the same
number each) gets ``payoffs`` (:class:`~solvers.trees.gametree.GameTree`).

Both enumerate in Python, so they suit games up to a few million histories;
large games should construct :class:`GameTree` from arrays directly.
"""

from __future__ import annotations

import numpy as np

from solvers.kinds import CHANCE, DECISION, TERMINAL
from solvers.memory import check_fits, estimate_tree_bytes

__all__ = ["openspiel_arrays", "nested_arrays"]


def _build(root, expand, game_id):
    """Enumerate breadth first into ``GameTree`` keyword arguments.

    ``expand(node)`` returns one of ``("terminal", payoff)`` (a number:
    player 0's payoff in a two-player zero-sum game; a tuple: every player's),
    ``("chance", probs, children)`` or ``("decision", player, key, actions,
    children)``.
    """
    kinds, players, infosets, child_start, num_children, payoffs = [], [], [], [], [], []
    every = []  # every player's payoffs, per node, when the terminals give them
    chance_prob = [1.0]
    level_start = [0]
    key_index, keys, infoset_player, infoset_actions = {}, [], [], []
    level = [root]
    while level:
        level_start.append(level_start[-1] + len(level))
        next_level = []
        for node in level:
            spec = expand(node)
            tag = spec[0]
            if tag == "terminal":
                kinds.append(TERMINAL)
                players.append(-1)
                infosets.append(-1)
                child_start.append(0)
                num_children.append(0)
                row = _payoff_row(spec[1], every, len(kinds) - 1)
                payoffs.append(row[0])
                every.append(row)
                continue
            if tag == "chance":
                _, probs, children = spec
                kinds.append(CHANCE)
                players.append(-1)
                infosets.append(-1)
                chance_prob.extend(float(p) for p in probs)
            elif tag == "decision":
                _, player, key, actions, children = spec
                actions = tuple(int(a) for a in actions)
                index = key_index.get(key)
                if index is None:
                    index = key_index[key] = len(keys)
                    keys.append(key)
                    infoset_player.append(player)
                    infoset_actions.append(actions)
                elif infoset_player[index] != player or infoset_actions[index] != actions:
                    raise ValueError(f"information set {key!r} has different players or legal "
                                     f"actions at different histories")
                kinds.append(DECISION)
                players.append(player)
                infosets.append(index)
                chance_prob.extend([1.0] * len(children))
            else:
                raise ValueError(f"unknown node kind {tag!r}")
            if len(children) == 0:
                raise ValueError(f"a {tag} node has no children")
            child_start.append(level_start[-1] + len(next_level))
            num_children.append(len(children))
            payoffs.append(0.0)
            every.append(None)
            next_level.extend(children)
        level = next_level
    nodes = dict(node_kind=kinds, node_player=players, node_infoset=infosets,
                 child_start=child_start, num_children=num_children, chance_prob=chance_prob,
                 payoff=payoffs, level_start=level_start)
    out = _arrays(nodes, infoset_player, infoset_actions, keys, game_id)
    if _width(every) > 1:
        zero = (0.0,) * _width(every)
        out["payoffs"] = np.array([zero if row is None else row for row in every], np.float64)
    return out


def _width(rows):
    """How many payoffs the terminals give: 1 (a number each) or the players (a tuple each)."""
    return next((len(r) for r in rows if r is not None), 1)


def _payoff_row(value, rows, node):
    """A terminal's payoffs as a tuple: ``(u,)`` for a number, else every player's; the same width
    as the terminals before it (``rows``)."""
    row = (float(value),) if np.ndim(value) == 0 else tuple(float(x) for x in value)
    if len(row) == 0:
        raise ValueError(f"terminal node {node} has no payoff")
    if len(row) != _width(rows) and any(r is not None for r in rows):
        raise ValueError(f"terminal node {node} gives {len(row)} payoffs, the terminals "
                         f"before it {_width(rows)}: give every terminal a number (two-player "
                         "zero-sum) or every player's payoffs")
    return row


FLAT_DTYPES = dict(node_kind=np.int8, node_player=np.int8, node_infoset=np.int32,
               child_start=np.int64, num_children=np.int32, chance_prob=np.float64,
               payoff=np.float64, level_start=np.int64)


def _arrays(nodes, infoset_player, infoset_actions, keys, game_id):
    """The lists of :func:`_build` as ``GameTree`` keyword arguments, once the memory is checked."""
    num_nodes, num_infosets = len(nodes["node_kind"]), len(keys)
    num_actions = sum(len(a) for a in infoset_actions)
    depth = len(nodes["level_start"]) - 2
    check_fits(estimate_tree_bytes(num_nodes, num_infosets, num_actions, depth),
               f"the game tree of {game_id}")
    infoset_num_actions = np.array([len(a) for a in infoset_actions], dtype=np.int32)
    offsets = np.zeros(num_infosets, dtype=np.int64)
    if num_infosets:
        offsets[1:] = np.cumsum(infoset_num_actions[:-1], dtype=np.int64)
    flat_actions = np.fromiter((a for acts in infoset_actions for a in acts), dtype=np.int32,
                               count=num_actions)
    return dict(
        {name: np.array(values, dtype=FLAT_DTYPES[name]) for name, values in nodes.items()},
        infoset_player=np.array(infoset_player, dtype=np.int8),
        infoset_num_actions=infoset_num_actions,
        infoset_offset=offsets,
        infoset_actions=flat_actions,
        game_id=game_id,
        infoset_keys=keys,
    )


def _check_openspiel_game(game):
    import pyspiel

    if isinstance(game, str):
        game = pyspiel.load_game(game)
    if not isinstance(game, pyspiel.Game):
        raise TypeError(f"expected a pyspiel.Game or a game string, got {type(game).__name__}")
    game_type = game.get_type()
    if game.num_players() < 2:
        raise ValueError(f"{game} has {game.num_players()} player; the solvers take games of two "
                         "or more players")
    if game_type.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"{game} is not sequential ({game_type.dynamics}); convert it with "
                         "pyspiel.convert_to_turn_based first")
    if game.num_players() == 2 and game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ValueError(f"{game} is not zero-sum ({game_type.utility}); two-player trees must be "
                         "zero-sum (games of three or more players may be general-sum)")
    if game_type.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise ValueError(f"{game} has sampled chance nodes, which cannot be enumerated")
    if not game_type.provides_information_state_string:
        raise ValueError(f"{game} does not provide information-state strings")
    return game


def openspiel_arrays(game):
    """``GameTree`` keyword arguments enumerating an OpenSpiel game.

    See :meth:`solvers.GameTree.from_openspiel`, which calls it.

    Parameters
    ----------
    game : pyspiel.Game or str
    """
    game = _check_openspiel_game(game)
    two = game.num_players() == 2

    def expand(state):
        if state.is_terminal():
            returns = state.returns()
            if not two:
                return ("terminal", tuple(returns))
            if abs(returns[0] + returns[1]) > 1e-9 * max(1.0, abs(returns[0])):
                raise ValueError(f"terminal {state.history_str()!r} of {game} is not zero-sum: "
                                 f"returns {returns}")
            return ("terminal", returns[0])
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            return ("chance", [p for _, p in outcomes], [state.child(a) for a, _ in outcomes])
        player = state.current_player()
        actions = state.legal_actions()
        return ("decision", player, state.information_state_string(player), actions,
                [state.child(a) for a in actions])

    return _build(game.new_initial_state(), expand, str(game))


def nested_arrays(root, game_id):
    """``GameTree`` keyword arguments of a tree given as nested tuples.

    See :meth:`solvers.GameTree.from_nested`, which calls it, and the module docstring.

    Parameters
    ----------
    root : tuple
    game_id : str
    """

    def expand(node):
        if not isinstance(node, tuple) or not node:
            raise TypeError(f"expected a node tuple, got {node!r}")
        tag = node[0]
        if tag == "terminal" and len(node) == 2:
            return node
        if tag == "chance" and len(node) == 2:
            return ("chance", [p for p, _ in node[1]], [c for _, c in node[1]])
        if tag == "decision" and len(node) == 4:
            _, player, key, edges = node
            if not isinstance(key, str):
                raise TypeError(f"infoset key must be a str, got {key!r}")
            return ("decision", player, key, [a for a, _ in edges], [c for _, c in edges])
        raise ValueError(f"malformed node {node!r}")

    return _build(root, expand, game_id)
