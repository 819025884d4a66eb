"""The arrays the history builder's walk (:mod:`coupsolve.trees.history.builder`) fills: the nodes
(:class:`NodeArrays`) and the information sets (:class:`InfosetArrays`), empty for a counting walk or
allocated for a tree of a given size (the walk checks every write against these arrays' lengths, so a
size that is not the tree's stops the build instead of writing past them)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from coupsolve import engine as E


class NodeArrays(NamedTuple):
    """The per-node arrays the walk fills (all empty when it only counts).

    ``level_count`` (int64, one per level, counting walk only), ``level_start`` (int64, levels + 1),
    then, one entry per node: what the node is, ``node_kind``, ``node_player`` (int8),
    ``node_infoset`` (int32), ``payoff`` (float64), ``context`` (``CTX_DTYPE``, uint32; empty when not wanted);
    where its children are, ``child_start`` (int64), ``num_children`` (int32); the probability of the
    edge into it, ``chance_prob`` (float64); ``payoffs`` (float64, (nodes, players); (0, 0) with two). The histories that end at the turn limit
    (no winner), when wanted (else empty): ``leaf_node`` (int64, one per terminal) and, for each,
    ``leaf_key`` (uint64, (terminals, players, 2): each player's two observation hashes there, which
    name the player's information set at that leaf).
    """

    level_count: np.ndarray
    level_start: np.ndarray
    node_kind: np.ndarray
    node_player: np.ndarray
    node_infoset: np.ndarray
    payoff: np.ndarray
    context: np.ndarray
    child_start: np.ndarray
    num_children: np.ndarray
    chance_prob: np.ndarray
    payoffs: np.ndarray
    leaf_node: np.ndarray
    leaf_key: np.ndarray


class InfosetArrays(NamedTuple):
    """The information sets the walk finds, with room for one per decision node.

    ``h2`` (uint64, the second hash), ``player`` (int8), ``nact`` (int32), ``rep`` (int64, the first
    history seen), ``actions`` (int32, one per decision child: the flat action ids).
    """

    h2: np.ndarray
    player: np.ndarray
    nact: np.ndarray
    rep: np.ndarray
    actions: np.ndarray


def empty_nodes(level_count):
    e8, e32, e64, ef = (np.zeros(0, np.int8), np.zeros(0, np.int32), np.zeros(0, np.int64),
                        np.zeros(0, np.float64))
    return NodeArrays(level_count=level_count, level_start=e64, node_kind=e8, node_player=e8,
                      node_infoset=e32, payoff=ef, context=np.zeros(0, E.CTX_DTYPE), child_start=e64, num_children=e32,
                      chance_prob=ef, payoffs=np.zeros((0, 0), np.float64), leaf_node=e64,
                      leaf_key=np.zeros((0, 0, 2), np.uint64))


def empty_infosets():
    return InfosetArrays(np.zeros(0, np.uint64), np.zeros(0, np.int8), np.zeros(0, np.int32),
                         np.zeros(0, np.int64), np.zeros(0, np.int32))


def allocate(size, context, leaves=False):
    """Empty node and information-set arrays for a tree of ``size`` (with room for the limit leaves'
    keys when ``leaves``)."""
    n, dn, da = size.nodes, size.decision_nodes, size.decision_children
    level_start = np.zeros(len(size.levels) + 1, dtype=np.int64)
    level_start[1:] = np.cumsum(size.levels)
    chance_prob, players = np.empty(n, np.float64), size.rules.players
    terminals = n - dn - max(size.chance_nodes, 0)  # an upper bound when not counted
    chance_prob[0] = 1.0
    out = NodeArrays(level_count=np.zeros(0, np.int64), level_start=level_start,
                     node_kind=np.empty(n, np.int8), node_player=np.empty(n, np.int8),
                     node_infoset=np.empty(n, np.int32), payoff=np.zeros(n, np.float64),
                     context=np.zeros(n if context else 0, E.CTX_DTYPE),
                     child_start=np.empty(n, np.int64), num_children=np.empty(n, np.int32),
                     chance_prob=chance_prob, payoffs=np.zeros((n, players) if players > 2 else (0, 0)),
                     leaf_node=np.empty(terminals if leaves else 0, np.int64),
                     leaf_key=np.empty((terminals, players, 2) if leaves else (0, 0, 2), np.uint64))
    iset = InfosetArrays(np.empty(dn, np.uint64), np.empty(dn, np.int8), np.empty(dn, np.int32),
                         np.empty(dn, np.int64), np.empty(da, np.int32))
    return out, iset
