"""What ``solve`` and ``analyse`` print and write: the analysis, the plot and one JSON report.

Both commands end in :func:`present`, so their JSON is the same object: the solve's provenance
(algorithm, iterations, exploitability, rules, game id, seed, speed options, seconds, library version)
and the full analysis (:meth:`coupsolve.analysis.history.Analysis.to_dict`).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path


def provenance(result, rules) -> dict:
    """Where a strategy comes from: the fields of a :class:`solvers.SolveResult` and its rules."""
    expl = result.exploitability
    return {"rules": rules.to_dict(), "game_id": result.game_id, "algorithm": result.algorithm,
            "iterations": int(result.iterations), "seed": int(result.seed),
            "exploitability": None if math.isnan(expl) else expl,
            "game_value": [float(x) for x in result.game_value], **result.options,
            "solve_seconds": float(result.seconds), "interrupted": bool(result.interrupted),
            "version": result.version}


def rules_title(rules) -> str:
    """The rules in words, for a heading: ``"Coup, card selection, 2 players, turn limit 2 (a draw at
    the limit)"``, and any other option changed from its default as ``name=value``."""
    setup = {"selection": "card selection", "standard": "standard deal"}.get(rules.setup, rules.setup)
    payoff = "a draw" if rules.limit_payoff == "draw" else f"{rules.limit_payoff} payoff"
    other = {k: v for k, v in rules.game_params().items()
             if k not in ("setup", "players", "turn_limit", "limit_payoff")}
    return (f"Coup, {setup}, {rules.players} players, turn limit {rules.turn_limit} ({payoff} at the "
            f"limit)" + "".join(f", {k}={v}" for k, v in other.items()))


def turn_limit_note(rules) -> str:
    """One line on what the turn limit means for the table that follows it."""
    return (f"turn limit {rules.turn_limit}: the game stops after {rules.turn_limit} turn"
            f"{'s' if rules.turn_limit > 1 else ''} and is scored as "
            f"{'a draw' if rules.limit_payoff == 'draw' else 'by influence'}, so this is the equilibrium "
            "of that short game, not of Coup played to the end (coupsolve train plays full games)")


def title(rules, result) -> str:
    """The heading of the table and the plot: rules, algorithm, iterations, exploitability."""
    return (f"{rules_title(rules)} - {result.algorithm}, {result.iterations:,} iterations, exploitability "
            f"{result.exploitability:.3g}")


def leaves_note(rules, leaves) -> str:
    """One line on what a depth-limited game's leaves mean for the table that follows it."""
    from coupsolve.strategy.shipped import SHIPPED

    k, source = int(leaves["continuations"]), str(leaves["blueprint"])
    blueprint = f"the shipped {source}" if source in SHIPPED else f"the blueprint {os.path.basename(source)}"
    plays = f"plays {blueprint}" if k == 1 else f"chooses one of {k} continuations of {blueprint}"
    return (f"turn limit {rules.turn_limit} with blueprint leaves: after {rules.turn_limit} turn"
            f"{'s' if rules.turn_limit > 1 else ''} each player {plays} for the rest of the "
            "game, valued by " + (f"{leaves['rollouts']} rollouts per leaf state (seed {leaves['seed']})"
                                  if leaves.get("estimated") else "the blueprint's game exactly"))


def present(analysis, result, rules, args, human=None, selection=None, **extra) -> None:
    """Print the analysis to ``human`` (default: standard output), and the ``selection``
    (:class:`coupsolve.analysis.selection.Selection`) if given, draw ``args.plot`` (and the
    selection beside it) and write ``args.json`` (with ``extra`` fields)."""
    human = sys.stdout if human is None else human
    leaves = result.options.get("leaves") if isinstance(result.options, dict) else None
    if leaves:
        print(leaves_note(rules, leaves), file=human)
    elif rules.turn_limit < 100:  # 100: the rules' own, a game played to its end
        print(turn_limit_note(rules), file=human)
    print(analysis.to_table(), file=human)
    if selection is not None:
        print("\n" + selection.to_table(), file=human)
    if args.plot:
        analysis.plot(args.plot)
        print(f"plot written to {args.plot}", file=human)
        if selection is not None:  # beside it: NAME.selection.SUFFIX
            beside = Path(args.plot).with_name(f"{Path(args.plot).stem}.selection{Path(args.plot).suffix}")
            selection.plot(beside)
            print(f"selection plot written to {beside}", file=human)
    if args.json:
        report = {**provenance(result, rules), **extra,
                  "bluff": {k: (None if math.isnan(v) else v) for k, v in analysis.bluff.items()},
                  "analysis": analysis.to_dict()}
        if selection is not None:
            report["selection"] = selection.to_dict()
        write_json(report, args.json, human)


def write_json(report, target, human) -> None:
    """``report`` as one JSON line: standard output's last line when ``target`` is ``-``, else the file
    ``target`` (said on ``human``)."""
    text = json.dumps(report)
    if target == "-":
        print(text)
    else:
        try:
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
        except OSError as e:
            from coupsolve.cli.args import CliError

            raise CliError(f"--json {target}: not written ({e.strerror or e})") from None
        print(f"JSON report written to {target}", file=human)
