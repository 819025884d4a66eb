"""Continual re-solving for full-length two-player Coup: at each decision, solve the game a few turns
ahead from the current public state, its leaves valued by the blueprint's continuations, and play the
solution's move (Moravcik, Schmid, Burch et al., "DeepStack", Science 2017; Brown, Sandholm and Amos,
"Depth-limited solving for imperfect-information games", NeurIPS 2018).

:func:`resolve` does one re-solve:

1. the root (:func:`root_length`): by default the decision itself, the public state the game's
   history has reached, and every history there (:func:`coupsolve.trees.rooted.public_root`). With
   ``SearchSettings(root="turn")`` it is where the current turn began or, where the player has chosen
   a move in this turn already, the first decision after its latest choice: the opponent's moves
   since are then part of the subgame, re-solved instead of taken at the blueprint's rates. That is
   the design the issue proposed; measured head to head it played worse (the research notes), one
   likely reason being that the opponent's actual move may be one the re-solve's own strategy for
   the opponent makes rarely, where the answer is trained on little reach. (DeepStack roots each
   re-solve at the current public state and meets the opponent through its counterfactual values,
   with the gadget, not through a range.);
2. each player's range there, by Bayes' rule: the opponent's under the blueprint
   (:meth:`~coupsolve.search.blueprint.Blueprint.ranges`), where a private state the blueprint never
   reaches keeps a small floor (:data:`RANGE_FLOOR` of the largest), so that an opponent who left the
   blueprint is still met by a strategy; the acting player's under the strategies its own earlier
   re-solves in the game played (:class:`~coupsolve.search.own.OwnRange`, as
   :class:`~coupsolve.search.policy.ResolvingPolicy` keeps them; the blueprint's, floored, without
   them). With ``SearchSettings(honest=q)`` (``q`` is 0.9 by default) the opponent is, with prior
   probability ``q``, the honest blueprint instead (the blueprint's strategy over the
   moves that claim nothing it cannot back): its range is then the posterior mixture of the two
   models' ranges, Bayes' rule over the pair (model, private state), so the more the opponent's play
   looks like an honest player's, the more its claims are believed (Bayesian opponent modelling over
   a fixed set of types: Ganzfried and Sun, "Bayesian opponent exploitation in imperfect-information
   games", IEEE CIG 2018). That is a model of the opponent, not an equilibrium's assumption: against
   an opponent who bluffs as the blueprint does, it believes too many claims. Inside the subgame the
   opponent's challenge rounds are then held to the honest player's move with the probability that
   its hand is the honest type's, times ``trust`` (:mod:`coupsolve.search.model`);
3. the public tree from there to the end of turn ``root turn + lookahead - 1``
   (:func:`coupsolve.trees.rooted.build_rooted_public_tree`), its turn-limit leaves valued by
   rollouts of ``continuations`` continuations (:func:`coupsolve.search.leaves.rooted_leaf_values`) and
   grafted as each player's choice among them (:func:`coupsolve.depth.public.public_depth_limited_game`);
4. a fixed number of iterations of a CFR-family solver on it, and the average strategy at the
   player's own information set.

By default this is plain (unsafe) re-solving: the opponent's range is what the blueprint, or the
honest model (step 2), would have played, and nothing constrains the re-solve to do at least as well
as the blueprint against every opponent hand. With ``SearchSettings(safe=...)`` the re-solving
gadget of Burch, Johanson and Bowling (AAAI 2014) is put above the subgame
(:mod:`coupsolve.search.safe`): each of the opponent's private states enters the subgame or takes
its value under the blueprint's own play, so its range is partly its own choice. Those values are
the blueprint's, not a best response's to it, so even then the strategy is not guaranteed to be less
exploitable than the blueprint (the gadget guarantees that only for values some strategy allows);
what either is worth is measured, head to head (:mod:`coupsolve.evaluation.arena`).
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from coupsolve.search.opening import covers, keep, kept_opening
from coupsolve.search.own import infoset_strategy
from coupsolve.search.root import ROOTS, replay, root_length, root_of

__all__ = ["RANGE_FLOOR", "ROOTS", "SAFE", "Resolution", "SearchSettings", "check_safe", "resolve", "root_length",
           "solve_at", "solve_opening"]

#: The kinds of safe re-solving (:attr:`SearchSettings.safe`): False (none, plain re-solving), or the
#: gadget with the opponent's private states weighed at the root by its blueprint range or uniformly.
SAFE = (False, "blueprint", "uniform")

#: A private state's least range, relative to its player's largest (module docstring, step 2).
RANGE_FLOOR = 1e-3


class SearchSettings(NamedTuple):
    """How a re-solve is made: turns looked ahead (the current one included), continuations per
    player at the leaves, rollouts per leaf state and pair of continuations, solver iterations and
    algorithm, the seed of the rollouts and the solver, the threads the rollouts share (None: the
    cores available; the values do not depend on it).

    ``held_rollouts``: rollouts per leaf state of the hand the player holds, at most ``held_budget``
    games in all (fewer per leaf state, at least one, where they are many; None: no cap). The move
    played weighs those leaves' values against the opponent's range alone, so with a few rollouts
    their noise, not the game, would choose it; the other hands' values are averaged over both ranges.

    ``prune``: the share of the root's weight its lightest histories may hold and be left out of the
    tree (:func:`coupsolve.trees.rooted.build.rooted_start`: every hand of the opponent keeps a
    history; the acting player's light hands but the one it holds may go altogether). ``budget``: the
    most rollout games of the other leaf states (fewer rollouts per leaf state, at least one,
    where the leaf states are many; None: no cap). These two bound the time of a re-solve whose root
    holds many histories (after an Exchange) at some cost in precision there. ``max_histories``
    refuses a root whose walk would hold more histories at once (each Exchange multiplies the
    exchanger's private states by about 22): :func:`resolve` raises ``TooManyHistories``, and
    :class:`~coupsolve.search.policy.ResolvingPolicy` plays the blueprint's move there instead.

    ``root``: where the subgame starts (:data:`ROOTS`; module docstring, step 1).

    ``most_histories``: the most histories a tree looking more than one turn ahead may hold; past it the
    re-solve looks a turn less far ahead (:attr:`Resolution.lookahead` says how far it looked; None: no
    cap). It bounds a move's time where the ranges are wide (after an Exchange, the exchanger's private
    states are about 22 times as many), at the cost of the horizon there. ``growth``: the least factor
    a turn more is taken to multiply a tree's histories by; a tree past ``most_histories / growth`` is
    not counted a turn further, since that count would stop past the cap anyway, after walking as far
    (the factor measured over the benchmark's roots: the research notes; 1 counts every time).
    ``opening``: with a lookahead of two turns or more, the game's first turn is played from one solve
    at the game's start per seat, kept for the process (:mod:`coupsolve.search.opening`).

    ``honest``: the prior probability that the opponent is the honest blueprint rather than the
    blueprint (:data:`~coupsolve.search.blueprint.MODELS`; module docstring, step 2). 0: the blueprint
    alone, as DeepStack and Modicum take the opponent; the default, 0.9, is the setting measured to
    beat both HonestBot and the blueprint's table (the research notes). ``trust``: how far the
    opponent's challenge rounds inside the subgame are held to the honest blueprint's move, as a share
    of the posterior (:mod:`coupsolve.search.model`; 0: the model weighs only the opponent's hands at
    the root). Not with ``safe``.

    ``safe``: re-solve with the gadget (:data:`SAFE`, :mod:`coupsolve.search.safe`): each private state
    of the opponent enters the subgame or takes its value under the blueprint from there (rolled out
    ``held_rollouts`` times per history at the root, at most ``held_budget`` games); its weight at the
    root is its blueprint range (``"blueprint"``: it may only leave hands out of it) or the same for
    every hand (``"uniform"``, Burch's gadget as written). True is ``"blueprint"``; False: plain
    re-solving."""

    lookahead: int = 1
    continuations: int = 2
    rollouts: int = 4
    iterations: int = 100
    algorithm: str = "cfr+"
    seed: int = 0
    threads: int | None = None
    prune: float = 0.01
    budget: int | None = 20000
    held_rollouts: int = 64
    held_budget: int | None = 100000
    max_histories: int | None = 4_000_000
    root: str = "here"
    most_histories: int | None = 500_000
    growth: float = 10.0
    opening: bool = True
    safe: str | bool = False
    honest: float = 0.9
    trust: float = 0.5


class WholeGame(NamedTuple):
    """The game a re-solve solved where no leaf is cut (every history ends the game first): the rooted
    tree itself, with a depth-limited game's fields."""

    tree: object
    coup_tree: object
    leaves: tuple = ()


class Resolution(NamedTuple):
    """One re-solve: ``probabilities`` (``{action: probability}`` at the player's information set),
    ``own_policy`` (the same at each of the player's information sets at the public state re-solved,
    ``{hash: {action: probability}}``, hashes as
    :attr:`~coupsolve.trees.stepwalk.build.CoupPublicTree.infoset_hash`), the acting ``player``, the
    subgame's ``value`` to player 0 at its root under the solve's average strategy, both players'
    ``ranges`` there (normalised, per private state of :class:`~coupsolve.trees.rooted.PublicRoot`),
    the ``root``, the ``game`` solved (the depth-limited game, or a :class:`WholeGame`; with
    ``safe``, either under the gadget, :class:`~coupsolve.search.safe.Gadgeted`, whose ``value`` this
    is), the solve's ``result``, the ``seconds`` of each stage, ``honesty``: the chance, after
    what the player has seen, that the opponent is the honest blueprint (0 without
    ``SearchSettings.honest``), how many turns the solve looked ahead (``lookahead``:
    ``SearchSettings.lookahead``, or fewer past ``SearchSettings.most_histories``), and whether the move
    came from the opening's solve (``opening``; its ``seconds`` are then the look-up's alone)."""

    probabilities: dict
    own_policy: dict
    player: int
    value: float
    ranges: tuple
    root: object
    game: object
    result: object
    seconds: dict
    honesty: float = 0.0
    lookahead: int = 1
    opening: bool = False

    def belief(self, history) -> dict:
        """What the acting player thinks the other holds at the decision ``history`` reaches (the one
        re-solved): the probability of each of the other's hands given its own private state and the
        public cards, by Bayes' rule from the other's range at the root through the re-solve's
        strategy for the other's moves since (``{hand: probability}``, largest first)."""
        from coupsolve.search.own import HashedSolve, own_choices
        from coupsolve.trees.rooted import hand_name, public_root

        me, you, root = self.player, 1 - self.player, self.root
        here = root.actions == tuple(int(a) for a in history)
        node = root.node if here else public_root(root.rules, history).node
        rows = np.flatnonzero(node.entry[:, me] == node.entry[node.target, me])
        paths = np.ascontiguousarray(node.paths[rows], np.int32)
        w = node.start.prob[rows] * self.ranges[you][node.entry[rows, you] if here else
                                                     _root_entries(root, you, paths)]
        if not here:  # the other's moves since the root, at the re-solve's strategy
            row, move = np.zeros(paths.size, np.int64), np.zeros(paths.size, np.int32)
            key = np.zeros(paths.size, np.uint64)
            n = own_choices(root.rules.params(), paths, you, row, move, key)
            solve = HashedSolve.of(self)
            for r, a, h in zip(row[:n].tolist(), move[:n].tolist(), key[:n].tolist()):
                i = solve.find(h)
                if i >= 0 and solve.tree.infoset_player[i] == you:  # a move inside the re-solved game
                    w[r] *= solve.strategy(i).get(a, 0.0)
        out = {}
        names = [hand_name(c) for c in node.hand[you]]
        for e, x in zip(node.entry[rows, you].tolist(), w / w.sum()):
            out[names[e]] = out.get(names[e], 0.0) + float(x)
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def _root_entries(root, player, paths):
    """``player``'s entry at ``root`` of each of ``paths`` (histories through it, rows padded with -1):
    the entry of the root history each one begins with. Histories at one public node need not have as
    many moves (a forced move is no move), so each is matched on every length the root's have."""
    lengths = (root.node.paths >= 0).sum(axis=1)
    at_root = {tuple(p[:n]): e for p, n, e in zip(root.node.paths.tolist(), lengths.tolist(),
                                                  root.node.entry[:, player].tolist())}
    sizes = np.unique(lengths).tolist()
    out = np.zeros(len(paths), np.int64)
    for i, p in enumerate(paths.tolist()):
        out[i] = next(at_root[tuple(p[:n])] for n in sizes if tuple(p[:n]) in at_root)
    return out


def _opponent_ranges(blueprint, root, me, honest):
    """Both players' ranges at ``root`` as :func:`resolve` starts from them (module docstring, step 2,
    without the acting player's own range), floored; the chance that the opponent is the honest
    blueprint given what the acting player has seen (0 where ``honest`` is); and that chance for each
    hand the opponent may hold (:func:`~coupsolve.search.model.posterior_by_hand`; empty where
    ``honest`` is 0)."""
    from coupsolve.search.model import posterior_by_hand

    ranges = list(blueprint.ranges(root))
    you = 1 - me
    if not honest:
        return [_floored(r) for r in ranges], 0.0, {}
    fair = blueprint.reach(root, you, "honest")
    by_hand = posterior_by_hand(root.node.hand[you], ranges[you], fair, honest)
    node = root.node
    rows = node.entry[:, me] == node.entry[node.target, me]  # the histories of the hand it holds
    weight = node.start.prob[rows]
    seen = [float((weight * r[node.entry[rows, you]]).sum()) for r in (ranges[you], fair)]
    total = (1 - honest) * seen[0] + honest * seen[1]
    ranges[you] = (1 - honest) * ranges[you] + honest * fair
    return [_floored(r) for r in ranges], honest * seen[1] / total if total > 0 else 0.0, by_hand


def _floored(r):
    r = np.asarray(r, np.float64)
    top = r.max(initial=0.0)
    if not top > 0:
        return np.ones_like(r)
    return np.maximum(r / top, RANGE_FLOOR)


def resolve(blueprint, history, settings: SearchSettings = SearchSettings(), own=None) -> Resolution:
    """Re-solve at the decision the game's ``history`` (moves from the start, as OpenSpiel's
    ``state.history()``) has reached, with ``blueprint`` (a :class:`~coupsolve.search.blueprint.Blueprint`)
    and ``settings`` (module docstring); with ``own`` (an :class:`~coupsolve.search.own.OwnRange`), the
    acting player's range is the one its earlier re-solves played, where it has one. A decision the
    opening covers (:func:`coupsolve.search.opening.covers`) is played from the opening's solve."""
    from coupsolve.trees.stepwalk.build import sequence_hashes

    history = tuple(int(a) for a in history)
    states = replay(blueprint.rules, history)
    me = states[-1].current_player()
    key = int(sequence_hashes(blueprint.rules, history)[me, 0])
    if covers(states[-1], settings):
        clock = time.perf_counter()
        solved = solve_opening(blueprint, settings, me)
        solved = solved._replace(seconds={"opening": time.perf_counter() - clock}, opening=True)
    else:
        solved = solve_at(blueprint, history, states, me, settings, own, key)
    coup, tree, average = solved.game.coup_tree, solved.game.tree, solved.result.average_policy
    found = np.flatnonzero(coup.infoset_hash == np.uint64(key))
    if found.size != 1:
        raise RuntimeError(f"{found.size} information sets of the re-solved game have the player's key")
    own_policy = _own_policy(tree, coup, average, int(found[0]))
    return solved._replace(probabilities=own_policy[key], own_policy=own_policy)


def solve_opening(blueprint, settings: SearchSettings, seat: int) -> Resolution:
    """The opening's solve for ``seat`` (:mod:`coupsolve.search.opening`): the re-solve at the game's
    start, its strategies not read yet, solved on first use and kept for the process. Its horizon is
    not cut for time (``most_histories``): it is solved once."""
    solved = kept_opening(blueprint, settings, seat)
    if solved is None:
        from coupsolve.trees.stepwalk.build import sequence_hashes

        whole = settings._replace(most_histories=None)
        key = int(sequence_hashes(blueprint.rules, ())[seat, 0])
        solved = solve_at(blueprint, (), replay(blueprint.rules, ()), int(seat), whole, None, key)
        keep(blueprint, settings, seat, solved)
    return solved


def solve_at(blueprint, history, states, me, settings: SearchSettings, own, key) -> Resolution:
    """The re-solve :func:`resolve` makes for player ``me`` at ``history`` (``states``:
    :func:`~coupsolve.search.root.replay` of it; ``key``: the hash of ``me``'s information set there,
    whose leaves get their own rollouts), its strategies at the player's information sets not yet read
    (``probabilities`` and ``own_policy`` empty)."""
    import solvers

    from coupsolve.depth.public import public_depth_limited_game
    from coupsolve.plan.options import solve_threads
    from coupsolve.search.leaves import rooted_leaf_values
    from coupsolve.search.model import hold
    from coupsolve.search.safe import entered, with_gadget
    from coupsolve.trees.rooted import public_root

    rules, s = blueprint.rules, settings
    kind = check_safe(s)
    clock, seconds = [time.perf_counter()], {}

    def lap(name):
        now = time.perf_counter()
        seconds[name] = now - clock[0]
        clock[0] = now

    start = history[:root_of(states, s.root)]
    root = public_root(rules, start, s.max_histories)
    ranges, honesty, by_hand = _opponent_ranges(blueprint, root, me, s.honest)
    mine = own.at(root, me) if own is not None else None
    if mine is not None:
        ranges[me] = mine
    lap("root")
    # every hand of the opponent keeps a history (the floor's point: an opponent off the blueprint is
    # still met); of its own hands, the one it holds (its range is exact: the light ones may go)
    keep = [True, True]
    keep[me] = [int(root.node.entry[root.node.target, me])]
    safe = bool(kind) and max(root.num_private) > 1  # a root with one pair has no range to choose
    if safe and kind == "uniform":  # Burch's gadget as written: the opponent's choices alone make its range
        ranges[1 - me] = np.ones(root.num_private[1 - me])
    cut, size, rooted, ahead = _rooted(rules, root, ranges, s, keep, safe)
    lap("tree")
    threads = solve_threads(s.threads)[0]
    held = np.flatnonzero(rooted.infoset_hash == np.uint64(key))
    joined, values = rooted_leaf_values(rooted, blueprint, start, s.continuations, rollouts=s.rollouts,
                                        seed=s.seed, threads=threads, budget=s.budget,
                                        focus=int(held[0]) if held.size == 1 else None,
                                        focus_rollouts=s.held_rollouts, focus_budget=s.held_budget)
    lap("leaves")
    game = public_depth_limited_game(cut, values, joined) if len(joined.leaves) else WholeGame(rooted.tree, rooted)
    if safe:
        game = with_gadget(game, size, blueprint, 1 - me, rollouts=s.held_rollouts, seed=s.seed, threads=threads,
                           budget=s.held_budget)
        lap("gadget")
    held = hold(rooted, game.tree, 1 - me, by_hand, honesty, s.trust, rules.params(),
                states[len(start)].engine_state()) if s.honest and not safe else None
    result = solvers.solve(game.tree if held is None else held, algorithm=s.algorithm, iterations=s.iterations,
                           seed=s.seed, progress=False, check_every=s.iterations)
    lap("solve")
    value = float(np.asarray(result.game_value).reshape(-1)[0]) if np.size(result.game_value) else float("nan")
    if safe:  # the opponent's range in the subgame: its weight at the root, times its entering
        ranges[1 - me] = ranges[1 - me] * entered(game, result.average_policy, root, 1 - me)
    norm = tuple(r / r.sum() if r.sum() > 0 else r for r in ranges)
    return Resolution({}, {}, me, value, norm, root, game, result, seconds, honesty, ahead)


class _Past(Exception):
    """A count stopped as it passed its most histories (:func:`_rooted`)."""


def _rooted(rules, root, ranges, s, keep, safe):
    """``(cut rules, size or None, rooted tree, turns ahead)`` of a re-solve at ``root``: ``s.lookahead``
    turns ahead, or the most turns ahead (one at least) whose tree holds at most ``s.most_histories``
    histories. Counted nearest first: a turn more multiplies a tree (``s.growth`` times, taken), so the
    counts stop before a tree taken to pass the cap or at the first past it, itself stopped there; the
    tree is built from the chosen one's count (the gadget needs the root's histories as it holds them)."""
    from coupsolve.trees.rooted import build_rooted_public_tree, count_rooted_public_tree

    def stop(stage, done, total):
        if done > s.most_histories:
            raise _Past

    def cut(ahead):
        return rules.replace(turn_limit=min(root.turn_limit_ahead(ahead), rules.turn_limit))

    def count(ahead, capped):  # None past the cap
        try:
            size = count_rooted_public_tree(cut(ahead), root, *ranges, stop if capped else None, s.prune, keep)
        except _Past:
            return None
        return None if capped and size.walk.histories > s.most_histories else size

    if s.lookahead < 1:
        raise ValueError(f"the lookahead is at least one turn, not {s.lookahead}")
    ahead, size = s.lookahead, None
    if s.most_histories is not None and s.lookahead > 1:
        ahead, size = 1, count(1, False)
        while ahead < s.lookahead:
            if cut(ahead + 1) == cut(ahead):  # the game ends first: the same tree, not counted again
                ahead += 1
                continue
            further = None if size.walk.histories * s.growth > s.most_histories else count(ahead + 1, True)
            if further is None:
                break
            ahead, size = ahead + 1, further
    elif safe:
        size = count(ahead, False)
    rules = cut(ahead)
    return rules, size, build_rooted_public_tree(rules, root, *ranges, size=size, leaf_states=True, prune=s.prune,
                                                 keep=keep), ahead


def check_safe(settings):
    """``settings.safe`` as one of :data:`SAFE` (True is ``"blueprint"``), or ``ValueError`` in one line."""
    kind = "blueprint" if settings.safe is True else settings.safe
    if kind not in SAFE:
        raise ValueError(f"safe re-solving is one of {', '.join(map(repr, SAFE))}, not {settings.safe!r}")
    return kind


def _own_policy(tree, coup, average, infoset):
    """``{information set hash: {action: probability}}``: the average strategy (normalised; uniform
    where it is all zero) at each information set of ``infoset``'s player at its public node."""
    f = tree.flat
    at = np.flatnonzero((f.infoset_node == f.infoset_node[infoset])
                        & (f.infoset_player == f.infoset_player[infoset]))
    return {int(coup.infoset_hash[i]): infoset_strategy(tree, average, int(i)) for i in at}
