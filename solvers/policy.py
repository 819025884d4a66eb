"""Flat policies: validation and conversion to and from OpenSpiel.

A policy over a :class:`~solvers.trees.gametree.GameTree` is a float64 array of length
``tree.num_actions``: the probabilities of infoset ``I``'s actions
``tree.actions(I)`` are ``policy[infoset_offset[I] : infoset_offset[I] +
infoset_num_actions[I]]``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_policy", "pure_response", "to_openspiel_policy", "from_openspiel_policy"]

_SUM_TOLERANCE = 1e-6


def check_policy(tree, policy, name="policy"):
    """Validate a flat policy and return it as a contiguous float64 array.

    ``policy`` may also be a :class:`~solvers.cfr.result.SolveResult`, whose
    average policy is used.

    Raises
    ------
    ValueError
        Wrong length, negative or non-finite entries, or an information set
        whose probabilities do not sum to 1 (within 1e-6), naming its key.
    """
    if hasattr(policy, "average_policy") and not isinstance(policy, np.ndarray):
        policy = policy.average_policy
    try:
        arr = np.ascontiguousarray(policy, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of probabilities") from exc
    if arr.shape != (tree.num_actions,):
        raise ValueError(f"{name} has shape {arr.shape}, expected ({tree.num_actions},): one "
                         f"probability per infoset action of the tree")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} has negative or non-finite probabilities")
    if tree.num_infosets:
        sums = np.add.reduceat(arr, tree.infoset_offset)
        bad = np.flatnonzero(np.abs(sums - 1.0) > _SUM_TOLERANCE)
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"{name} probabilities sum to {sums[i]!r}, not 1, at information set "
                             f"{i} ({tree.infoset_key(i)!r})")
    return arr


def pure_response(tree, policy, player, choice, dtype=np.float64):
    """``policy`` (a new array of ``dtype``) with ``player``'s part replaced by the pure strategy that
    takes action ``choice[I]`` (its position in the information set) at each of ``player``'s
    information sets ``I``: a best response given as its choices, spelled out as a flat policy."""
    out = np.array(policy, dtype)
    mine = np.flatnonzero(tree.infoset_player == player)
    out[np.repeat(tree.infoset_player == player, tree.infoset_num_actions)] = 0.0
    out[tree.infoset_offset[mine] + choice[mine]] = 1.0
    return out


def _check_game(tree, game, what):
    if str(game) != tree.game_id:
        raise ValueError(f"{what} {str(game)!r} does not match the tree's game {tree.game_id!r}")


def to_openspiel_policy(tree, policy, game):
    """An OpenSpiel ``TabularPolicy`` holding ``policy``.

    Information sets are matched by their information-state strings;
    OpenSpiel information sets the tree does not have stay uniform.

    Raises
    ------
    ValueError
        If ``str(game)`` is not ``tree.game_id`` or a tree key is unknown to
        OpenSpiel.
    """
    from open_spiel.python import policy as policy_lib

    sigma = check_policy(tree, policy)
    _check_game(tree, game, "the OpenSpiel game")
    tabular = policy_lib.TabularPolicy(game)
    table = tabular.action_probability_array
    for row, part, actions in _rows(tree, tabular.state_lookup, f"OpenSpiel's {game}"):
        table[row, :] = 0.0
        table[row, actions] = sigma[part]
    return tabular


def from_openspiel_policy(tree, tabular_policy):
    """Flat policy for ``tree`` read from an OpenSpiel policy: a ``TabularPolicy``, or any
    ``open_spiel.python.policy.Policy`` with its ``game`` (such as OpenSpiel's MCCFR's
    ``average_policy()``), which is first tabulated over every state of its game by OpenSpiel's
    ``tabular_policy_from_callable`` (so only for games small enough to enumerate).

    Raises
    ------
    ValueError
        If the policy is for another game or lacks an information state of the tree.
    TypeError
        If it is neither a tabular policy nor a policy that knows its game.
    """
    if not hasattr(tabular_policy, "state_lookup"):
        from open_spiel.python import policy as os_policy

        game = getattr(tabular_policy, "game", None)
        if not isinstance(tabular_policy, os_policy.Policy) or game is None:
            raise TypeError(f"expected an OpenSpiel policy (TabularPolicy, or a Policy with its game), "
                            f"got {type(tabular_policy).__name__}")
        _check_game(tree, game, "the policy's game")
        tabular_policy = os_policy.tabular_policy_from_callable(game, tabular_policy)
    game = getattr(tabular_policy, "game", None)
    if game is not None:
        _check_game(tree, game, "the tabular policy's game")
    out = np.empty(tree.num_actions)
    table = tabular_policy.action_probability_array
    for row, part, actions in _rows(tree, tabular_policy.state_lookup, "the tabular policy"):
        out[part] = table[row, actions]
    return out


def _rows(tree, state_lookup, owner):
    """(OpenSpiel row, slice of the flat policy, action ids) of each information set of ``tree``."""
    for i in range(tree.num_infosets):
        key = tree.infoset_key(i)
        row = state_lookup.get(key)
        if row is None:
            raise ValueError(f"{owner} has no information state {key!r}")
        o = int(tree.infoset_offset[i])
        yield row, slice(o, o + int(tree.infoset_num_actions[i])), tree.actions(i)
