"""The command line's options of the re-solving player (``play --search``, ``match --search``):
:mod:`coupsolve.search` made from them."""

from __future__ import annotations

from coupsolve.cli import values as V

__all__ = ["add_search_args", "search_settings", "searching"]


def add_search_args(p):
    """``--search K``, ``--search-iterations N``, ``--search-honest Q`` and ``--search-trust T`` of
    ``play``, ``match`` and ``serve``."""
    p.add_argument("--search", type=V.whole_number(0, 4), default=0, metavar="K",
                   help="re-solve at each of the strategy's decisions, K turns ahead (the current one "
                        "included), its leaves valued by rollouts of the strategy (a two-player training "
                        "over the features abstraction, such as the shipped blueprint); 0: play its table")
    p.add_argument("--search-iterations", type=V.whole_number(1, 1 << 20), metavar="N", default=None,
                   help="solver iterations per re-solve (default: coupsolve.search.SearchSettings's)")
    p.add_argument("--search-honest", type=V.probability, metavar="Q", default=None,
                   help="the prior that the opponent is an honest player (the strategy without the claims it "
                        "cannot back, challenging only claims it sees are false), updated by Bayes' rule as it "
                        "plays; 0: the opponent is taken to play the strategy itself (default: "
                        "coupsolve.search.SearchSettings's)")
    p.add_argument("--search-trust", type=V.probability, metavar="T", default=None,
                   help="how far the opponent's challenges inside each re-solve are held to the honest player's, "
                        "as a share of the chance it is that player (0: only its hand is modelled; default: "
                        "coupsolve.search.SearchSettings's)")


def search_settings(args):
    """The :class:`coupsolve.search.SearchSettings` of ``--search K``, ``--search-iterations N``,
    ``--search-honest Q`` and ``--search-trust T`` (and ``--seed``, where the command has one); an
    option not given takes the settings' default."""
    from coupsolve.search import SearchSettings

    default = SearchSettings()
    iterations = default.iterations if args.search_iterations is None else args.search_iterations
    honest = default.honest if args.search_honest is None else args.search_honest
    trust = default.trust if args.search_trust is None else args.search_trust
    return SearchSettings(lookahead=args.search, iterations=iterations, seed=getattr(args, "seed", 0), honest=honest,
                          trust=trust)


def searching(args, game, policy, what):
    """``(policy, what)``: the strategy's, or with ``--search`` the re-solving player built on it."""
    if not args.search:
        return policy, what
    from coupsolve.search import Blueprint, ResolvingPolicy

    settings = search_settings(args)
    turns = f"{args.search} turn{'s' if args.search > 1 else ''}"
    return (ResolvingPolicy(game, Blueprint.load(args.strategy), settings),
            f"{what}; re-solving {turns} ahead at each decision, {settings.iterations} iterations"
            + (f", prior {settings.honest:g} that its opponent is honest (its challenges held at trust "
               f"{settings.trust:g})" if settings.honest else ""))
