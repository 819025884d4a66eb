"""``coupsolve solve --leaves``: the options of a depth-limited solve, their conflicts, and what is
said of its leaves (the game itself is :func:`coupsolve.depth.build.build`'s)."""

from __future__ import annotations

from coupsolve.cli import values as V


def add_leaves_args(p):
    """The depth-limited solve's options on the ``solve`` parser."""
    p.add_argument("--leaves", metavar="BLUEPRINT.npz",
                   help="a depth-limited solve: at the turn limit each player chooses a continuation of "
                        "this blueprint for the rest of the game (a train strategy of the same rules, "
                        "valued by rollouts, or a solve of a longer turn limit, valued exactly; "
                        "'blueprint': the full-length one that comes with coupsolve) instead of the --limit-payoff "
                        "(the history tree when it fits the memory, else the public tree, the same game in fewer "
                        "nodes; --representation history or public to choose)")
    p.add_argument("--continuations", type=V.whole_number(1, 4), metavar="K",
                   help="with --leaves: continuations each player chooses among (the blueprint, bluffing "
                        "more, challenging more, challenging less: the first K) (default: 4, or the most that "
                        "fit in memory, said before the leaves are valued)")
    p.add_argument("--rollouts", type=V.rollouts, default=32, metavar="R",
                   help="with --leaves from a train strategy: games played from each leaf state per pair "
                        "of continuations (seeded by --seed), or 'exact': the rest of the game as the "
                        "Markov chain of the blueprint's play, evaluated exactly (a features blueprint; "
                        "about an hour and 20 GB of disk for the full game, once: the values are cached)")


def leaves_conflict(args) -> str | None:
    """The one-line message of an option that contradicts ``--leaves`` or does nothing without it, or
    None."""
    given = getattr(args, "given", frozenset())
    if not getattr(args, "leaves", None):
        extra = [o for o in ("continuations", "rollouts") if o in given]
        return f"--{extra[0]} does nothing without --leaves" if extra else None
    if getattr(args, "representation", "auto") == "pieces" or "pieces" in given:
        return ("--leaves builds its depth-limited public tree whole, and --ray deals that tree's parts to the "
                "cluster's workers (--ray-workers): drop --pieces")
    if "limit_payoff" in given:
        return "--limit-payoff scores the turn limit; with --leaves the blueprint's continuations do"
    if getattr(args, "selection", False):
        return "--selection compares the equilibria of the plain turn-limit game; with --leaves it does not apply"
    return None


def say_leaves(game, result, human):
    """How often each player chose each continuation at its leaves, and the leaf values' precision."""
    for p, shares in game.leaf_choice(result.average_policy).items():
        words = ", ".join(f"{name} {share:.1%}" for name, share in shares.items())
        print(f"p{p}'s continuations at its leaves (reach-weighted): {words}", file=human)
    values = game.leaf_values
    if values.stderr is not None and not values.stderr.any():
        print(f"leaf values from {values.states:,} leaf states, exact", file=human)
    elif values.stderr is not None:
        print(f"leaf values from {values.states:,} leaf states; standard error at most "
              f"{values.stderr.max(initial=0.0):.3g}, {values.mean_stderr():.3g} on average", file=human)
