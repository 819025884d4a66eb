"""Best responses as continuations: growing a depth-limited game's leaf choices by a double oracle.

A depth-limited solution is safe against the deviations its leaves let the opponent make: if the
opponent may continue, at every leaf, with its best response in the longer game to the solution
played as it chose, the depth-limited game sees exactly what that best response wins (Brown, Sandholm
and Amos, NeurIPS 2018, offer the blueprint's biased versions instead, a cheap guess at those best
responses). On Coup the biased versions miss the deviations that exploit the seam at the cut, so this module finds them: it
solves the depth-limited game, plays the solution as it chose (:func:`~coupsolve.depth.stitch.stitch_choices`),
computes both players' exact best responses to that in the longer game, adds them as one more
continuation (each player continues with its own best response) and solves again. This is the double
oracle of McMahan, Gordon and Blum (ICML 2003) over continuation strategies; it stops changing when
the best responses are already among the continuations, and each round's figure is an exact
exploitability in the longer game, so the loop needs a longer game small enough to hold (a turn
limit the exact solvers reach).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from coupsolve.depth.continuations import continuation_policies
from coupsolve.depth.game import depth_limited_game
from coupsolve.depth.stitch import stitch_choices
from coupsolve.depth.values import node_map, values_from_longer_game

__all__ = ["OracleRound", "best_response_continuations"]


class OracleRound(NamedTuple):
    """One round: the continuations each leaf offered (``names``), the depth-limited game's size and its
    solution (``policy``, over that round's ``DepthLimitedGame.tree``; ``exploitability`` there, after
    ``iterations``), and the solution played as it chose, in the longer game: its exact
    ``stitched`` exploitability and each player's ``gains`` (what its best response wins over the
    solution's value)."""

    names: tuple
    histories: int
    policy: np.ndarray
    exploitability: float
    iterations: int
    stitched: float
    gains: tuple
    leaf_choice: dict


def _default_solve(target, iterations):
    def solve(tree):
        import solvers

        r = solvers.solve(tree, algorithm="hs-pcfr+", target_exploitability=target, iterations=iterations,
                          check_every=10, progress=False)
        return r.average_policy, float(r.exploitability), int(r.iterations)
    return solve


def best_response_continuations(cut, longer, blueprint, *, k: int = 1, rounds: int = 3,
                                solve: Callable | None = None, target: float = 1e-5,
                                iterations: int = 2000, where=None, say=None, each=None) -> list:
    """Solve the game ``cut`` with ``k`` continuations of ``blueprint``, then ``rounds`` times add both
    players' best responses to the last solution as a continuation and solve again.

    Parameters
    ----------
    cut : CoupTree
        The cut game, ``build_coup_tree(rules, leaves=True)``.
    longer : CoupTree
        A longer game of the same rules, built with ``context=True`` when ``k > 1``.
    blueprint : ndarray
        A flat policy over ``longer.tree``.
    k : int
        The blueprint's continuations every round starts from (:data:`~coupsolve.depth.CONTINUATIONS`).
    rounds : int
        How many best responses to add (``0``: only the first solve).
    solve : callable, optional
        ``solve(tree) -> (policy, exploitability, iterations)``; by default hs-pcfr+ to ``target``
        within ``iterations``.
    where : NodeMap, optional
        :func:`~coupsolve.depth.values.node_map` of the two trees, when already made.
    say : callable, optional
        Called with a line after each round.
    each : callable, optional
        Called as ``each(round, game, policy)`` after each round's solve, with that round's
        :class:`~coupsolve.depth.game.DepthLimitedGame` (for an analysis; the games are not kept).

    Returns
    -------
    list of OracleRound
        ``rounds + 1`` of them, the first with the blueprint's continuations only.
    """
    import solvers

    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 0:
        raise ValueError(f"rounds must be a whole number from 0, not {rounds!r}")
    solve = solve or _default_solve(target, iterations)
    where = where or node_map(cut.tree, longer.tree)
    tree = longer.tree
    owner = np.repeat(tree.infoset_player, tree.infoset_num_actions)
    base = continuation_policies(longer, blueprint, k)
    extra, out, known = [], [], None
    for r in range(rounds + 1):
        lv = values_from_longer_game(cut.tree, cut.leaf_node, longer, blueprint, k, where=where,
                                     continuations=base, extra=extra, known=known)
        known = lv.per_leaf()
        game = depth_limited_game(cut.rules, lv, cut=cut)
        policy, e, its = solve(game.tree)
        if each:
            each(r, game, policy)
        played = stitch_choices(game, policy, longer, blueprint, where=where,
                                continuations=base + [p for _, p in extra])
        br = [solvers.best_response(tree, played, p) for p in (0, 1)]
        gains = (br[0].value - br[0].on_policy_value, br[1].value - br[1].on_policy_value)
        out.append(OracleRound(lv.continuations, game.tree.num_nodes, policy, e, its,
                               (br[0].value + br[1].value) / 2, gains, game.leaf_choice(policy)))
        if say:
            say(f"round {r}: {len(lv.continuations)} continuations, {game.tree.num_nodes:,} histories, "
                f"exploitability {e:.1e} after {its}; played as it chose, {out[-1].stitched:.2e} in the "
                "longer game")
        if r < rounds:
            extra.append((f"best response {r + 1}", np.where(owner == 0, br[0].policy, br[1].policy)))
    return out
