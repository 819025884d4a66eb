"""Safe re-solving: the opponent may decline the re-solved subgame and take its blueprint value.

A plain re-solve (:mod:`coupsolve.search.resolve`) meets the opponent with the range the blueprint
would have given it, so it answers a claim as a best response to the blueprint's bluffs: against an
opponent who bluffs less, that is a mistake the blueprint itself does not make. With
``SearchSettings(safe=...)`` the re-solve is the re-solving gadget instead
(:func:`solvers.trees.gadget.graft_gadget`; Burch, Johanson and Bowling, AAAI 2014; Brown and
Sandholm, "Safe and nested subgame solving for imperfect-information games", NeurIPS 2017): above the
subgame each of the opponent's private states chooses to enter or to take what it would get if both
players went on with the blueprint from the root. Its weight at the root is either its blueprint
range (``"blueprint"``: the opponent may only leave hands out of the blueprint's range, a bluff the
answer would punish, say) or the same for every hand (``"uniform"``: the gadget as Burch, Johanson
and Bowling wrote it, the opponent's range wholly its own choice). Each hand chooses by its own
values alone, whatever its weight; the weights set only how the re-solving player trades one hand
of the opponent against another.

What that guarantees, and what not. The gadget gives each private state of the opponent at most its
value (within the solve's exploitability) when some strategy allows those values, for instance when
they are the opponent's best-response values against the strategy being replaced (the "Resolve" of
Brown and Sandholm, section 4; the tests check it on Coup's depth-limited games). The values here are
the blueprint's own play, not a best response to it, and in the subgame the opponent may also choose
its continuation at the leaves: so no strategy need allow them, and the re-solve does the best it can
against them, as the "estimated" variants of Brown and Sandholm (section 5) and DeepStack's
re-solving with its own estimates do. It is not provably less exploitable than the blueprint.

The values (:func:`blueprint_values`) are seeded rollouts of the blueprint from every history at the
root (its state and features as the features game reaches it, :func:`_root_rows`), player 0's payoff
averaged per pair of private states and, per private state of the opponent, over the re-solving
player's range (:func:`gadget_inputs`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from solvers.mccfr.rollout import state_hash

from coupsolve.depth.rollouts import play_states
from coupsolve.sampling.keys import features_init, features_step
from coupsolve.search.leaves import distinct_rows

__all__ = ["Gadgeted", "blueprint_values", "entered", "gadget_inputs", "with_gadget"]


@njit(cache=True, nogil=True)
def _root_rows(P, W, paths, lengths, states, hashes, keys):
    """The features game's state, hashes and rollout key after each of ``paths`` (moves from the
    game's start, ``lengths`` of them: the walk's own histories, legal by construction)."""
    for i in range(paths.shape[0]):
        s, h = states[i], hashes[i]
        features_init(P, s, h, W)
        for j in range(lengths[i]):
            features_step(P, s, h, np.int64(paths[i, j]), W)  # as the sampling kernels: one compiled copy
        keys[i] = state_hash(s, s.shape[0])


def blueprint_values(blueprint, node, *, rollouts: int = 4, seed: int = 0, threads: int = 1,
                     budget: int | None = 20000):
    """``(values, stderr)``: player 0's payoff from each history at ``node`` (a
    :class:`~coupsolve.trees.stepwalk.descend.ReachedNode`, as :attr:`PublicRoot.node` holds it) when
    both players play ``blueprint`` to the end, ``rollouts`` seeded games per distinct state (fewer,
    at least one, past ``budget`` games in all)."""
    g = blueprint.game
    paths = np.ascontiguousarray(node.paths, np.int32)
    lengths = (paths >= 0).sum(axis=1).astype(np.int64)
    n = paths.shape[0]
    states = np.zeros((n, g.state_size), np.int32)
    hashes = np.zeros((n, g.num_players, 2), np.uint64)
    keys = np.zeros(n, np.uint64)
    _root_rows(g.params, g.scratch, paths, lengths, states, hashes, keys)
    _, row_of = distinct_rows(np.concatenate([states, hashes.reshape(n, -1).view(np.int32)], axis=1))
    first = np.unique(row_of, return_index=True)[1]
    want = max(1, min(int(rollouts), int(budget) // max(1, first.size))) if budget is not None else int(rollouts)
    mean, err = play_states(g, "features", blueprint.table, blueprint.warm > 0, states[first], hashes[first],
                            keys[first], 1, rollouts=want, seed=seed, threads=threads)
    return mean[row_of, 0, 0], err[row_of, 0, 0]


def _entries(hashes, entry_hash, lo, n0, n1):
    """Each history's entry (local index) for each player at the public node whose entries are
    ``entry_hash[lo : lo + n0 + n1]``, by its first token hash (``hashes``, ``(n, 2, 2)``); -1 where
    the tree has no such private state (left out of it)."""
    out = np.full((hashes.shape[0], 2), -1, np.int64)
    for p, (a, b) in enumerate(((lo, lo + n0), (lo + n0, lo + n0 + n1))):
        own = np.asarray(entry_hash[a:b], np.uint64)
        if own.size == 0:
            continue
        order = np.argsort(own, kind="stable")
        mine = hashes[:, p, 0]
        i = np.minimum(np.searchsorted(own[order], mine), own.size - 1)
        out[:, p] = np.where(own[order][i] == mine, order[i], -1)
    return out


def gadget_inputs(start, node, values, entry_hash, lo, n0, n1, player):
    """``(weights, declined)`` for :func:`solvers.trees.gadget.graft_gadget` at the public node whose
    entries are ``entry_hash[lo : lo + n0 + n1]`` (player 0's first): each pair's chance weight as
    ``start`` (the :class:`~coupsolve.trees.stepwalk.pools.Start` the tree was built from) weighs it,
    and ``player``'s payoff per unit of weight for each of its private states: ``values`` (player 0's,
    per history of ``node``, the root's every history) averaged per pair over chance, then over the
    pairs the private state is in by their weights. ``ValueError`` where a history of ``start`` has a
    private state the node lacks."""
    at = _entries(start.hashes, entry_hash, lo, n0, n1)
    if (at < 0).any():
        raise ValueError("a history at the root has a private state the tree lacks")
    weights = np.zeros((n0, n1))
    np.add.at(weights, (at[:, 0], at[:, 1]), start.prob)
    every = _entries(node.start.hashes, entry_hash, lo, n0, n1)
    kept = (every >= 0).all(axis=1)
    chance, paid = np.zeros((n0, n1)), np.zeros((n0, n1))
    e, prob = every[kept], node.start.prob[kept]
    np.add.at(chance, (e[:, 0], e[:, 1]), prob)
    np.add.at(paid, (e[:, 0], e[:, 1]), prob * np.asarray(values, np.float64)[kept])
    pair = np.divide(paid, chance, out=np.zeros_like(paid), where=chance > 0)
    total = weights.sum(axis=1 - player)
    mean = np.divide((weights * pair).sum(axis=1 - player), total, out=np.zeros_like(total), where=total > 0)
    return weights, mean if player == 0 else -mean


class Gadgeted(NamedTuple):
    """A re-solve's game with the gadget above it (:func:`with_gadget`): the ``tree`` to solve, the
    rooted ``coup_tree`` and the ``leaves`` of the ``subgame`` below the gadget, where the ``gadget``
    put its choice (:class:`solvers.trees.gadget.Gadget`), the chance ``weights`` of the pairs of
    entries there and the opponent's ``declined`` value for each of its entries (its payoff per unit
    of weight)."""

    tree: object
    coup_tree: object
    leaves: object
    subgame: object
    gadget: object
    weights: np.ndarray
    declined: np.ndarray


def _below_root(coup_tree):
    """``(lo, n0, n1)``: where the entries of the public node below a rooted tree's chance root start,
    and how many each player has there."""
    from solvers.trees.gadget import gadget_node

    f = coup_tree.tree.flat
    x = gadget_node(coup_tree.tree)
    lo, n0 = int(f.entry_start[x]), int(f.num_entries0[x])
    return lo, n0, int(f.entry_start[x + 1]) - lo - n0


def with_gadget(game, size, blueprint, player, *, rollouts, seed, threads, budget) -> Gadgeted:
    """``game`` (a re-solve's depth-limited game, or its whole game, rooted at ``size.root`` with
    ``player``'s weights as the gadget should have them: ``size`` is
    :func:`~coupsolve.trees.rooted.count_rooted_public_tree`'s) with ``player`` choosing, per private
    state, to enter it or to take the blueprint's value (:func:`blueprint_values`, ``rollouts`` per
    state under ``budget`` games)."""
    from solvers.trees.gadget import gadget_node, graft_gadget

    rooted, tree = game.coup_tree, game.tree
    lo, n0, n1 = _below_root(rooted)
    values, _ = blueprint_values(blueprint, size.root.node, rollouts=rollouts, seed=seed, threads=threads,
                                 budget=budget)
    weights, declined = gadget_inputs(size.start, size.root.node, values, rooted.entry_hash, lo, n0, n1, player)
    grafted, gadget = graft_gadget(tree, player, weights, declined, gadget_node(tree))
    return Gadgeted(grafted, rooted, game.leaves, game, gadget, weights, declined)


def entered(gadgeted, average, root, player) -> np.ndarray:
    """``player``'s range in the subgame a gadget game's ``average`` strategy plays: per private state
    of ``root`` (a :class:`~coupsolve.trees.rooted.PublicRoot`), the probability it enters (0 for one
    the tree left out)."""
    from solvers.trees.gadget import ENTER

    g, t = gadgeted.gadget, gadgeted.tree
    at = _entries(root.node.start.hashes, gadgeted.coup_tree.entry_hash, *_below_root(gadgeted.coup_tree))[:, player]
    out = np.zeros(root.num_private[player])
    for e in np.unique(at[at >= 0]).tolist():
        i = g.first_infoset + e
        o, m = int(t.infoset_offset[i]), int(t.infoset_num_actions[i])
        sigma = np.asarray(average[o:o + m], np.float64)
        k = list(t.infoset_actions[o:o + m]).index(ENTER)
        out[root.node.entry[at == e, player]] = sigma[k] / sigma.sum() if sigma.sum() > 0 else 0.5
    return out
