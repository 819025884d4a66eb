"""The ``coupsolve`` command line: solve a preset, analyse a strategy, size a tree, play the bot.

It parses, calls the library and prints: the plan of a solve (which tree, builder and precision) is
:mod:`coupsolve.plan`'s, strategy files are :mod:`coupsolve.strategy`'s, the analysis is
:func:`coupsolve.analysis.analyse` (``tests/test_cli_layers.py`` checks that no library module imports
this package and that its functions only parse, check, call and print).

Every error (a bad option, a missing or foreign strategy file, an output that cannot be written, a
tree too big for memory) prints one line ``coupsolve: error: ...`` and exits with status 2, before any
long step where it can be known then: the command line's own :class:`CliError` and the library's
one-line ``ValueError`` subclasses (:class:`coupsolve.plan.PlanError`,
:class:`coupsolve.strategy.StrategyError`) alike. An interrupted solve saves and reports what it
finished and exits with 130, and a Ctrl-C while the command line starts says "coupsolve: interrupted"
too (:mod:`coupsolve.start`). The parser imports no command's work: ``--help`` loads neither numba nor
the solvers (``tests/test_cli_startup.py``). The commands live in :mod:`~coupsolve.cli.solve` (info, solve),
:mod:`~coupsolve.cli.train` (train), :mod:`~coupsolve.cli.strategy` (analyse, play),
:mod:`~coupsolve.cli.match` (match), :mod:`~coupsolve.cli.serve` (serve) and here (random, from :mod:`coupsolve.openspiel.narrate`); the
parser in :mod:`~coupsolve.cli.args`; the checks made before any work in :mod:`~coupsolve.cli.checks`.
"""

from __future__ import annotations

import os
import sys

from coupsolve.start import INTERRUPTED, command_line_start, started, was_interrupted

with command_line_start():  # the coupsolve script imports this module before main runs
    from coupsolve.cli.args import (DEFAULT_MAX_ITERATIONS, DEFAULT_TARGET, DEFAULT_TURN_LIMIT,  # noqa: F401
                                    PRESETS, CliError)
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
    from coupsolve.cli.serve import cmd_serve
    from coupsolve.cli.train import cmd_train

    return _build_parser({"solve": cmd_solve, "demo": cmd_solve, "analyse": cmd_analyse, "info": cmd_info,
                          "play": cmd_play, "random": _cmd_random, "train": cmd_train,
                          "match": cmd_match, "serve": cmd_serve})


def main(argv=None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    started()  # a Ctrl-C is a KeyboardInterrupt again, caught below
    try:  # the commands import what they use (numba, the solvers) when they run: a Ctrl-C there too
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser().parse_args(argv)
        args.argv = argv  # what was typed, for the files that record their command
        return args.func(args)
    except (CliError, ValueError, MemoryError) as e:  # ValueError: PlanError, StrategyError, ...
        print(f"coupsolve: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("coupsolve: interrupted", file=sys.stderr)
        return INTERRUPTED
    except ImportError:  # a Ctrl-C that fell in a C extension's import comes out as an ImportError
        if not was_interrupted():
            raise
        print("coupsolve: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:  # the reader went away (for example `| head`): stop quietly
        sys.stdout = open(os.devnull, "w")
        return 0
    except OSError as e:  # a file that cannot be written (a full disk) or read: one line
        print(f"coupsolve: error: {e}", file=sys.stderr)
        return 2

