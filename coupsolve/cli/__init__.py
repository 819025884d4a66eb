"""The ``coupsolve`` command line: solve a preset, analyse a strategy, size a tree, play the bot.

Every error (a bad option, a missing or foreign strategy file, an output that cannot be written, a
tree too big for memory) prints one line ``coupsolve: error: ...`` and exits with status 2, before any
long step where it can be known then; an interrupted solve saves and reports what it finished and exits
with 130. The commands live in ``cli_solve`` (info, solve), ``cli_train`` (train),
``cli_strategy`` (analyse, play), ``cli_match`` (match) and ``coupsolve.openspiel.narrate`` (random); the parser in ``cli_args``; the checks made before any work in ``cli_checks``.
"""

from __future__ import annotations

import os
import sys

from coupsolve.cli.args import (DEFAULT_MAX_ITERATIONS, DEFAULT_TARGET, DEFAULT_TURN_LIMIT, PRESETS,  # noqa: F401
                       CliError)
from coupsolve.cli.args import build_parser as _build_parser
from coupsolve.openspiel.narrate import random_game_log

__all__ = ["CliError", "build_parser", "main", "random_game_log"]


def _cmd_random(args) -> int:
    from coupsolve.rules import Rules

    setup = args.setup or ("selection" if args.players == 2 else "standard")  # selection is 2-player only
    rules = Rules(players=args.players, setup=setup, turn_limit=args.turn_limit)
    print("\n".join(random_game_log(rules, args.seed)))
    return 0


def build_parser():
    """The parser of every command, each with its function as ``args.func``."""
    from coupsolve.cli.solve import cmd_info, cmd_solve
    from coupsolve.cli.strategy import cmd_analyse, cmd_play
    from coupsolve.cli.match import cmd_match
    from coupsolve.cli.train import cmd_train

    return _build_parser({"solve": cmd_solve, "demo": cmd_solve, "analyse": cmd_analyse, "info": cmd_info,
                          "play": cmd_play, "random": _cmd_random, "train": cmd_train,
                          "match": cmd_match})


def main(argv=None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CliError, ValueError, MemoryError) as e:
        print(f"coupsolve: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("coupsolve: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (for example `| head`): stop quietly
        sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as e:  # a file that cannot be written (a full disk) or read: one line
        print(f"coupsolve: error: {e}", file=sys.stderr)
        return 2

