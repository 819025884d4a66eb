"""The ``coupsolve`` command line: solve a preset, analyse a strategy, size a tree, play the bot.

Every error (a bad option, a missing or foreign strategy file, a tree too big for memory) prints one
line ``coupsolve: error: ...`` and exits with status 2; an interrupted solve saves and reports what it
finished and exits with 130.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

PRESETS = ("two-player-selection", "two-player-standard")
DEFAULT_TURN_LIMIT = 2  # the largest limit the default solve finishes in about two minutes here
DEFAULT_TARGET = 1e-3
DEFAULT_MAX_ITERATIONS = 20_000


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


# Rules fields that have a flag of their own: --rule may not set them too (one source for each value).
_OWN_FLAGS = {"turn_limit": "--turn-limit", "limit_payoff": "--limit-payoff", "setup": "--preset"}


def _rule_item(item):
    """``NAME=VALUE`` of ``--rule`` as (field name, value), or a one-line error naming the problem."""
    import dataclasses

    from .rules import Rules

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
        raise CliError("--rule players: the solvers take two-player games; "
                       "`coupsolve random --players N` plays a game of N players")
    low = value.strip().lower()
    return name, (True if low == "true" else False if low == "false"
                  else int(low) if low.lstrip("-").isdigit() else value.strip())


def _rules(args):
    from .rules import Rules

    kw = {"turn_limit": args.turn_limit, "limit_payoff": args.limit_payoff}
    kw.update(_rule_item(item) for item in args.rule or ())
    if args.preset == "two-player-selection":
        return Rules.two_player_selection(**kw)
    return Rules.standard(players=2, **kw)


def _fmt_bytes(n):
    from solvers.memory import format_bytes

    return format_bytes(n)


def _sizes(rules):
    """Exact tree size from a counting walk (a TreeSize the build reuses), and the memory a build
    (with the node context the analysis needs) and a solve need."""
    import solvers
    from .builder import count_tree, estimate_build_bytes

    size = count_tree(rules)
    build = estimate_build_bytes(size, context=True)
    solve = solvers.estimate_solve_bytes(size.nodes, size.decision_nodes, size.decision_children)
    return size, build, solve


def _print_sizes(rules, out=sys.stdout):
    size, build, solve = _sizes(rules)
    print(f"rules: {rules}", file=out)
    print(f"tree: {size.nodes:,} histories ({size.decision_nodes:,} decisions) in "
          f"{len(size.levels)} levels; memory: at most {_fmt_bytes(build)} for the tree and "
          f"{_fmt_bytes(solve)} for the solve (counted in {size.seconds:.1f} s)", file=out)
    return size, build, solve


# ---- solve -----------------------------------------------------------------------------------------
def _cmd_solve(args) -> int:
    import solvers
    from .analysis import analyse
    from .couptree import build_coup_tree

    if args.out and os.path.exists(args.out) and not args.force:
        raise CliError(f"{args.out} exists; pass --force to overwrite it")
    if args.out and not args.out.endswith(".npz"):
        raise CliError(f"--out must name a .npz file, got {args.out}")
    rules = _rules(args)
    solvers.check_threads(args.threads)  # before the build, not after it
    iterations, target = args.iterations, args.target_exploitability
    if iterations is None and target is None:
        iterations, target = DEFAULT_MAX_ITERATIONS, DEFAULT_TARGET
    human = sys.stdout if not args.json else sys.stderr
    size, _, _ = _print_sizes(rules, human)
    t0 = time.perf_counter()
    coup_tree = build_coup_tree(rules, size=size)  # counted once, above
    tree = coup_tree.tree
    build_s = time.perf_counter() - t0
    print(f"built in {build_s:.1f} s: {tree.num_infosets:,} information sets, "
          f"{coup_tree.build_info['bytes_per_history']:.1f} bytes per history", file=human)
    result = solvers.solve(tree, algorithm=args.algorithm, iterations=iterations,
                           target_exploitability=target, seed=args.seed, check_every=args.check_every,
                           progress=not args.no_progress, precision=args.precision,
                           updates=args.updates, threads=args.threads)
    expl = float(result.curve_exploitability[-1]) if len(result.curve_exploitability) else math.nan
    if args.out:
        result.save(args.out)
    analysis = analyse(coup_tree, result.average_policy,
                       meta={"title": f"{rules} - {result.algorithm}, {result.iterations} iterations"})
    status = " (interrupted: the last complete iteration is kept)" if result.interrupted else ""
    print(f"\n{result.algorithm}: {result.iterations} iterations in {result.seconds:.1f} s{status}; "
          f"exploitability {expl:.3g}", file=human)
    if args.out:
        print(f"strategy saved to {args.out}", file=human)
    print(analysis.to_table(), file=human)
    if args.plot:
        analysis.plot(args.plot)
        print(f"plot written to {args.plot}", file=human)
    if args.json:
        print(json.dumps({"rules": rules.to_dict(), "algorithm": result.algorithm,
                          "iterations": int(result.iterations), **result.options,  # as the solve ran
                          "exploitability": expl,
                          "game_value": [float(x) for x in result.game_value],
                          "bluff": {k: (None if math.isnan(v) else v) for k, v in analysis.bluff.items()},
                          "histories": tree.num_nodes, "infosets": tree.num_infosets,
                          "build_seconds": build_s, "solve_seconds": float(result.seconds),
                          "interrupted": bool(result.interrupted)}))
    return 130 if result.interrupted else 0


# ---- loading a strategy ----------------------------------------------------------------------------
def _load_strategy(path):
    """(rules, CoupTree, result) for a strategy file, with clear errors for anything else."""
    import pyspiel
    import solvers
    from .couptree import build_coup_tree

    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    try:
        result = solvers.SolveResult.load(path)
    except (ValueError, KeyError, OSError) as e:
        raise CliError(f"{path} is not a coupsolve strategy file ({e})") from None
    if not result.game_id.startswith("python_coup("):
        raise CliError(f"{path} is a strategy for {result.game_id}, not for Coup")
    rules = pyspiel.load_game(result.game_id).rules
    coup_tree = build_coup_tree(rules)
    # checks the layout against the rebuilt tree
    result = solvers.SolveResult.load(path, tree=coup_tree.tree)
    return rules, coup_tree, result


def _cmd_analyse(args) -> int:
    from .analysis import analyse

    rules, coup_tree, result = _load_strategy(args.strategy)
    analysis = analyse(coup_tree, result.average_policy,
                       meta={"title": f"{rules} - {result.algorithm}, {result.iterations} iterations"})
    expl = float(result.curve_exploitability[-1]) if len(result.curve_exploitability) else math.nan
    print(f"rules: {rules}\n{result.algorithm}, {result.iterations} iterations, exploitability {expl:.3g}\n")
    print(analysis.to_table())
    if args.plot:
        analysis.plot(args.plot)
        print(f"\nplot written to {args.plot}")
    if args.json:
        print(json.dumps(analysis.to_dict()))
    return 0


def _cmd_info(args) -> int:
    from solvers.memory import available_bytes

    _, build, solve = _print_sizes(_rules(args))
    avail = available_bytes()
    if avail is not None:
        verdict = "fits" if build + solve < avail else "does NOT fit"
        print(f"available memory: {_fmt_bytes(avail)}: a build and solve {verdict}")
    return 0


# ---- play ------------------------------------------------------------------------------------------
def _public_view(state, seat) -> str:
    n = state.num_players_
    rows = [f"  {'seat':<6}{'coins':>5}  {'cards':<8} face up"]
    for p in range(n):
        you = " (you)" if p == seat else ""
        rows.append(f"  p{p:<5}{state.coins[p]:>5}  {state.influence[p]:<8} "
                    f"{'+'.join(state.face_up[p]) or '-'}{you}")
    rows.append(f"  your cards: {'+'.join(state.hand(seat)) or '-'}")
    return "\n".join(rows)


def _cmd_play(args) -> int:
    from .game import load_game
    from .names import token_name

    rules, coup_tree, result = _load_strategy(args.strategy)
    tree = coup_tree.tree
    if args.seat not in (0, 1):
        raise CliError(f"--seat must be 0 or 1, got {args.seat}")
    game = load_game(rules)
    rng = np.random.default_rng(args.seed)
    sigma = result.average_policy
    state, v, seen = game.new_initial_state(), 0, 0
    you = args.seat
    print(f"You are p{you} against the strategy in {args.strategy} (seed {args.seed}). "
          "Type an action's name or its number.")
    while not state.is_terminal():
        for owner, private, public in state.events[seen:]:
            print("  " + token_name(private if owner in (-1, you) else public, rules.challenge_buyout))
        seen = len(state.events)
        player = state.current_player()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            k = int(rng.choice(len(outcomes), p=np.asarray(probs) / sum(probs)))
            moves = outcomes
        else:
            moves = state.legal_actions()
            names = [state.action_to_string(player, a) for a in moves]
            if player == you:
                print(_public_view(state, you))
                print("  your move: " + "  ".join(f"[{i}] {nm}" for i, nm in enumerate(names)))
                k = _ask(names)
            else:
                I = int(tree.node_infoset[v])
                o = int(tree.infoset_offset[I])
                p = sigma[o:o + len(moves)]
                k = int(rng.choice(len(moves), p=p / p.sum()))
        state.apply_action(moves[k])
        v = int(tree.child_start[v]) + k
    for owner, private, public in state.events[seen:]:
        print("  " + token_name(private if owner in (-1, you) else public, rules.challenge_buyout))
    print(str(state))
    r = state.returns()[you]
    print("You win." if r > 0 else "You lose." if r < 0 else "A draw (turn limit).")
    return 0


def _ask(names) -> int:
    from .names import canonical_name

    lookup = {nm.lower(): i for i, nm in enumerate(names)}
    while True:
        line = sys.stdin.readline()
        if not line:
            raise CliError("standard input ended before the game did")
        text = line.strip()
        if text.isdigit() and int(text) < len(names):
            return int(text)
        key = canonical_name(text).lower()
        if key in lookup:
            return lookup[key]
        print(f"  {text!r} is not one of: {', '.join(names)}; try again")


def random_game_log(rules, seed: int) -> list[str]:
    """Play one game with uniformly random legal moves; return the log lines and final table."""
    from .game import load_game

    game = load_game(rules)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    lines = [f"{game}", f"seed {seed}", ""]
    while not state.is_terminal():
        player = state.current_player()
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            action = int(rng.choice(outcomes, p=probs))
            who = "chance"
        else:
            action = int(rng.choice(state.legal_actions()))
            who = f"p{player}"
        lines.append(f"turn {state.turn:>3}  {who:<6} {state.action_to_string(player, action)}")
        state.apply_action(action)
    lines += ["", str(state), f"returns: {state.returns()}"]
    return lines


def _cmd_random(args) -> int:
    from .rules import Rules

    setup = args.setup or ("selection" if args.players == 2 else "standard")  # selection is 2-player only
    rules = Rules(players=args.players, setup=setup, turn_limit=args.turn_limit)
    print("\n".join(random_game_log(rules, args.seed)))
    return 0


# ---- parser ----------------------------------------------------------------------------------------
def _whole_number(minimum):
    """An argparse type: a whole number of at least ``minimum``, with a one-line error."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


_positive_int, _seed = _whole_number(1), _whole_number(0)


def _positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def _add_rules_args(p):
    p.add_argument("--preset", choices=PRESETS, default="two-player-selection")
    p.add_argument("--turn-limit", type=_positive_int, default=DEFAULT_TURN_LIMIT)
    p.add_argument("--limit-payoff", choices=["draw", "influence"], default="draw")
    p.add_argument("--rule", action="append", metavar="NAME=VALUE",
                   help="any other option of the rules, e.g. --rule selective_coup=true --rule challenge_bounty=1")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (``coupsolve: error: ...``, status 2) instead of a usage dump."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from solvers import ALGORITHMS, PRECISIONS, UPDATES

    from . import __version__

    parser = _Parser(prog="coupsolve", description="Solve and study the card game Coup.")
    parser.add_argument("--version", action="version", version=f"coupsolve {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in (("solve", "build a preset's game tree, solve it and print its bluff table"),
                        ("demo", "the main job: the default solve")):
        p = sub.add_parser(name, help=help_)
        _add_rules_args(p)
        p.add_argument("--algorithm", choices=sorted(ALGORITHMS), default="cfr+")
        stop = p.add_mutually_exclusive_group()
        stop.add_argument("--iterations", type=_positive_int)
        stop.add_argument("--target-exploitability", type=_positive_float)
        p.add_argument("--check-every", type=_positive_int, default=25,
                       help="iterations between exploitability checks (default 25)")
        p.add_argument("--seed", type=_seed, default=0)
        p.add_argument("--threads", type=_positive_int, default=1,
                       help="numba threads for the passes (pays from about 10**6 histories, i.e. "
                            "turn limit 2 and up; default 1)")
        p.add_argument("--precision", choices=PRECISIONS, default=PRECISIONS[0],
                       help="type of the per-history reach and value buffers (default float64, "
                            "OpenSpiel-exact; float32 saves memory traffic on large trees)")
        p.add_argument("--updates", choices=UPDATES, default=UPDATES[0],
                       help="alternating (default, OpenSpiel's CFR) or simultaneous (half the "
                            "passes per iteration, usually more iterations)")
        p.add_argument("--out", help="save the strategy to this .npz file")
        p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
        p.add_argument("--plot", help="draw the bluff and challenge rates to this image file")
        p.add_argument("--json", action="store_true", help="print one JSON object on the last line")
        p.add_argument("--no-progress", action="store_true")
        p.set_defaults(func=_cmd_solve)
    p = sub.add_parser("analyse", aliases=["analyze"], help="analyse a saved strategy")
    p.add_argument("strategy")
    p.add_argument("--plot")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_analyse)
    p = sub.add_parser("info", help="tree size and memory of a preset, without building it")
    _add_rules_args(p)
    p.set_defaults(func=_cmd_info)
    p = sub.add_parser("play", help="play against a saved strategy in the terminal")
    p.add_argument("strategy")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 (moves first) or 1")
    p.add_argument("--seed", type=_seed, default=0)
    p.set_defaults(func=_cmd_play)
    p = sub.add_parser("random", help="play one game with uniformly random moves and print its log")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--setup", choices=["standard", "selection"], default=None,
                   help="default: selection with 2 players, standard with more")
    p.add_argument("--turn-limit", type=int, default=100)
    p.add_argument("--seed", type=_seed, default=0)
    p.set_defaults(func=_cmd_random)
    return parser


def main(argv=None) -> int:
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


if __name__ == "__main__":
    sys.exit(main())
