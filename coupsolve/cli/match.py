"""``coupsolve match``: a saved strategy head to head against the shipped bots or another strategy file.

The strategy takes one seat and the opponent every other seat, in duplicate deals
(``coupsolve.evaluation.aivat.match``: each seeded deal played once per rotation of the seats,
a 95% interval over the deals from the normal approximation), and, unless ``--pilot 0``, with a
variance-reduced estimate beside the plain one (control variates at every event,
``coupsolve.evaluation.aivat``, with a value function fitted on pilot games seeded apart from the
match), and, for each player, the cards it lost a game by cause (a challenge of a true claim, a bluff
caught, a Coup, an Assassination: ``coupsolve.evaluation.losses``). An equal seat averages 0 (a win
pays 1, a loss ``-1 / (players - 1)``, a draw at the turn limit what the rules' limit payoff says), so
a strategy beats an opponent when its interval lies above 0; the verdict reads the variance-reduced
interval where there is one. Stepping is OpenSpiel's, in Python: a full-length four-player game takes
some milliseconds.
"""

from __future__ import annotations

import os
import sys

from coupsolve.cli.args import CliError
from coupsolve.cli.search import searching
from coupsolve.cli.solve import printer

__all__ = ["cmd_match", "OPPONENTS"]

#: The opponents named by a word: the shipped bots (``coupsolve.openspiel.bots``), by their class names.
OPPONENTS = {"honest": "HonestBot", "random": "RandomBot"}
SELF = "self"


def _opponent(word, rules, game, own):
    """``(name, policy)`` of ``--against word``: a bot, the strategy itself, or a strategy file of the
    same rules."""
    from coupsolve.openspiel import bots
    from coupsolve.strategy import load

    if word in OPPONENTS:
        return OPPONENTS[word], getattr(bots, OPPONENTS[word])(game)
    if word == SELF:
        return "itself", own
    theirs = load(word, printer(sys.stdout))
    if theirs.rules != rules:
        raise CliError(f"--against {word}: a strategy for other rules ({theirs.rules}) than the matched "
                       f"one ({rules})")
    return word, theirs.policy()


def cmd_match(args) -> int:
    """Play the strategy against each ``--against`` opponent in turn; print a row each."""
    from coupsolve.evaluation.aivat import match, match_names
    from coupsolve.evaluation.losses import CardLosses, table as loss_table
    from coupsolve.cli.checks import check_json_target
    from coupsolve.cli.report import write_json
    from coupsolve.strategy import load
    from coupsolve.strategy.shipped import SHIPPED, resolve

    for word in args.against or ():  # every input and output checked before any game is loaded
        if word not in OPPONENTS and word != SELF and not os.path.isfile(resolve(word)):
            raise CliError(f"--against {word}: neither a bot ({', '.join(OPPONENTS)}, {SELF}), a shipped "
                           f"strategy ({', '.join(SHIPPED)}) nor a strategy file")
    check_json_target(args.json)
    loaded = load(args.strategy, printer(sys.stdout))
    rules, game = loaded.rules, loaded.game()
    table = loaded.policy(game)
    policy, what = searching(args, game, table, loaded.what)  # its table plays the pilot games
    n = rules.players
    games = args.games - args.games % n  # a multiple of the seats: every seat equally often
    if games < 2 * n:
        raise CliError(f"--games {args.games}: a match of {n} players needs at least {2 * n} games (two "
                       f"deals of {n}: an interval needs two samples)")
    rows = []
    for word in args.against or OPPONENTS:
        name, other = _opponent(word, rules, game, policy)
        losses = CardLosses(games, n)
        result = match(game, policy, other, games, args.seed, args.pilot, pilot_policy=table, watch=losses)
        reduced = result.adjusted_mean is not None
        low, high = result.interval("strategy", adjusted=reduced)
        verdict = "beats it" if low > 0 else "loses to it" if high < 0 else "no difference shown"
        row = {"against": name, "games": games, "deals": result.deals, "seed": args.seed,
               "mean": float(result.mean[0]), "half_width": float(result.half_width[0]),
               "win_rate": float(result.win_rate[0]), "draw_rate": float(result.draw_rate),
               "verdict": verdict, "seconds": round(result.seconds, 1),
               "losses": losses.summary(match_names(n))}
        if reduced:
            row.update(pilot=args.pilot, reduced_mean=float(result.adjusted_mean[0]),
                       reduced_half_width=float(result.adjusted_half_width[0]),
                       variance_reduction=float(result.variance_reduction[0]))
        rows.append(row)
    out = sys.stderr if args.json == "-" else sys.stdout
    print(f"{args.strategy} ({what}), {n} players: one seat against {n - 1} of each opponent; "
          f"{games:,} games each (seed {args.seed}"
          f"{'' if games == args.games else f'; --games {args.games:,} rounded down to a multiple of {n}'}"
          f"), in deals of {n} games with the seats rotated over the same cards; mean payoff per game with "
          "its 95% interval (an equal seat averages 0); a draw: a game no seat won (the turn limit)",
          file=out)
    if any("reduced_mean" in r for r in rows):
        print(f"  reduced: the same games with control variates (a value fitted on {args.pilot:,} pilot "
              "games): as unbiased as the plain mean; (Nx): the interval of N times the games without them",
              file=out)
    width = max(len(r["against"]) for r in rows)
    for r in rows:
        reduced = (f"  reduced {r['reduced_mean']:+.4f} +- {r['reduced_half_width']:.4f} "
                   f"({r['variance_reduction']:.1f}x)" if "reduced_mean" in r else "")
        print(f"  against {r['against']:<{width}}  {r['mean']:+.4f} +- {r['half_width']:.4f}{reduced}  win "
              f"rate {r['win_rate']:.3f}  draw rate {r['draw_rate']:.3f}  {r['verdict']}", file=out)
        for line in loss_table(r["losses"], {"strategy": "the strategy", "opponent": r["against"]}):
            print(line, file=out)
    if args.json:
        write_json({"strategy": str(args.strategy), "players": n, "rows": rows}, args.json, out)
    return 0
