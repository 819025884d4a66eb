"""The command line's parser: every command, every option with its help and its default.

Every value is checked where it is parsed (``argparse`` types), so a bad one ends in one line
``coupsolve: error: argument --NAME: ...`` and exit status 2 before anything is built.
"""

from __future__ import annotations

import argparse
import dataclasses
import re

from coupsolve.cli import values as V
from coupsolve.cli.leaves import add_leaves_args, leaves_conflict
from coupsolve.cli.search import add_search_args

# ``--precision auto``, resolved for the plan's tree; train's --sampling and --abstraction choices
from coupsolve.evaluation.aivat import PILOT_GAMES
from coupsolve.plan.options import ALGORITHM, AUTO as AUTO_PRECISION
from coupsolve.sampling import ABSTRACTIONS
from solvers.options import AVERAGES, PRECISIONS, REGRETS, SAMPLINGS, UPDATES

PRESETS = ("two-player-selection", "two-player-standard")
DEFAULT_TURN_LIMIT = 2  # the largest limit the default solve finishes in about two minutes here
DEFAULT_TARGET = 1e-3
#: The iteration cap of a solve with a target exploitability and no --iterations.
DEFAULT_MAX_ITERATIONS = 20_000
DEFAULT_CHECKPOINT_EVERY = 500
#: Self-play games behind the bluff table of a sampled strategy (train, analyse).
DEFAULT_GAMES = 1000
SHIPPED_HELP = ("a strategy file written by solve --out or train --out (default: blueprint, the full-length "
                "two-player blueprint that comes with coupsolve)")


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


# Rules fields that have a flag of their own: --rule may not set them too (one source for each value).
_OWN_FLAGS = {"turn_limit": "--turn-limit", "limit_payoff": "--limit-payoff", "setup": "--preset"}


def rule_item(item):
    """``NAME=VALUE`` of ``--rule`` as (field name, value), or a one-line error naming the problem."""
    from coupsolve.rules import Rules

    name, sep, value = item.partition("=")
    name = name.strip()
    if not sep:
        raise CliError(f"--rule takes NAME=VALUE (for example selective_coup=true), got {item!r}")
    fields = [f.name for f in dataclasses.fields(Rules)]
    if name not in fields:
        raise CliError(f"--rule {name}: unknown rule option; the options are {', '.join(fields)}")
    if name in _OWN_FLAGS:
        raise CliError(f"--rule {name}: use {_OWN_FLAGS[name]} to set it")
    if name == "players":
        raise CliError("--rule players: the solvers take two-player games; `coupsolve train "
                       "--players N` trains a strategy of N players by sampling, `coupsolve random "
                       "--players N` plays a game of N players")
    low = value.strip().lower()
    if re.fullmatch(r"-?[0-9]+", low) and len(low) > V.MAX_DIGITS:
        raise CliError(f"--rule {name}: {len(low):,} digits; expected a whole number of at most "
                       f"{V.MAX_DIGITS} digits")
    return name, (True if low == "true" else False if low == "false"
                  else int(low) if re.fullmatch(r"-?[0-9]+", low) else value.strip())


def command_line(args) -> str:
    """The command that was typed, as one shell line (``coupsolve train ...``), for a file to record."""
    import shlex

    return shlex.join(["coupsolve", *getattr(args, "argv", [])])


def rules_of(args):
    """The ``Rules`` of ``--preset``, ``--turn-limit``, ``--limit-payoff``, ``--rule`` and, where the
    command has it (``train``), ``--players``: without a preset, the card-selection setup for two players
    and the standard setup for more; a turn limit of ``None`` is the rules' default."""
    from coupsolve.rules import Rules

    players = getattr(args, "players", 2)
    preset = args.preset or ("two-player-selection" if players == 2 else "standard")
    if preset != "standard" and players != 2:
        raise CliError(f"--preset {preset} is a two-player preset; with --players {players} use "
                       "--preset standard")
    kw = {"limit_payoff": args.limit_payoff}
    if args.turn_limit is not None:
        kw["turn_limit"] = args.turn_limit
    kw.update(rule_item(item) for item in args.rule or ())
    try:
        if preset == "two-player-selection":
            return Rules.two_player_selection(**kw)
        return Rules.standard(players=players, **kw)
    except ValueError as e:  # a value of --rule: name the option
        named = [item for item in args.rule or () if str(e).startswith(item.partition("=")[0].strip())]
        raise CliError(f"--rule {named[0]}: {e}" if named else str(e)) from None


def _given_action(base):
    """``base`` (an argparse action class) that also records its option in ``namespace.given``, so a
    check can tell an option given from its default (:func:`given`)."""
    class Given(base):
        def __call__(self, parser, namespace, values, option_string=None):
            super().__call__(parser, namespace, values, option_string)
            namespace.given = getattr(namespace, "given", frozenset()) | {self.dest}
    return Given


def given(args, *dests) -> bool:
    """Whether any of the options ``dests`` (their ``dest`` names) was given on the command line."""
    return bool(set(dests) & getattr(args, "given", frozenset()))


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``coupsolve: error: ...``, status 2) instead of a usage dump;
    options given on the command line are recorded (:func:`given`) and checked against each other
    (:func:`conflicts`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, base in ((None, argparse._StoreAction), ("store", argparse._StoreAction),
                           ("store_true", argparse._StoreTrueAction), ("append", argparse._AppendAction),
                           ("store_const", argparse._StoreConstAction)):
            self.register("action", name, _given_action(base))

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):
        parsed = super().parse_args(args, namespace)
        problem = conflicts(parsed)
        if problem:
            prog = f"{self.prog} {parsed.command}"
            self.exit(2, f"{prog}: error: {problem} (see {prog} --help)\n")
        return parsed


#: (option given, the option it needs, its dest): an option that does nothing without another.
_NEEDS = (("--checkpoint-every", "--checkpoint", "checkpoint_every", "checkpoint"),
          ("--checkpoint-minutes", "--checkpoint", "checkpoint_minutes", "checkpoint"),
          ("--ray-workers", "--ray", "ray_workers", "ray"), ("--force", "--out", "force", "out"),
          ("--max-iterations", "--target-exploitability (or neither it nor --iterations)", "max_iterations",
           None))


def conflicts(args) -> str | None:
    """The first pair of options that contradict each other or where one does nothing, as the one-line
    message naming them, or None."""
    for option, needed, dest, needed_dest in _NEEDS:
        if not given(args, dest):
            continue
        if needed_dest is not None and getattr(args, needed_dest, None) is None:
            return f"{option} does nothing without {needed}"
        if needed_dest is None and getattr(args, "iterations", None) is not None:
            return f"{option} caps a solve to a target; with --iterations it does nothing"
    if given(args, "pieces") and getattr(args, "representation", None) == "history":
        return "--pieces cuts the public tree; with --representation history it does nothing"
    if leaves_conflict(args):
        return leaves_conflict(args)
    names = [item.partition("=")[0].strip() for item in getattr(args, "rule", None) or ()]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        return f"--rule {twice[0]} is given more than once"
    if getattr(args, "resume", None) and given(args, "seed", "algorithm") and getattr(args, "command", "") in (
            "solve", "demo"):
        return "--resume continues the checkpoint's own --algorithm and --seed; give neither"
    return None


class _Help(argparse.HelpFormatter):
    """Every option's help ends with its default (written out where it is not a plain value)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" not in text and action.option_strings and action.default is not argparse.SUPPRESS:
            shown = "off" if action.default is None or action.default is False else "%(default)s"
            text += f" (default: {shown})"
        return text


#: The trees ``solve`` and ``info`` take (``--representation``).
REPRESENTATIONS = ("auto", "history", "public", "pieces")


def _add_rule_options(p, presets=PRESETS, preset=PRESETS[0], turn_limit=DEFAULT_TURN_LIMIT,
                      memory_help="memory the tree and the solve may take, e.g. 4GiB; the count stops as "
                                  "soon as the tree is known to need more"):
    """The options that make the rules, and ``--max-memory``."""
    p.add_argument("--preset", choices=presets, default=preset,
                   help="the rules to start from" + ("" if preset else " (default: two-player-selection "
                                                     "with 2 players, standard with more)"))
    p.add_argument("--turn-limit", type=V.field_number("turn_limit"), default=turn_limit,
                   help="turns before the game is scored by --limit-payoff"
                        + ("" if turn_limit else " (default: the rules' own, 100: played to the end)"))
    p.add_argument("--limit-payoff", choices=["draw", "influence"], default="draw",
                   help="the payoff at the turn limit")
    p.add_argument("--rule", action="append", metavar="NAME=VALUE",
                   help="any other option of the rules, e.g. --rule selective_coup=true "
                        "--rule challenge_bounty=1 (default: none; the options are in docs/rules.md)")
    p.add_argument("--max-memory", type=V.memory_size, metavar="SIZE",
                   help=memory_help + " (default: the memory available now)")


def _add_rules_args(p):
    _add_rule_options(p)
    p.add_argument("--representation", choices=REPRESENTATIONS, default="auto",
                   help="the tree to solve on: history (every history stored; fastest per iteration), "
                        "public (public nodes x private states: less memory; by the class walk when it takes "
                        "the rules, else by stepping every history), pieces (the public tree held as a trunk "
                        "and parts: the least memory, turn limit 4; class walk only), or auto (history when "
                        "it fits the memory, else public, else pieces); info counts the public tree too "
                        "unless history is given")
    p.add_argument("--pieces", type=V.pieces, metavar="N",
                   help="parts of the public tree's count by parts and of a build in pieces (default: "
                        "400; the cut is the first level of 32 x N nodes)")
    p.add_argument("--no-cache", action="store_true",
                   help="count the tree and play --leaves' values afresh: no table of known sizes, no cache "
                        "($COUPSOLVE_CACHE_DIR, else $XDG_CACHE_HOME/coupsolve or ~/.cache/coupsolve), nothing kept")


def _add_solve_args(p):
    from solvers.cfr.algorithms import ALGORITHMS

    _add_rules_args(p)
    p.add_argument("--algorithm", choices=sorted(ALGORITHMS), default=ALGORITHM, help="the CFR variant")
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--iterations", type=V.count,
                      help=f"iterations to run (default: until --target-exploitability {DEFAULT_TARGET:g} "
                           f"or {DEFAULT_MAX_ITERATIONS:,} iterations)")
    stop.add_argument("--target-exploitability", type=V.positive_float, metavar="X",
                      help=f"stop once the exploitability is at most X, or at --max-iterations "
                           f"(default: {DEFAULT_TARGET:g} when --iterations is not given)")
    p.add_argument("--max-iterations", type=V.count, default=DEFAULT_MAX_ITERATIONS,
                   help="the cap of a solve to a target exploitability (not with --iterations)")
    p.add_argument("--check-every", type=V.count, default=25,
                   help="iterations between exploitability checks")
    p.add_argument("--seed", type=V.seed, default=0, help="recorded with the result")
    p.add_argument("--threads", type=V.workers, default=None,
                   help="numba threads for the passes and the leaves' rollouts (default: the cores "
                        "available; one per worker with --ray)")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="solve the public tree on a Ray cluster: its address, 'auto' for the running "
                        "one, or 'local' to start one on this machine (needs pip install "
                        "'coupsolve[ray]'; solves the public tree, whole or, when it does not fit, "
                        "in pieces, and with --leaves the depth-limited public tree; same iterates)")
    p.add_argument("--ray-workers", type=V.workers, default=2,
                   help="Ray actors, each holding a part of the tree or a run of its pieces' parts "
                        "(with --ray)")
    p.add_argument("--precision", choices=(AUTO_PRECISION,) + tuple(PRECISIONS), default=AUTO_PRECISION,
                   help="type of the per-history reach and value buffers (float64 is OpenSpiel-exact; "
                        "float32 saves memory traffic on large trees and stalls near 1e-7; auto: "
                        "float64, but float32 for a public tree solved in pieces, as turn limit 4 is, "
                        "for its memory)")
    p.add_argument("--updates", choices=UPDATES, default=UPDATES[0],
                   help="alternating (OpenSpiel's CFR) or simultaneous (half the passes per "
                        "iteration, usually more iterations)")
    p.add_argument("--out", metavar="FILE.npz", help="save the strategy to this .npz file")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--checkpoint", metavar="FILE.npz",
                   help="save the solver's state here every --checkpoint-every iterations and when "
                        "the solve ends or is interrupted (resume it with --resume)")
    p.add_argument("--checkpoint-every", type=V.count, default=DEFAULT_CHECKPOINT_EVERY,
                   help="iterations between checkpoints")
    p.add_argument("--resume", metavar="FILE.npz",
                   help="continue the solve saved in this checkpoint (same rules and options)")
    add_leaves_args(p)
    _add_report_args(p, "draw the bluff and challenge rates to this image file (.png, .pdf, .svg, ...)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_games_args(p, seed=True):
    p.add_argument("--games", type=V.games, default=DEFAULT_GAMES,
                   help="self-play games the bluff table of a sampled strategy (train's) is estimated from")
    if seed:
        p.add_argument("--seed", type=V.seed, default=0, help="seed of those games")


def _add_train_args(p):
    p.add_argument("--players", type=V.field_number("players"), default=2, help="players")
    _add_rule_options(p, PRESETS + ("standard",), None, None,
                      "memory the information-set table may take, e.g. 4GiB: sizes the table when "
                      "--max-infosets is not given, and refuses a larger one before allocating it")
    p.add_argument("--sampling", choices=SAMPLINGS,
                   help="MCCFR's sampling: external (every action of the traverser), outcome (one sampled "
                        "path, importance-weighted) or probe (one path, each traverser's action on it valued "
                        "by a rollout: long games; features only) (default: with neither option, external "
                        "over exact sets known to fit the table, else probe over features; else external)")
    p.add_argument("--abstraction", choices=ABSTRACTIONS,
                   help="information sets: exact (perfect recall) or features (what a player can act on; "
                        "imperfect recall, for long games: no equilibrium guarantee) (default: see --sampling)")
    p.add_argument("--field", type=V.training_field, default={}, metavar="BOT=SHARE[,BOT=SHARE]",
                   help="features only: train against a field where each seat of each game is played by a "
                        "baseline bot with this share, e.g. honest=0.3,random=0.1 (bots: honest, random; the "
                        "rest is the strategy itself)")
    p.add_argument("--warm-start", type=V.regret, default=0.0, metavar="R",
                   help="probe only: each new information set starts at the honest bot's move with this "
                        "much regret, which the sampled regrets outweigh where they disagree (0: none)")
    p.add_argument("--explore", type=V.share, default=1.0, metavar="E", help="probe only: the traverser's "
                   "path follows its strategy, each move drawn uniformly with probability E instead (1: uniform)")
    p.add_argument("--threads", type=V.workers, default=1, metavar="N",
                   help="external sampling with exact information sets only: N workers in deterministic "
                        "batches (reproducible from --seed and N, not the one-thread iterates; default 1)")
    p.add_argument("--regret", choices=REGRETS, default=REGRETS[0], help="regret matching, or RM+")
    p.add_argument("--average", choices=AVERAGES, default=AVERAGES[0],
                   help="the average strategy's weights: uniform, or linear in the iteration")
    p.add_argument("--seed", type=V.seed, default=0, help="seed of the sampling and of the table's games")
    p.add_argument("--iterations", type=V.count,
                   help="iterations in all (a resumed run's included); with --minutes, whichever comes "
                        "first (default: none; give one of them)")
    p.add_argument("--minutes", type=V.minutes, metavar="M", help="minutes of training in this run")
    p.add_argument("--max-infosets", type=V.count, metavar="N",
                   help="room for this many information sets (default: 1,048,576, or as many as --max-memory holds)")
    p.add_argument("--out", metavar="FILE.npz", help="save the strategy to this .npz file")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--checkpoint", metavar="FILE.npz",
                   help="save the solver's state here every --checkpoint-minutes and when the run ends "
                        "or is interrupted (continue it with --resume)")
    p.add_argument("--checkpoint-minutes", type=V.minutes, default=10.0, metavar="M",
                   help="minutes between checkpoints")
    p.add_argument("--resume", metavar="FILE.npz",
                   help="continue the run saved in this checkpoint or train --out file (same rules, options)")
    _add_games_args(p, seed=False)
    _add_report_args(p, "draw the sampled bluff and challenge rates to this image file", selection=False)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_report_args(p, plot_help, selection=True):
    p.add_argument("--plot", metavar="FILE", help=plot_help)
    p.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="the analysis and the solve's provenance as one JSON object: on the last line "
                        "of the output, or in FILE")
    if selection:  # solve, analyse
        p.add_argument("--selection", action="store_true",
                       help="also each turn-1 rate under CFR+, under MMD (the QRE selection) and over the "
                            "1e-3-equilibria, determined or not (2 players, turn limit 1 or 2: minutes of "
                            "linear programs at 2; in the JSON, and drawn to --plot's NAME.selection.SUFFIX)")


def build_parser(commands=None) -> argparse.ArgumentParser:
    """The ``coupsolve`` parser.

    Parameters
    ----------
    commands : dict, optional
        ``{command name: function}``; the parsed arguments of a command carry its function as
        ``args.func`` (:mod:`coupsolve.cli` passes them).
    """
    from coupsolve import __version__

    commands = commands or {}

    parser = _Parser(prog="coupsolve", description="Solve and study the card game Coup.",
                     formatter_class=_Help)
    parser.add_argument("--version", action="version", version=f"coupsolve {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def sub_parser(name, help_, **kw):  # help is %-formatted by argparse: "95%" must be "95%%"
        p = sub.add_parser(name, help=help_.replace("%", "%%"), description=help_, formatter_class=_Help,
                           **kw)
        p.set_defaults(func=commands.get(name))
        return p
    for name, help_ in (("solve", "build a preset's game tree, solve it and print its bluff table"),
                        ("demo", "the main job: the default solve")):
        _add_solve_args(sub_parser(name, help_))
    _add_train_args(sub_parser("train", "train a strategy for 2 to 6 players by sampling (MCCFR) and "
                                        "print its bluff table, estimated from self-play"))
    p = sub_parser("analyse", "analyse a saved strategy", aliases=["analyze"])
    p.add_argument("strategy", help="a strategy file written by solve --out or train --out")
    _add_report_args(p, "draw the bluff and challenge rates to this image file")
    _add_games_args(p)
    p.add_argument("--sampled", action="store_true",
                   help="a strategy solved in pieces: estimate its analysis from --games self-play "
                        "games instead of reading the exact one kept in the file (solve keeps it) "
                        "or, in a file without it, rebuilding the pieces for it and keeping it (at "
                        "turn limit 4 the rebuild takes 20-30 minutes and about 15 GiB)")
    p = sub_parser("info", "tree size and memory of a preset, without building it")
    _add_rules_args(p)
    p = sub_parser("play", "play against a saved strategy in the terminal")
    p.add_argument("strategy", nargs="?", default="blueprint", help=SHIPPED_HELP)
    p.add_argument("--seat", type=V.whole_number(0, 5), default=0,
                   help="your seat, 0 (moves first) to the players less one; every other seat plays the "
                        "strategy")
    p.add_argument("--seed", type=V.seed, default=0, help="seed of the deals and the bots' moves")
    add_search_args(p)
    p.add_argument("--explain", action="store_true",
                   help="with --search: after each of its moves, what it thinks you hold and what the "
                        "position is worth to it")
    p = sub_parser("match", "play a saved strategy head to head against the bots or another strategy "
                            "file, with 95% intervals (duplicate deals, variance-reduced)")
    p.add_argument("strategy", nargs="?", default="blueprint", help=SHIPPED_HELP)
    p.add_argument("--against", action="append", metavar="OPPONENT",
                   help="honest (HonestBot), random (RandomBot), self, a shipped strategy (blueprint, blueprint-v2) "
                        "or a strategy file of the same rules; every other seat plays it; repeat (default: honest, "
                        "random)")
    p.add_argument("--games", type=V.games, default=2000,
                   help="games against each opponent (rounded down to a multiple of the players)")
    p.add_argument("--seed", type=V.seed, default=0, help="seed of the games")
    p.add_argument("--pilot", type=V.whole_number(0, 1 << 20), default=PILOT_GAMES, metavar="N", help="games "
                   "played twice first, seeded apart, to fit the variance-reduced estimate's value (0: none)")
    p.add_argument("--json", nargs="?", const="-", metavar="FILE",
                   help="the results as one JSON object: on the last line of the output, or in FILE")
    add_search_args(p)
    p = sub_parser("random", "play one game with uniformly random moves and print its log")
    p.add_argument("--players", type=V.field_number("players"), default=2, help="players")
    p.add_argument("--setup", choices=["standard", "selection"], default=None,
                   help="the setup (default: selection with 2 players, standard with more)")
    p.add_argument("--turn-limit", type=V.field_number("turn_limit"), default=100, help="turns before a draw")
    p.add_argument("--seed", type=V.seed, default=0, help="seed of every random choice")
    p = sub_parser("serve", "play and explore in the browser: a local web page with a table against the "
                            "bots and the strategies, a coach and a strategy explorer")
    p.add_argument("strategies", nargs="*", metavar="STRATEGY.npz", default=["blueprint"],
                   help="strategy files written by solve --out or train --out, to play against, be "
                        "coached by and explore (default: blueprint, the full-length two-player blueprint "
                        "that comes with coupsolve; the honest and random bots are always there)")
    p.add_argument("--port", type=V.whole_number(0, 65535), default=8000,
                   help="the port to serve on (0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to serve on (the default is this machine only)")
    add_search_args(p)  # each trained two-player strategy is also served re-solving
    return parser
